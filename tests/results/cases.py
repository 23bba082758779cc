"""Hostile result files and what each must produce: (file in bad/, first problem's pointer, code).

Shared with the browser tests, which feed the same files to the calculator pages. The files are
written by `make_bad.py` (rerun it after changing a case); the 50 MB file is made at test time
by `write_huge()` and never committed. Pointers are RFC 6901 ("" is the whole document).
"""

from __future__ import annotations

from pathlib import Path

BAD = Path(__file__).parent / "bad"
HUGE = "huge-50mb.json"

CASES = [
    ("empty.json", "", "empty"),
    ("whitespace.json", "", "empty"),
    ("truncated.json", "", "json_syntax"),
    ("trailing-garbage.json", "", "json_syntax"),
    ("array-top-level.json", "", "type"),
    ("string-top-level.json", "", "type"),
    ("bom.json", "", "bom"),
    ("not-utf8.json", "", "encoding"),
    ("nan.json", "/timing/step/mean", "non_finite"),
    ("infinity.json", "/memory/peak_tensor_bytes", "non_finite"),
    ("negative-infinity.json", "/losses/0", "non_finite"),
    ("overflow-number.json", "/timing/tokens_per_s", "non_finite"),
    ("deep-nesting.json", "", "too_deep"),
    ("schema-version-2.json", "/schema_version", "schema_version"),
    ("schema-version-number.json", "/schema_version", "schema_version"),
    ("missing-timing.json", "", "required"),
    ("missing-environment.json", "", "required"),
    ("timing-null-completed.json", "/timing", "type"),
    ("scale-without-scaling.json", "/scaling", "type"),
    ("negative-memory.json", "/memory/peak_tensor_bytes", "minimum"),
    ("absurd-memory.json", "/memory/peak_tensor_bytes", "maximum"),
    ("absurd-step-time.json", "/timing/step/p95", "maximum"),
    ("string-for-integer.json", "/config/model/layers", "type"),
    ("fractional-steps.json", "/config/steps", "type"),
    ("bool-for-integer.json", "/environment/device_count", "type"),
    ("unknown-device-type.json", "/environment/device_type", "enum"),
    ("bad-date.json", "/created", "format"),
    ("script-in-hash.json", "/model/config_hash", "pattern"),
    ("long-label.json", "/label", "maxLength"),
    ("lone-surrogate.json", "/label", "surrogate"),
    ("script-as-key.json", "/<script>alert(1)<~1script>", "additionalProperties"),
    ("bidi-key.json", "/\u202ekey\u202c", "additionalProperties"),
    ("duplicate-lora-targets.json", "/config/train/lora_targets", "uniqueItems"),
    ("many-unknown-keys.json", "/unknown_0000", "additionalProperties"),
    (HUGE, "", "too_large"),
]

# Valid files whose every reachable string carries a payload: they must render, escaped.
PAYLOADS = ["script-payloads.json", "script-payloads-scale.json"]
# A valid file whose label holds a right-to-left override: shown stripped and isolated, never reversed.
BIDI_LABEL = "bidi-label.json"
BIDI_LABEL_TEXT = "A100 \u202etset\u202c run"
PAYLOAD_STRINGS = [
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    '"><img src=x onerror=alert(1)>',
    "</svg><script>alert(2)</script>",
    "' onmouseover='alert(3)",
]


def write_huge(path: Path, size: int = 50_000_000) -> Path:
    """A syntactically valid result whose note is a 50 MB string."""
    head = b'{"schema_version": "1", "note": "'
    with path.open("wb") as fh:
        fh.write(head)
        fh.write(b"x" * (size - len(head) - 2))
        fh.write(b'"}')
    return path
