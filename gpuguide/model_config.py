"""A model's config.json dropped or pasted on a calculator: its dimensions become the form's inputs.

The reading is `calculators.hf_config` (the CLI and the pilot use it too); this module only turns
its answer into the import envelope the worker returns: {ok, errors, inputs, html, summary}.
"""

from __future__ import annotations

import calculators
from calculators import hf_config
from guidekit.calc import ERROR_CODES
from guidekit.l10n import N_, NN_, Localizer, clip, escape
from guidekit.render import figure, list_text


def is_model_config(text) -> bool:
    """Whether the text is meant as a config.json (a JSON object naming a model_type), not a result."""
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        return False
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    # Cheap tests first: result files, huge or hostile ones included, go to the result parser untouched.
    if len(raw) > hf_config.MAX_BYTES or b'"model_type"' not in raw or b'"schema_version"' in raw:
        return False
    # The config reader's own parse: json.loads alone would meet deep nesting on the browser's small stack.
    data, errors = hf_config.parse(raw)
    if errors:  # a number or a nesting only the config reader names; other trouble is the result parser's
        return errors[0]["code"] in ("config_huge_number", "config_too_deep")
    return "model_type" in data


def _message(err: dict, loc: Localizer) -> str:
    # `got` (the file's model_type) is echoed: clipped and stripped like every outside string.
    t, fmt = loc.t, loc.fmt
    params = {
        k: (
            list_text(k, list(map(str, v)), fmt)
            if isinstance(v, list)
            else clip(v)
            if isinstance(v, str)
            else fmt.number(v, max_frac=0)
            if isinstance(v, int) and not isinstance(v, bool)
            else v
        )
        for k, v in err.items()
    }
    return t(ERROR_CODES[err["code"]], **params)


def import_model_config(name: str, text, loc: Localizer) -> dict:
    """The envelope for a config.json; the inputs take only what calculator `name` declares."""
    t = loc.t
    inputs, errors = hf_config.read(text)
    if errors:
        lines = [_message(e, loc) for e in errors]
        heading = t(N_("This config.json cannot be used:"))
        items = "".join(f"<li>{escape(line)}</li>" for line in lines)
        html = f'<div class="guide-import guide-import--invalid" role="alert"><p>{escape(heading)}</p><ul>{items}</ul></div>'
        return {
            "ok": False,
            "errors": lines,
            "problems": [],
            "inputs": {},
            "html": html,
            "summary": heading + " " + lines[0],
        }
    config, _ = hf_config.parse(text)
    dtype = hf_config.weights_dtype(config)
    if dtype:
        inputs["weights_dtype"] = dtype
    declared = {i["name"] for i in calculators.describe(name)["inputs"]}
    inputs = {k: v for k, v in inputs.items() if k in declared}
    summary = t(
        NN_(
            "Model dimensions taken from its config.json ({family}): {layers} layer, hidden size {hidden}, "
            "vocabulary {vocab}.",
            "Model dimensions taken from its config.json ({family}): {layers} layers, hidden size {hidden}, "
            "vocabulary {vocab}.",
            n="layers",
        ),
        n=inputs["layers"],
        family=str(config["model_type"]),
        layers=figure(inputs["layers"], "count", loc),
        hidden=figure(inputs["hidden"], "count", loc),
        vocab=figure(inputs["vocab"], "count", loc),
    )
    html = f'<section class="guide-import"><p>{escape(summary)}</p></section>'
    return {"ok": True, "errors": [], "problems": [], "inputs": inputs, "html": html, "summary": summary}
