"""The reservation planner and the prices it adds up: the cheapest multiset of a catalog's terms that
covers the hours a job needs, with on-demand (or spot) hours as a top-up billed per increment, and the
price of each term, option and top-up for a GPU and card count.

Float sums use math.fsum, as in ``_cost_model``: the browser's Pyodide must give the very same figures
as the build's CPython.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import reduce
from typing import Any, NamedTuple

# -- the reservation planner -----------------------------------------------------------------------


def cheapest_plan(needed_hours: float, items: list[tuple[str, int, float]]) -> dict[str, Any]:
    """The cheapest multiset of terms whose hours cover `needed_hours`.

    `items` are (term id, hours, price of one such term). Ties go to fewer hours, then fewer terms.
    An unbounded min-cost cover solved exactly by dynamic programming over whole multiples of the
    terms' common divisor. Long jobs first take copies of the cheapest term per hour, B: among
    any h_B/g other terms some subset sums to a multiple of h_B (prefix sums modulo h_B), and
    swapping it for copies of B costs no more, so an optimal plan needs fewer than h_B/g others.
    The same argument on the copies of one term bounds each count (see `_Cover`).
    """
    cover = _cover(tuple(items))
    # Whole units; a rounding residue (24.000000001 h) does not buy a second term, any real need buys one.
    need = max(int(needed_hours > 0), _whole_units(needed_hours, cover.unit))
    # The plan is the same for every need in these units: most hours an answer plans were planned by
    # the answer before (a card count's hours move less than a unit when the reader edits the rental).
    plan = cover.plans.get(need)
    if plan is None:
        if len(cover.plans) >= 256:
            cover.plans.clear()
        plan = cover.plans[need] = _plan(cover, need, items)
    return plan


def _plan(cover: _Cover, need: int, items: list[tuple[str, int, float]]) -> dict[str, Any]:
    """The cheapest plan of `need` units (see `cheapest_plan`). Kept and shared: never changed after."""
    forced = max(0, -(-(need - cover.bound) // cover.sizes[cover.best]))  # integer ceil division: exact
    rest = need - forced * cover.sizes[cover.best]
    table = cover.table_upto(rest)
    counts = [0] * len(items)
    counts[cover.best] += forced
    u = rest
    while u > 0:
        i = table[u][3]
        counts[i] += 1
        u = max(0, u - cover.sizes[i])
    terms = [[items[i][0], c] for i, c in enumerate(counts) if c]  # JSON-able: lists, not tuples
    hours = sum(c * items[i][1] for i, c in enumerate(counts))
    return {"terms": terms, "hours": hours, "cost": math.fsum(c * items[i][2] for i, c in enumerate(counts))}


HOURLY = "hourly"  # the plan entry of on-demand hours: [HOURLY, hours billed]
SPOT = "spot"  # the plan entry of spot (preemptible) hours: [SPOT, hours billed]
# Where on demand is cheaper per hour than every term, past this many units (24 h each with the catalog's
# terms: 480,000 hours) a mixed plan first takes copies of the cheapest term per hour; below it, every split
# of terms and hours is tried.
MIXED_UNITS = 20000
# Billing increments a price may have, as increments per hour: every started hour, minute or second.
INCREMENTS = {"hour": 1, "minute": 60, "second": 3600}


class Hourly(NamedTuple):
    """Billing by the hour (on demand, or spot): the cards' rate plus options billed by day, pro rata;
    options billed by term once per started period; time billed in increments (`per_hour` per hour)."""

    rate: float  # US$ per hour of the whole rental
    per_period: float  # US$ per started period
    period: int  # hours of a period (the shortest term)
    per_hour: int = 1  # billing increments per hour: 1 (started hours), 60 (minutes), 3600 (seconds)

    def increments(self, hours: float) -> int:
        """The started increments billed for `hours` (a rounding residue of 1e-9 h bills none)."""
        return math.ceil(hours * self.per_hour - 1e-9) if hours > 0 else 0


def topup_price(increments: int, hourly: Hourly) -> float:
    """`increments` billed increments of `hourly` (hours, minutes or seconds): the rate pro rata, and the
    flat fees once per started period."""
    if increments <= 0:
        return 0.0
    return increments / hourly.per_hour * hourly.rate + hourly.per_period * -(
        -increments // (hourly.period * hourly.per_hour)
    )


def hours_plan(entry: str, hours: float, hourly: Hourly) -> dict[str, Any]:
    """Billed hours alone (`entry` is HOURLY or SPOT): the increments that cover `hours`."""
    billed = hourly.increments(hours)
    return {
        "terms": [[entry, billed / hourly.per_hour]],
        "hours": billed / hourly.per_hour,
        "cost": topup_price(billed, hourly),
    }


def cheapest_mixed(needed_hours: float, items: list[tuple[str, int, float]], hourly: Hourly) -> dict[str, Any]:
    """The cheapest plan of terms plus on-demand hours as a top-up (either may be empty) covering `needed_hours`.

    Exact: for every u, the cheapest cover of at least u units is the cheapest terms with at least that
    many hours, and the top-up pays for the increments they leave; any mixed plan whose terms hold u
    units costs at least that. The pure-term plan (`cheapest_plan`) and pure hourly are among the
    candidates. Ties go to fewer hours, then fewer entries."""
    cover = _cover(tuple(items))
    m = hourly.per_hour
    whole = hourly.increments(needed_hours)  # the top-up bills started increments
    key = (HOURLY, whole, hourly)
    if key in cover.plans:
        return cover.plans[key]
    pure = cheapest_plan(needed_hours, items)
    # (cost, hours, entries, the plan or the (copies of B, cover units, top-up increments) that make it)
    candidates: list[tuple[float, float, int, dict[str, Any] | tuple[int, int, int]]]
    candidates = [(round(pure["cost"], 6), pure["hours"], len(pure["terms"]), pure)]
    need = _whole_units(needed_hours, cover.unit) if needed_hours > 0 else 0
    b = cover.best
    if whole > 0 and all(topup_price(h * m, hourly) <= price for _, h, price in items):
        # On demand costs no more than any term for the term's hours, options included: topping up h_i more
        # hours adds at most that, so each term of a mixed plan swaps for on-demand hours at no loss, and
        # pure on demand (the fewest hours, one entry) is the cheapest. Without this, a huge job priced below
        # every term walked MIXED_UNITS splits per card count (2 s an answer).
        candidates.append((round(topup_price(whole, hourly), 6), whole / m, 1, (0, 0, whole)))
        need, forced = 0, 0  # no split left to try
    elif hourly.rate * items[b][1] >= cover.prices[b]:
        # On demand costs at least B (the cheapest term per hour) per B's hours: h_B top-up hours swap for a copy
        # of B at no loss, so some optimal plan tops up less than h_B, and its terms (fewer than `bound` units
        # besides copies of B, see `cheapest_plan`) hold at least this many copies of B.
        forced = max(0, (need - cover.sizes[b] - 1 - cover.bound) // cover.sizes[b])
    else:
        forced = max(0, -(-(need - MIXED_UNITS) // cover.sizes[b]))
    forced_cost = forced * cover.prices[cover.best]
    base = forced * cover.sizes[cover.best]
    table = cover.table_upto(need - base)
    for u in range(0, need - base):
        units = base + table[u][1]
        hours = units * cover.unit
        if hours >= needed_hours - 1e-9:
            continue  # no top-up: a pure-term plan, already a candidate
        extra = whole - hours * m
        cost = forced_cost + table[u][0] + topup_price(extra, hourly)
        candidates.append((round(cost, 6), hours + extra / m, table[u][2] + 1 + forced, (forced, u, extra)))
    best = min(candidates, key=lambda c: c[:3])
    plan = best[3]
    if not isinstance(plan, dict):  # rebuild the terms of the winning split
        forced, u, extra = plan
        counts = [0] * len(items)
        counts[cover.best] += forced
        while u > 0:
            i = table[u][3]
            counts[i] += 1
            u = max(0, u - cover.sizes[i])
        terms = [[items[i][0], c] for i, c in enumerate(counts) if c]
        plan = {
            "terms": terms + [[HOURLY, extra / m]],
            "hours": sum(c * items[i][1] for i, c in enumerate(counts)) + extra / m,
            "cost": math.fsum([*(c * items[i][2] for i, c in enumerate(counts)), topup_price(extra, hourly)]),
        }
    if len(cover.plans) >= 256:
        cover.plans.clear()
    cover.plans[key] = plan
    return plan


def _whole_units(hours: float, unit: int) -> int:
    """ceil(hours / unit) less a 1e-9 residue; exact past 2**52 units, where the float quotient can
    round below the need (Fraction is 100x slower, so only there)."""
    if hours / unit < 2**52:
        return math.ceil(hours / unit - 1e-9)
    from fractions import Fraction  # here, not at the top: only this rare case needs it in the browser

    return math.ceil(Fraction(hours) / unit - Fraction(1, 10**9))


class _Cover:
    """What a plan over one set of terms and prices needs whatever the hours: the unit, the cheapest
    term per hour B and the bound past which only copies of B are added, and the cover table."""

    def __init__(self, items: tuple[tuple[str, int, float], ...]) -> None:
        self.unit = reduce(math.gcd, (h for _, h, _ in items))
        self.sizes = sizes = [h // self.unit for _, h, _ in items]
        self.prices = [price for _, _, price in items]
        self.best = best = min(range(len(items)), key=lambda i: (items[i][2] / items[i][1], -items[i][1]))
        others = [s for i, s in enumerate(sizes) if i != best]
        # Fewer than s_B others in all, and fewer than s_B / gcd(s_i, s_B) copies of each: k copies of
        # term i make a multiple of h_B once k reaches that, and can be swapped the same way.
        self.bound = sizes[best] + min(
            sizes[best] * (max(others, default=0) + 1),
            sum((sizes[best] // math.gcd(s, sizes[best]) - 1) * s for s in others),
        )
        self.table = [(0.0, 0, 0, -1)]
        # need in units -> its plan; (HOURLY, started hours, hourly terms) -> a mixed plan (`cheapest_mixed`)
        self.plans: dict[int | tuple[str, int, Hourly], dict[str, Any]] = {}

    def table_upto(self, upto: int) -> list[tuple[float, int, int, int]]:
        """table[u] = (cost, units, count, item) of the cheapest cover of at least u units, grown on demand."""
        table, sizes, prices = self.table, self.sizes, self.prices
        for u in range(len(table), upto + 1):
            table.append(
                min(
                    (
                        round(table[max(0, u - s)][0] + prices[i], 6),
                        table[max(0, u - s)][1] + s,
                        table[max(0, u - s)][2] + 1,
                        i,
                    )
                    for i, s in enumerate(sizes)
                )
            )
        return table


# the same terms and prices are planned for several hour counts
_COVERS: dict[tuple[tuple[str, int, float], ...], _Cover] = {}


def _cover(items: tuple[tuple[str, int, float], ...]) -> _Cover:
    if items not in _COVERS:
        if len(_COVERS) > 256:
            _COVERS.clear()
        _COVERS[items] = _Cover(items)
    return _COVERS[items]


# -- prices -----------------------------------------------------------------------------------------


def option_price(option: dict[str, Any], term: dict[str, Any], quantities: dict[str, float]) -> float:
    """Price of one option over one term: flat per term or per TB per day; per-TB options are per plan."""
    if option["per"] == "term":
        return float(option["usd"][term["id"]])
    if option["per"] == "tb_day":
        usd_per_tb_day: float = option["usd"]
        hours: float = term["hours"]
        return usd_per_tb_day * quantities[option["quantity"]] * hours / 24
    if option["per"] == "tb":
        return 0.0
    raise ValueError(f"unknown option pricing {option['per']!r}")  # a catalog error, caught by tests


class OptionPrices:
    """The options a plan carries, priced once per input set: each option over one copy of each term
    (the same for every GPU and card count), their sum per term, and those billed once per plan."""

    def __init__(self, options: list[dict[str, Any]], terms: dict[str, Any], quantities: dict[str, float]) -> None:
        self.options = options
        self.each = {(o["id"], tid): option_price(o, term, quantities) for o in options for tid, term in terms.items()}
        self.per_term = {tid: math.fsum(self.each[(o["id"], tid)] for o in options) for tid in terms}
        self.per_plan = {o["id"]: o["usd"] * quantities[o["quantity"]] for o in options if o["per"] == "tb"}
        self.once = math.fsum(self.per_plan.values())


def term_price(rate: float, cards: int, term: dict[str, Any], options: OptionPrices) -> float:
    """One term of a plan: cards x hours x price per card-hour + the options billed by term."""
    hours: float = term["hours"]
    return cards * hours * rate + options.per_term[term["id"]]


def plan_breakdown(
    plan: dict[str, Any], rate_of: Callable[[str], float], cards: int, terms: dict[str, Any], options: OptionPrices
) -> dict[str, Any]:
    """GPU time per term of the plan (and of its on-demand or spot hours, `rate_of(HOURLY)`, `rate_of(SPOT)`)
    and each option's share of the plan's price."""
    fixed = [(tid, count) for tid, count in plan["terms"] if tid not in BY_THE_HOUR]
    gpu = {tid: count * cards * terms[tid]["hours"] * rate_of(tid) for tid, count in fixed}
    opts = {
        o["id"]: math.fsum(count * options.each[(o["id"], tid)] for tid, count in fixed)
        for o in options.options
        if o["per"] != "tb"
    }
    for tid, hours in plan["terms"]:
        if tid in BY_THE_HOUR:
            gpu[tid], extra = topup_breakdown(
                hours, rate_of(tid), cards, min(terms.values(), key=lambda t: t["hours"]), options
            )
            opts = {k: v + extra.get(k, 0.0) for k, v in opts.items()}
    opts.update(options.per_plan)
    return {"gpu_usd": gpu, "options_usd": opts, "total_usd": math.fsum([*gpu.values(), *opts.values()])}


BY_THE_HOUR = (HOURLY, SPOT)  # plan entries in hours billed, not in terms


def hourly_terms(rate: float, cards: int, shortest: dict[str, Any], options: OptionPrices, per_hour: int = 1) -> Hourly:
    """Billing by the hour for `topup_price`: the cards at `rate`, options billed by day pro rata, flat
    fees once per started shortest term, time in `per_hour` increments per hour."""
    per_day = math.fsum(
        options.each[(o["id"], shortest["id"])] / shortest["hours"] for o in options.options if o["per"] == "tb_day"
    )
    per_period = math.fsum(options.each[(o["id"], shortest["id"])] for o in options.options if o["per"] == "term")
    return Hourly(cards * rate + per_day, per_period, shortest["hours"], per_hour)


def on_demand_price(hours: float, hourly: Hourly, options: OptionPrices) -> float:
    """Hourly billing alone: every started increment (at least one period's flat fees), plus per-TB options once."""
    billed = hourly.increments(hours)
    periods = max(1, -(-billed // (hourly.period * hourly.per_hour)))
    return math.fsum([billed / hourly.per_hour * hourly.rate, hourly.per_period * periods, *options.per_plan.values()])


def topup_breakdown(
    hours: float, rate: float, cards: int, shortest: dict[str, Any], options: OptionPrices
) -> tuple[float, dict[str, float]]:
    """Billed hours' GPU time and each option's share of them (as `topup_price` bills them: `hours` is
    a whole number of increments)."""
    periods = math.ceil(hours / shortest["hours"] - 1e-9) if hours > 0 else 0
    opts = {
        o["id"]: options.each[(o["id"], shortest["id"])]
        * (hours / shortest["hours"] if o["per"] == "tb_day" else periods)
        for o in options.options
        if o["per"] != "tb"
    }
    return cards * hours * rate, opts
