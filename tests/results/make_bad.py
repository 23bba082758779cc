"""Writes tests/results/bad/ from the shipped sample: `python -m tests.results.make_bad`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from .cases import BAD, BIDI_LABEL, BIDI_LABEL_TEXT, PAYLOAD_STRINGS
from .corpus import GOOD

SAMPLE = json.loads(GOOD[0].read_text(encoding="utf-8"))
SCALE = json.loads((Path(__file__).parent / "good" / "scale-gloo.json").read_text(encoding="utf-8"))


def _dump(doc) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _edit(change, base=SAMPLE) -> str:
    doc = copy.deepcopy(base)
    change(doc)
    return _dump(doc)


def _set(path: str, value, base=SAMPLE) -> str:
    def change(doc):
        *head, last = path.split("/")
        for part in head:
            doc = doc[int(part) if isinstance(doc, list) else part]
        if value is _DELETE:
            del doc[last]
        else:
            doc[int(last) if isinstance(doc, list) else last] = value

    return _edit(change, base)


_DELETE = object()
MARK = 987654.321  # replaced in the text by a literal json.dumps would never write


def _literal(path: str, literal: str) -> str:
    return _set(path, MARK).replace(repr(MARK), literal, 1)


def _payloads(doc: dict) -> None:
    """Every string the schema lets be free text gets a payload (within its length limit)."""
    p = iter(PAYLOAD_STRINGS * 10)
    doc["label"] = doc["config"]["label"] = next(p)
    doc["note"] = doc["config"]["note"] = " ".join(PAYLOAD_STRINGS)
    env = doc["environment"]
    for key in ("python", "platform", "torch", "cuda", "hip", "driver", "device_name", "pilot_version"):
        env[key] = next(p)
    doc["model"]["source"] = doc["config"]["model"]["source"] = next(p)
    doc["config"]["data"]["source"] = next(p)
    doc["config"]["data"]["text_field"] = next(p)
    doc["outcome"]["error"] = next(p)
    if doc.get("restore"):
        doc["restore"]["verified"] = list(PAYLOAD_STRINGS)
        doc["restore"]["failures"] = list(PAYLOAD_STRINGS)
    if doc.get("estimate"):
        doc["estimate"]["reason"] = next(p)
        doc["estimate"]["calculator_inputs"] = {s: s for s in PAYLOAD_STRINGS}


def files() -> dict[str, bytes]:
    text = _dump(SAMPLE)
    out = {
        "empty.json": "",
        "whitespace.json": " \n\t\n",
        "truncated.json": text[: len(text) // 2],
        "trailing-garbage.json": text + "}",
        "array-top-level.json": "[" + text + "]",
        "string-top-level.json": json.dumps("<script>alert(1)</script>"),
        "nan.json": _literal("timing/step/mean", "NaN"),
        "infinity.json": _literal("memory/peak_tensor_bytes", "Infinity"),
        "negative-infinity.json": _literal("losses/0", "-Infinity"),
        "overflow-number.json": _literal("timing/tokens_per_s", "1e999"),
        "deep-nesting.json": _literal("estimate/calculator_inputs", '{"a": ' + "[" * 5000 + "]" * 5000 + "}"),
        "schema-version-2.json": _set("schema_version", "2"),
        "schema-version-number.json": _set("schema_version", 1),
        "missing-timing.json": _set("timing", _DELETE),
        "missing-environment.json": _set("environment", _DELETE),
        "timing-null-completed.json": _set("timing", None),
        "scale-without-scaling.json": _set("scaling", None, SCALE),
        "negative-memory.json": _set("memory/peak_tensor_bytes", -1),
        "absurd-memory.json": _set("memory/peak_tensor_bytes", 10**30),
        "absurd-step-time.json": _set("timing/step/p95", 1e300),
        "string-for-integer.json": _set("config/model/layers", "32"),
        "fractional-steps.json": _set("config/steps", 2.5),
        "bool-for-integer.json": _set("environment/device_count", True),
        "unknown-device-type.json": _set("environment/device_type", "<script>alert(1)</script>"),
        "bad-date.json": _set("created", "javascript:alert(1)"),
        "script-in-hash.json": _set("model/config_hash", "<script>alert(1)</script>"),
        "long-label.json": _set("label", "<script>alert(1)</script>" * 9),
        "lone-surrogate.json": _literal("label", '"run \\ud800"'),  # valid JSON; no UTF-8 page can hold it
        "script-as-key.json": _edit(lambda d: d.update({"<script>alert(1)</script>": "javascript:alert(1)"})),
        "bidi-key.json": _edit(lambda d: d.update({"\u202ekey\u202c": 1})),
        BIDI_LABEL: _set("label", BIDI_LABEL_TEXT),
        "duplicate-lora-targets.json": _set("config/train/lora_targets", ["q", "q"]),
        "many-unknown-keys.json": _edit(lambda d: d.update({f"unknown_{i:04d}": "<b>x</b>" for i in range(5000)})),
        "script-payloads.json": _edit(_payloads),
        "script-payloads-scale.json": _edit(_payloads, SCALE),
    }
    data = {name: body.encode("utf-8") for name, body in out.items()}
    data["bom.json"] = b"\xef\xbb\xbf" + text.encode("utf-8")
    data["not-utf8.json"] = _set("note", "caf\u00e9").encode("latin-1")
    return data


def main() -> None:
    BAD.mkdir(exist_ok=True)
    for name, body in files().items():
        (BAD / name).write_bytes(body)


if __name__ == "__main__":
    main()
