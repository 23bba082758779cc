"""The field-error codes ``compute`` returns: the framework's own, and those a guide registers for its
calculators' rules (``register_error_codes``).

An error is a plain dict: ``{"field": name, "code": code, **params}``; params are
JSON scalars or lists used to build the localized message (never a sentence).
"""

from typing import Any

from guidekit.l10n import N_

# code -> English msgid of the message the UI shows (params in braces). The framework's codes; a guide adds its own.
ERROR_CODES: dict[str, str] = {
    "required": N_("This field is required."),
    "not_a_number": N_("Enter a number."),
    "not_an_integer": N_("Enter a whole number."),
    "not_a_boolean": N_("Enter yes or no."),
    "not_an_object": N_("The inputs must be an object of field names and values."),
    "out_of_range": N_("Enter a value from {min} to {max}."),
    "unknown_choice": N_("Choose one of: {choices}."),
    "unknown_field": N_("This field is not an input of this calculator."),
    "unknown_calculator": N_("There is no calculator with this name; known: {choices}."),
}


def register_error_codes(codes: dict[str, str]) -> None:
    """Declare a calculator's own codes (code -> msgid, marked with `N_` so it is extracted); a code already
    declared with another message is refused, so two calculators cannot word one code two ways."""
    clashes = [code for code, msgid in codes.items() if ERROR_CODES.get(code, msgid) != msgid]
    if clashes:
        raise ValueError(f"error codes declared twice with different messages: {', '.join(clashes)}")
    ERROR_CODES.update(codes)


def error(field: str, code: str, **params: object) -> dict[str, Any]:
    """Build one field error; ``code`` must be in ``ERROR_CODES``."""
    if code not in ERROR_CODES:  # a programming error, not bad input
        raise ValueError(f"undeclared error code {code!r}")
    return {"field": field, "code": code, **params}
