"""The result contract's problem codes, each with the English msgid that words it.

A problem is `{"pointer", "code", "params"}` (see `parse`); these msgids are its English text, and
gpuguide.results translates the very same msgids for the page, so the two never drift apart. Counted
entries (`NN_`) take their number from the parameter they name.
"""

from __future__ import annotations

from guidekit.l10n import N_, NN_

TYPE_NAMES = {
    "object": N_("an object"),
    "array": N_("a list"),
    "string": N_("text"),
    "integer": N_("a whole number"),
    "number": N_("a number"),
    "boolean": N_("true or false"),
    "null": N_("null"),
    "unknown": N_("an unknown value"),
}
# One whole sentence per code, so that each locale words each case in its own order ("{pointer}: expected
# …" glued to a fragment read as broken Japanese and Arabic). {found} appears where the code always has it.
PROBLEM_CODES = {
    "type": N_("{pointer}: expected {types}, found {found}"),
    # schema keywords
    "required": N_("{pointer}: expected property '{property}'"),
    "additionalProperties": N_("{pointer}: expected no property named '{property}'"),
    "const": N_("{pointer}: expected the value {value}"),
    "enum": N_("{pointer}: expected one of: {choices}"),
    "minimum": N_("{pointer}: expected a number ≥ {limit}, found {found}"),
    "maximum": N_("{pointer}: expected a number ≤ {limit}, found {found}"),
    "exclusiveMaximum": N_("{pointer}: expected a number < {limit}, found {found}"),
    "maxLength": NN_(
        "{pointer}: expected text of at most {limit} character",
        "{pointer}: expected text of at most {limit} characters",
        n="limit",
    ),
    "pattern": N_("{pointer}: expected text matching {pattern}"),
    "format": N_("{pointer}: expected a date and time such as 2026-01-31T12:00:00Z"),
    "minItems": NN_(
        "{pointer}: expected at least {limit} item", "{pointer}: expected at least {limit} items", n="limit"
    ),
    "maxItems": NN_("{pointer}: expected at most {limit} item", "{pointer}: expected at most {limit} items", n="limit"),
    "uniqueItems": N_("{pointer}: expected items that are all different"),
    "maxProperties": NN_(
        "{pointer}: expected at most {limit} property", "{pointer}: expected at most {limit} properties", n="limit"
    ),
    # TRANSLATORS: a JSON property the schema forbids: the file should have no value at this place at all.
    "false": N_("{pointer}: expected nothing here"),
    # reading the file
    "too_large": NN_(
        "{pointer}: expected a file of at most {limit} byte, found {found}",
        "{pointer}: expected a file of at most {limit} bytes, found {found}",
        n="limit",
    ),
    "empty": N_("{pointer}: expected a JSON document"),
    "bom": N_("{pointer}: expected UTF-8 text without a byte order mark"),
    "encoding": N_("{pointer}: expected UTF-8 text (invalid byte at offset {offset})"),
    "json_syntax": N_("{pointer}: expected valid JSON (error at line {line}, column {column})"),
    "non_finite": N_("{pointer}: expected a finite number, not {literal}"),
    "surrogate": N_("{pointer}: expected text without a lone surrogate escape (\\ud800–\\udfff)"),
    "too_deep": NN_(
        "{pointer}: expected at most {limit} level of nesting",
        "{pointer}: expected at most {limit} levels of nesting",
        n="limit",
    ),
    "schema_version": N_("{pointer}: expected schema version {supported}, found {found}"),
    # TRANSLATORS: the last line of a list of problems in an imported file, when more were found than shown.
    "too_many": NN_(
        "{pointer}: expected fewer problems ({count} more not listed)",
        "{pointer}: expected fewer problems ({count} more not listed)",
    ),
}
# A code from a newer contract than this reader's: named as it is.
UNKNOWN = N_("{pointer}: problem {code}")
TOP_LEVEL = N_("the file as a whole")
