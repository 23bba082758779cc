"""Problems in words: each problem of the result contract (`pilot.result`) as a localized line.

The msgids are the contract's own (`pilot.result.PROBLEM_CODES`), so the CLI's and the build's
English line and the page's translated one never drift apart. Parameters are JSON scalars, or lists of alternatives joined as the locale joins an
"or" list; numbers are formatted per locale when a `NumberFormat` is given.
"""

from __future__ import annotations

import math

from calculators import N_
from pilot.result import PLAIN, PROBLEM_CODES, TOP_LEVEL, TYPE_NAMES, WITH_FOUND

from .._escape import escape
from .._isolate import clip, isolate
from .._numbers import NumberFormat
from .._text import Translator, plural_count

_EN_PACK = {
    "locale": "en",
    "numbers": {"decimal": ".", "group": ",", "minus": "-", "grouping": [3, 3],
                "percent": {"prefix": "", "suffix": "%"},
                "currency": {"prefix": "$", "suffix": "", "neg_prefix": "-$", "neg_suffix": ""}},
    "units": {"gb": {"other": "{0} GB"}, "hour": {"other": "{0} h"}, "day": {"other": "{0} d"}},
}
ENGLISH = Translator(_EN_PACK)
ENGLISH_NUMBERS = NumberFormat(_EN_PACK)


def safe_number(value, fmt: NumberFormat | None, max_frac: int = 4) -> str:
    """Locale digits for ordinary magnitudes; NumberFormat's Decimal quantize fails beyond ~1e23."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value) or abs(value) >= 1e15:
        return f"{float(value):.4g}"
    return fmt.number(value, max_frac=max_frac) if fmt else str(value)


def type_names(types: str, t: Translator) -> str:
    names = [t(TYPE_NAMES.get(name, name)) for name in types.split(",") if name]
    text = names[0] if names else ""
    for name in names[1:]:
        text = t(N_("{first} or {second}"), first=text, second=name)
    return text


def expected_text(code: str, params: dict, t: Translator, fmt: NumberFormat | None) -> str:
    if code == "type":
        return type_names(params.get("types", ""), t)
    # A property name comes from the file and can be megabytes long: every echo is clipped.
    shown = {k: safe_number(v, fmt) if isinstance(v, (int, float)) and not isinstance(v, bool)
             else (fmt or ENGLISH_NUMBERS).join([clip(x) for x in v], "or") if isinstance(v, list) else clip(v)
             for k, v in params.items()}
    msg = PROBLEM_CODES.get(code, code)
    return t(msg, n=plural_count(msg, params), **shown)


def show_pointer(pointer: str, t: Translator) -> str:
    return clip(pointer) if pointer else t(TOP_LEVEL)


def problem_message(problem: dict, t: Translator, fmt: NumberFormat | None = None, html: bool = False) -> str:
    """One localized line: where, what was expected and, when known, what was found. With `html`,
    the line as HTML, the pointer and the value found (both from the file) isolated in <bdi>."""
    params = problem.get("params", {})
    pointer = problem.get("pointer", "")
    where = show_pointer(pointer, t)
    expected = expected_text(problem.get("code", ""), params, t, fmt)
    found = params.get("found")
    if problem.get("code") == "type":
        found = t(TYPE_NAMES.get(found, str(found))) if found is not None else None
    elif found is not None:
        found = clip(safe_number(found, fmt))
    parts = {"pointer": where, "expected": expected}
    if html:
        parts = {"pointer": isolate(where) if pointer else escape(where), "expected": escape(expected)}
        if found is not None:
            parts["found"] = isolate(found)
        return t.html(PLAIN if found is None else WITH_FOUND, **parts)
    if found is None:
        return t(PLAIN, **parts)
    return t(WITH_FOUND, found=found, **parts)


def english(problem: dict) -> str:
    """The problem as one English line: what the pilot's CLI prints and the build reports."""
    return problem_message(problem, ENGLISH, ENGLISH_NUMBERS)
