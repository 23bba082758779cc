"""One typed figure (value + unit code from the calculators' display contract) to localized text."""

from __future__ import annotations

from calculators import N_

from ._numbers import NumberFormat
from ._text import Translator

GB = 1e9  # the calculators report bytes; the page shows decimal gigabytes (10^9), as vendors do


def figure(value, unit: str, fmt: NumberFormat, t: Translator) -> str:
    """Plain text for a value; the caller escapes it."""
    if value is None:
        return "—"
    if unit == "text":
        return t(value)
    if unit == "raw":
        return str(value)
    if unit == "plan":  # a reservation plan: [[count, term label msgid], ...]
        return _plan(value, fmt, t)
    if unit == "bool":
        return t(N_("Yes")) if value else t(N_("No"))
    if unit == "bytes":
        return fmt.unit("gb", value / GB)
    if unit == "gb":
        return fmt.unit("gb", value)
    if unit == "percent":
        return fmt.percent_of(value)
    if unit == "usd":
        return fmt.money(value)
    if unit == "usd_per_hour":
        return t(N_("{amount}/h"), amount=fmt.money(value))
    if unit == "hours":
        return fmt.unit("hour", value)
    if unit == "seconds":
        return fmt.unit("second", value) if "second" in fmt.units else t(N_("{value} s"), value=fmt.significant(value))
    if unit == "days":
        return fmt.unit("day", value)
    if unit == "count":
        return fmt.number(value, max_frac=0)
    if unit == "tokens":
        return t(N_("{count} tokens"), count=fmt.number(value, max_frac=0))
    if unit == "tokens_per_s":
        return t(N_("{count} tokens/s"), count=fmt.significant(value))
    if unit == "tflops":
        return fmt.significant(value) + " TFLOPS"
    if unit == "gb_per_s":
        return fmt.significant(value) + " GB/s"
    return fmt.significant(value)  # "number" and anything unlabelled


def _plan(terms: list, fmt: NumberFormat, t: Translator) -> str:
    """Each term as "2 × 1 day", joined by plus signs."""
    parts = [t(N_("{count} × {term}"), count=fmt.number(count, max_frac=0), term=t(label)) for count, label in terms]
    return " + ".join(parts) or "—"
