"""Problems in words: the English `expected` phrase of each problem and its localized message.

Both come from the same msgids, so the build's English line and the page's translated one never
drift apart. Parameters are JSON scalars, or lists of alternatives joined as the locale joins an
"or" list; numbers are formatted per locale when a `NumberFormat` is given.
"""

from __future__ import annotations

import math
from .._escape import escape

from calculators import N_, NN_, NP_

from .._isolate import clip, isolate
from .._numbers import NumberFormat
from .._text import Translator, plural_count

TYPE_NAMES = {
    "object": N_("an object"), "array": N_("a list"), "string": N_("text"),
    "integer": N_("a whole number"), "number": N_("a number"), "boolean": N_("true or false"),
    "null": N_("null"), "unknown": N_("an unknown value"),
}
EXPECTED = {
    # schema keywords
    "required": N_("property '{property}'"),
    "additionalProperties": N_("no property named '{property}'"),
    "const": N_("the value {value}"),
    "enum": N_("one of: {choices}"),
    "minimum": N_("a number ≥ {limit}"),
    "maximum": N_("a number ≤ {limit}"),
    "maxLength": NN_("text of at most {limit} character", "text of at most {limit} characters", n="limit"),
    "pattern": N_("text matching {pattern}"),
    "format": N_("a date and time such as 2026-01-31T12:00:00Z"),
    "minItems": NN_("at least {limit} item", "at least {limit} items", n="limit"),
    "maxItems": NN_("at most {limit} item", "at most {limit} items", n="limit"),
    "uniqueItems": N_("items that are all different"),
    "maxProperties": NN_("at most {limit} property", "at most {limit} properties", n="limit"),
    # TRANSLATORS: completes "{pointer}: expected …" for a JSON property the schema forbids: the file should
    # have no value at this place at all.
    "false": NP_("expected in an imported file", "nothing here"),
    # reading the file
    "too_large": NN_("a file of at most {limit} byte", "a file of at most {limit} bytes", n="limit"),
    "empty": N_("a JSON document"),
    "bom": N_("UTF-8 text without a byte order mark"),
    "encoding": N_("UTF-8 text (invalid byte at offset {offset})"),
    "json_syntax": N_("valid JSON (error at line {line}, column {column})"),
    "non_finite": N_("a finite number, not {literal}"),
    "surrogate": N_("text without a lone surrogate escape (\\ud800–\\udfff)"),
    "too_deep": NN_("at most {limit} level of nesting", "at most {limit} levels of nesting", n="limit"),
    "schema_version": N_("schema version {supported}"),
    # TRANSLATORS: the last line of a list of problems in an imported file, when more were found than shown.
    "too_many": NN_("fewer problems ({count} more not listed)", "fewer problems ({count} more not listed)"),
}
WITH_FOUND = N_("{pointer}: expected {expected}, found {found}")
PLAIN = N_("{pointer}: expected {expected}")
TOP_LEVEL = N_("top level")

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
    msg = EXPECTED.get(code, code)
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
