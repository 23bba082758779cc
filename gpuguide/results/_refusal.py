"""A file that cannot be used, said in one sentence a reader understands, its details folded below.

The contract's problems (`pilot.result.parse`) are precise but speak of properties and pointers; a
reader who picked the wrong file (a package.json, a tokenizer's settings, text that is not JSON)
needs first to hear what the file is not, and what it looks like. The problems stay, folded, for
whoever wrote the file.
"""

from __future__ import annotations

import json

from guidekit.l10n import N_, Localizer, clip, escape

from ._messages import problem_message

# Problems that mean the bytes are not JSON at all.
NOT_JSON = {"empty", "bom", "encoding", "json_syntax", "non_finite", "surrogate", "too_deep"}
# What a JSON object looks like, by the keys its kind has (`any` of them, or `all`): the first match names it.
LOOKS_LIKE = (
    (("dependencies", "devDependencies", "scripts", "lockfileVersion"), any, N_("an npm package.json")),
    (("tokenizer_class", "added_tokens_decoder", "model_max_length"), any, N_("a tokenizer's settings")),
    (("max_new_tokens", "do_sample", "top_p"), any, N_("a model's generation settings")),
    (("weight_map",), any, N_("the index of a model's weight files")),
    (("model", "train"), all, N_("a gpu-pilot configuration, not the result its run writes")),
)


def _looks_like(text, loc: Localizer) -> str:
    """What a JSON document that is no pilot result looks like, in the reader's language."""
    t = loc.t
    try:
        data = json.loads(bytes(text).decode("utf-8") if not isinstance(text, str) else text)
    except (ValueError, TypeError, RecursionError):
        return t(N_("another JSON document"))
    if isinstance(data, list):
        return t(N_("a JSON list"))
    if not isinstance(data, dict):
        return t(N_("a single JSON value"))
    for keys, test, what in LOOKS_LIKE:
        if test(key in data for key in keys):
            return t(what)
    first = loc.fmt.join([clip(str(k), 40) for k in list(data)[:3]])
    return t(N_("another JSON document (its first keys: {keys})"), keys=first) if first else t(N_("an empty object"))


def not_a_result(problems: list[dict]) -> bool:
    """Whether the problems say the document is not even meant as a pilot result: not JSON, not an
    object, or an object with neither the contract's version nor its kind."""
    top = [p for p in problems if p.get("pointer") == ""]
    if any(p["code"] in NOT_JSON or p["code"] == "type" for p in top):
        return True
    missing = {p["params"].get("property") for p in top if p["code"] == "required"}
    return {"schema_version", "kind"} <= missing


def refusal(text, problems: list[dict], loc: Localizer, pasted: bool) -> tuple[str, list[str]]:
    """(the first sentence, the detail lines as HTML) for a document the contract refused."""
    t = loc.t
    top_codes = {p["code"] for p in problems if p.get("pointer") == ""}
    if top_codes & NOT_JSON:
        sentence = (
            t(N_("This text is not JSON, so it is neither a pilot result nor a config.json."))
            if pasted
            else t(N_("This file is not JSON, so it is neither a pilot result nor a config.json."))
        )
    elif not_a_result(problems):
        what = _looks_like(text, loc)
        sentence = (
            t(N_("This text is not a pilot result or a config.json: it looks like {what}."), what=what)
            if pasted
            else t(N_("This file is not a pilot result or a config.json: it looks like {what}."), what=what)
        )
    else:
        sentence = (
            t(N_("This text is a pilot result this site cannot use:"))
            if pasted
            else t(N_("This file is a pilot result this site cannot use:"))
        )
    return sentence, [problem_message(p, loc, html=True) for p in problems]


def refusal_html(sentence: str, lines: list[str], folded: bool, loc: Localizer) -> str:
    """The alert: the sentence, then the problems (folded when the file is not a result at all)."""
    items = "".join(f"<li>{line}</li>" for line in lines)
    details = f"<ul>{items}</ul>"
    if folded:
        label = escape(loc.t(N_("What the check found")))
        details = f'<details class="guide-import__details failure"><summary>{label}</summary>{details}</details>'
    return f'<div class="guide-import guide-import--invalid" role="alert"><p>{escape(sentence)}</p>{details}</div>'
