"""Problems in words: each problem of the result contract (`pilot.result`) as a localized line.

The msgids are the contract's own (`pilot.result.PROBLEM_CODES`), so the CLI's and the build's
English line and the page's translated one never drift apart. Parameters are JSON scalars, or lists of alternatives joined as the locale joins an
"or" list; numbers are formatted per locale (`Localizer.english()` for the CLI's and the build's line).
"""

from __future__ import annotations

import math

from guidekit.l10n import N_, Localizer, NumberFormat, Translator, clip, escape, isolate, plural_count
from pilot.result import PROBLEM_CODES, TOP_LEVEL, TYPE_NAMES, UNKNOWN


def safe_number(value, fmt: NumberFormat, max_frac: int = 4) -> str:
    """Locale digits for ordinary magnitudes; NumberFormat's Decimal quantize fails beyond ~1e23."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value) or abs(value) >= 1e15:
        return f"{float(value):.4g}"
    return fmt.number(value, max_frac=max_frac)


def type_names(types: str, t: Translator) -> str:
    names = [t(TYPE_NAMES.get(name, name)) for name in types.split(",") if name]
    text = names[0] if names else ""
    for name in names[1:]:
        text = t(N_("{first} or {second}"), first=text, second=name)
    return text


def shown_params(code: str, params: dict, loc: Localizer) -> dict:
    """A problem's parameters as its sentence shows them: numbers per locale, lists joined as the locale
    joins an "or" list, JSON type names translated; every echo of the file clipped (a property name can
    be megabytes long)."""
    t, fmt = loc.t, loc.fmt
    shown = {
        k: safe_number(v, fmt)
        if isinstance(v, (int, float)) and not isinstance(v, bool)
        else fmt.join([clip(x) for x in v], "or")
        if isinstance(v, list)
        else clip(v)
        for k, v in params.items()
    }
    if code == "type":
        shown["types"] = type_names(params.get("types", ""), t)
        if params.get("found") is not None:
            shown["found"] = t(TYPE_NAMES.get(params["found"], str(params["found"])))
    return shown


def show_pointer(pointer: str, t: Translator) -> str:
    return clip(pointer) if pointer else t(TOP_LEVEL)


def problem_message(problem: dict, loc: Localizer, html: bool = False) -> str:
    """One localized sentence, the code's own: where, what was expected and, when the code has it, what
    was found. With `html`, the sentence as HTML, the pointer and the value found (both from the file)
    isolated in <bdi>."""
    t = loc.t
    code, params, pointer = problem.get("code", ""), problem.get("params", {}), problem.get("pointer", "")
    msg = PROBLEM_CODES.get(code)
    shown = shown_params(code, params, loc) if msg else {"code": clip(code)}
    where = show_pointer(pointer, t)
    n = plural_count(msg, params) if msg else None
    if not html:
        return t(msg or UNKNOWN, n=n, **shown, pointer=where)
    parts = {k: isolate(v) if k == "found" else escape(v) for k, v in shown.items()}
    return t.html(msg or UNKNOWN, n=n, **parts, pointer=isolate(where) if pointer else escape(where))


def english(problem: dict) -> str:
    """The problem as one English line: what the pilot's CLI prints and the build reports."""
    return problem_message(problem, Localizer.english())
