"""This guide's own units, declared with the framework (`guidekit.calc.register_unit`) when the package is
imported, before any calculator that uses them: money, reservation plans, tokens and hardware rates."""

from __future__ import annotations

from typing import Any

from guidekit.calc import Unit, register_unit
from guidekit.l10n import N_, NN_, Localizer


def _plan(terms: list[list[Any]], loc: Localizer) -> str:
    """Each term as "2 × 1 day", joined by plus signs. A single term is its label alone: "1 × 1 day"
    says it twice, and Arabic's «1 × يوم واحد» reads "1 × one day"."""
    t = loc.t

    def part(count: float, label: str, *by_the_hour: str) -> str:
        if by_the_hour:  # hours billed by the hour: "12.5 hours on demand"
            return t(label, hours=loc.fmt.unit("hour", count))
        if count == 1:
            return t(label)
        return t(N_("{count} × {term}"), count=loc.fmt.number(count, max_frac=0), term=t(label))

    return " + ".join(part(*entry) for entry in terms) or "—"


def _tokens(value: Any, loc: Localizer) -> str:
    return loc.t(
        NN_("{count} token", "{count} tokens"), n=loc.fmt.plain(value, 0), count=loc.fmt.number(value, max_frac=0)
    )


for code, unit in {
    "plan": Unit(format=_plan),  # a reservation plan: [[count, term label msgid], ...] (see cost.plan_text)
    "usd": Unit("US$", format=lambda v, loc: loc.fmt.money(v)),
    # TRANSLATORS: the unit beside an hourly price field: US dollars per hour (the currency stays "US$").
    "usd_per_hour": Unit(N_("US$/h"), format=lambda v, loc: loc.t(N_("{amount}/h"), amount=loc.fmt.money(v))),
    "tokens": Unit(N_("tokens"), " tokens", format=_tokens),
    "tokens_per_s": Unit(
        N_("tokens/s"), " tokens/s", format=lambda v, loc: loc.t(N_("{count} tokens/s"), count=loc.fmt.significant(v))
    ),
    "tflops": Unit(suffix=" TFLOPS", format=lambda v, loc: loc.fmt.significant(v) + " TFLOPS"),
    "gb_per_s": Unit(suffix=" GB/s", format=lambda v, loc: loc.fmt.significant(v) + " GB/s"),
}.items():
    register_unit(code, unit)
