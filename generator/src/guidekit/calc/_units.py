"""The units a value may carry (on an input, a display block or a prose figure), each in one place: how it is
named beside a form input, written after a number in the command line's English, and formatted in the
reader's locale. The framework declares the common ones; a guide adds its own with `register_unit`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from guidekit.l10n import N_, Localizer

GB = 1e9  # the calculators report bytes; the page shows decimal gigabytes (10^9), as vendors do


def _significant(value: Any, loc: Localizer) -> str:
    return loc.fmt.significant(value)


@dataclass(frozen=True)
class Unit:
    label: str = ""  # shown beside a form input in this unit (a msgid, or a symbol; "" shows nothing)
    suffix: str = ""  # after a number in the command line's English text
    # The value as the reader's locale writes it (plain text: the renderer escapes and isolates it).
    format: Callable[[Any, Localizer], str] = field(default=_significant, kw_only=True)


def _seconds(value: Any, loc: Localizer) -> str:
    fmt = loc.fmt
    return fmt.unit("second", value) if "second" in fmt.units else loc.t(N_("{value} s"), value=fmt.significant(value))


UNITS: dict[str, Unit] = {
    "number": Unit(),
    "count": Unit(format=lambda v, loc: loc.fmt.number(v, max_frac=0)),
    "text": Unit(format=lambda v, loc: loc.t(v)),
    "raw": Unit(format=lambda v, loc: str(v)),
    "bool": Unit(format=lambda v, loc: loc.t(N_("Yes")) if v else loc.t(N_("No"))),
    "bytes": Unit(suffix=" GB", format=lambda v, loc: loc.fmt.unit("gb", v / GB)),  # shown as decimal gigabytes
    "gb": Unit("GB", " GB", format=lambda v, loc: loc.fmt.unit("gb", v)),
    "tb": Unit("TB", " TB", format=lambda v, loc: loc.fmt.significant(v) + " TB"),
    "percent": Unit(N_("share, {min}–{max}"), format=lambda v, loc: loc.fmt.percent_of(v)),  # the input's own range
    "hours": Unit(N_("hours"), " h", format=lambda v, loc: loc.fmt.unit("hour", v)),
    "seconds": Unit(N_("seconds"), format=_seconds),
    "days": Unit(suffix=" d", format=lambda v, loc: loc.fmt.unit("day", v)),
}


def register_unit(code: str, unit: Unit) -> None:
    """Declare a unit of a guide's own (before the calculators that use it are registered); a code already
    declared otherwise is refused."""
    if UNITS.get(code, unit) != unit:
        raise ValueError(f"unit {code!r} is already declared otherwise")
    UNITS[code] = unit
