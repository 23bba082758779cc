"""Input declarations and the coercion/validation that the declarations drive.

Values arrive as JSON numbers/bools or as strings from HTML forms and URL query
strings; ``normalize`` turns them into Python values of the declared kind or
returns field errors. Nothing here raises for bad input.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._errors import error

KINDS = ("int", "float", "choice", "multichoice", "bool")
_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no"}


@dataclass(frozen=True)
class Choice:
    value: str
    label: str  # gettext msgid (English); data-driven names (GPUs, models) are proper nouns


@dataclass(frozen=True)
class TableGroup:
    """A fieldset laid out as a table, one input per row: the row's label, the input's `reference` (what
    the calculator uses while the field is empty) and the field. Each text is a msgid: the three column
    headings, and what the reference column says where an input has none (e.g. "not offered")."""

    label: str
    reference: str
    field: str
    absent: str

    def describe(self) -> dict[str, str]:
        return {"label": self.label, "reference": self.reference, "field": self.field, "absent": self.absent}


@dataclass(frozen=True)
class Input:
    name: str
    kind: str
    default: object
    label: str
    help: str = ""
    unit: str = ""
    min: float | None = None
    max: float | None = None
    step: float | None = None
    choices: tuple[Choice, ...] = ()
    group: str = ""  # the fieldset's title, a msgid; inputs sharing it and group_params share the fieldset
    # Parameters of the group's msgid, e.g. (("gpu", "H100 SXM 80 GB"),) for "Your prices … — {gpu}".
    group_params: tuple[tuple[str, str], ...] = ()
    advanced: bool = False
    # Extension to the contract: an optional input takes its default when it
    # arrives as an empty string (e.g. "0 = derive it" fields); others get "required".
    optional: bool = False
    # The input is used only while another input holds one of these values, e.g. the model's
    # dimensions only for a custom model (a preset supplies them otherwise). The form greys it
    # out the rest of the time, so `normalize` never reports an error on it then: a value it
    # refuses gives way to the default, silently (a reader cannot fix a field they cannot edit).
    only_when: tuple[str, tuple[str, ...]] | None = None
    # For a field whose 0 means "not given" (the calculator's own value): a value other than 0 must be at
    # least this. A share of 1e-12 or a price of 1e-300 turned one answer into seconds of work, or an
    # overflow, where no reader means it; they are refused as out of range (floor to max).
    floor: float | None = None
    # For an optional number field whose empty value means "use someone else's figure" (a catalog's price):
    # that figure, shown beside the field where its group is laid out as a table (`TableGroup`). None: the
    # field has no such figure (the table says so in the group's own words).
    reference: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown kind {self.kind!r}")
        if self.default is None and not (self.optional and self.kind in ("int", "float")):
            raise ValueError(f"{self.name}: only an optional number field may default to empty (None)")
        if self.floor is not None and not (self.min == 0 and self.floor > 0):
            raise ValueError(f"{self.name}: a floor is for a field whose minimum is 0 (0: not given)")

    def describe(self) -> dict[str, Any]:
        """JSON-able description used by the form renderer and the docs."""
        return {
            "name": self.name,
            "kind": self.kind,
            "default": default_of(self),
            "label": self.label,
            "help": self.help,
            "unit": self.unit,
            "min": self.min,
            "max": self.max,
            "step": self.step,
            "group": self.group,
            "group_params": dict(self.group_params),
            "advanced": self.advanced,
            "optional": self.optional,
            "floor": self.floor,
            "reference": self.reference,
            "only_when": ({"field": self.only_when[0], "values": list(self.only_when[1])} if self.only_when else None),
            "choices": [{"value": c.value, "label": c.label} for c in self.choices],
        }


_ASCII_SPACE = " \t\n\r\f\v"


def _ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def number_from_text(text: str) -> int | float | None:
    """The number a form field or a URL query value spells, or None: the one place that decides
    what a number looks like once it reaches the calculators. The page reads the reader's own typing
    first (calculator-numbers.js `delocalize`: the locale's decimal and group signs, full-width and
    Arabic-Indic digits), so what arrives here, like the address, is ASCII.

    ASCII digits with an optional sign, decimal point and exponent: `8`, `+8`, `-0.5`, `.5`, `1e3`,
    `2.5E-4`; ASCII spaces around it are dropped (the form then shows the number as read: `+8` and
    ` 8 ` become 8). Refused, though Python's int() and float() take them: underscores (`1_6`),
    digits of other scripts in an address (`١٢`, `８`: the page sends them as ASCII), any other space
    (a no-break space may be a locale's digit group separator), nan, inf and numbers beyond a double
    (`1e309`). Only str methods, no regular expression: the value comes from an address anyone can
    write. An int when there is neither a point nor an exponent."""
    text = text.strip(_ASCII_SPACE)
    unsigned = text[1:] if text[:1] in ("+", "-") else text
    mantissa, e, exponent = unsigned.replace("E", "e").partition("e")
    whole, point, fraction = mantissa.partition(".")
    if e:
        exponent = exponent[1:] if exponent[:1] in ("+", "-") else exponent
        if not _ascii_digits(exponent):
            return None
    if not (whole or fraction) or any(part and not _ascii_digits(part) for part in (whole, fraction)):
        return None
    if not point and not e:
        # A double's range ends at 309 digits; int() would also spend quadratic time past thousands.
        # Leading zeros count for nothing: the page shows "000…08" as 8, so 8 it is.
        whole = whole.lstrip("0") or "0"
        return int(("-" if text.startswith("-") else "") + whole) if len(whole) <= 308 else None
    value = float(text)
    return value if math.isfinite(value) else None


# (value, None) or (None, field error): what each kind's coercion returns.
Coerced = tuple[object, dict[str, Any] | None]


def _number(inp: Input, raw: object) -> Coerced:
    """Return (value, error) for an int or float input."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return None, error(inp.name, "not_a_number")
    value = number_from_text(raw) if isinstance(raw, str) else raw
    if value is None:
        return None, error(inp.name, "not_a_number")
    if isinstance(value, float) and not math.isfinite(value):
        return None, error(inp.name, "not_a_number")
    if inp.kind == "int":
        if isinstance(value, float):
            if not value.is_integer():
                return None, error(inp.name, "not_an_integer")
            value = int(value)
    else:
        value = float(value)
    if (inp.min is not None and value < inp.min) or (inp.max is not None and value > inp.max):
        return None, error(inp.name, "out_of_range", min=inp.min, max=inp.max)
    if inp.floor is not None and 0 < value < inp.floor:
        return None, error(inp.name, "out_of_range", min=inp.floor, max=inp.max)
    return value, None


def _bool(inp: Input, raw: object) -> Coerced:
    if isinstance(raw, bool):
        return raw, None
    if isinstance(raw, int) and raw in (0, 1):
        return bool(raw), None
    if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
        return raw.strip().lower() in _TRUE, None
    return None, error(inp.name, "not_a_boolean")


def _choice_values(inp: Input) -> list[str]:
    return [c.value for c in inp.choices]


def _choice(inp: Input, raw: object) -> Coerced:
    if isinstance(raw, str) and raw.strip() in _choice_values(inp):
        return raw.strip(), None
    return None, error(inp.name, "unknown_choice", choices=_choice_values(inp))


def _multichoice(inp: Input, raw: object) -> Coerced:
    items: Sequence[object]
    if isinstance(raw, str):
        items = raw.split(",")
    elif isinstance(raw, (list, tuple)):
        items = raw
    else:
        return None, error(inp.name, "unknown_choice", choices=_choice_values(inp))
    allowed = _choice_values(inp)
    picked: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            return None, error(inp.name, "unknown_choice", choices=allowed)
        item = item.strip()
        if not item:
            continue
        if item not in allowed:
            return None, error(inp.name, "unknown_choice", choices=allowed)
        picked.add(item)
    return [v for v in allowed if v in picked], None  # declared order, no duplicates


_COERCE: dict[str, Callable[[Input, object], Coerced]] = {
    "int": _number,
    "float": _number,
    "bool": _bool,
    "choice": _choice,
    "multichoice": _multichoice,
}


def coerce(inp: Input, raw: object) -> Coerced:
    """Coerce one raw value; returns (value, error-or-None)."""
    if raw is None or (isinstance(raw, str) and not raw.strip() and inp.kind != "multichoice"):
        if inp.optional or raw is None:
            return default_of(inp), None
        return None, error(inp.name, "required")
    return _COERCE[inp.kind](inp, raw)


def default_of(inp: Input) -> object:
    """The declared default; a multichoice's as a fresh list (its declaration holds a list or tuple)."""
    if inp.kind == "multichoice" and isinstance(inp.default, (list, tuple)):
        return list(inp.default)
    return inp.default


def active(inp: Input, values: dict[str, Any], by_name: dict[str, Input]) -> bool:
    """Whether `inp` applies under `values`; a controller that failed validation counts as its default."""
    if inp.only_when is None:
        return True
    field, allowed = inp.only_when
    controller = values[field] if field in values else default_of(by_name[field])
    return controller in allowed


def normalize(inputs_decl: Sequence[Input], raw: object) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Validate a raw inputs mapping against declarations: (values, errors).

    `values` holds every input that passed (defaults filled), even when others failed."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return {}, [error("inputs", "not_an_object")]
    by_name = {inp.name: inp for inp in inputs_decl}
    errors = [error(str(key), "unknown_field") for key in raw if key not in by_name]
    values: dict[str, Any] = {}
    refused: dict[str, dict[str, Any]] = {}
    for inp in inputs_decl:
        value, err = coerce(inp, raw[inp.name]) if inp.name in raw else (default_of(inp), None)
        if err:
            refused[inp.name] = err
        else:
            values[inp.name] = value
    for inp in inputs_decl:  # in a second pass: a controller may be declared after what it controls
        if inp.name in refused:
            if active(inp, values, by_name):
                errors.append(refused[inp.name])
            else:
                values[inp.name] = default_of(inp)
    return {inp.name: values[inp.name] for inp in inputs_decl if inp.name in values}, errors
