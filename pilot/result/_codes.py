"""The result contract's problem codes, each with the English msgid that words it.

A problem is `{"pointer", "code", "params"}` (see `parse`); these msgids are its English text, and
calcui.results translates the very same msgids for the page, so the two never drift apart. Counted
entries (`NN_`) take their number from the parameter they name.
"""

from __future__ import annotations

from calculators import N_, NN_, NP_

TYPE_NAMES = {
    "object": N_("an object"), "array": N_("a list"), "string": N_("text"),
    "integer": N_("a whole number"), "number": N_("a number"), "boolean": N_("true or false"),
    "null": N_("null"), "unknown": N_("an unknown value"),
}
PROBLEM_CODES = {
    # schema keywords
    "required": N_("property '{property}'"),
    "additionalProperties": N_("no property named '{property}'"),
    "const": N_("the value {value}"),
    "enum": N_("one of: {choices}"),
    "minimum": N_("a number ≥ {limit}"),
    "maximum": N_("a number ≤ {limit}"),
    "exclusiveMaximum": N_("a number < {limit}"),
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
