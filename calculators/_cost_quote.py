"""The cost calculator's quoting engine: for one set of inputs, each GPU and card count's throughput
range, hours with interruptions, outputs trained side by side, booking and cheapest plan (terms and
on-demand hours, copies of a pinned term, or spot hours), its price per successful output. The answer
that ranks the quotes is ``_cost_rank``'s.

The formulas it applies are ``_cost_model``'s (roofline, interruptions) and ``_cost_plans``' (the
reservation planner, prices); the inputs it reads are declared in ``_cost_inputs``, the memory side in
``_cost_budget``. What only some inputs move (the memory budget, each configuration's throughput and
hours, the term prices) is kept across answers, keyed by those inputs (``_kept``); ``forget`` drops it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from guidekit.calc import kept, key_of

from . import _cost_plans, _data, _memory_model, throughput
from ._cost_budget import _BUDGETS, _budget, _parallelism
from ._cost_inputs import BEST, CATALOG, EXPECTED, HIGH, INPUTS, LOW, MARGIN, ON_SPOT, QUANTITIES
from ._cost_model import NODE_CARDS, card_step, modelled_scaling, on_stack, run_hours
from ._cost_own_inputs import MEASURED_FIELDS, PRICE_FIELDS, catalog_rate
from ._cost_plans import (
    HOURLY,
    INCREMENTS,
    SPOT,
    Hourly,
    OptionPrices,
    cheapest_mixed,
    cheapest_plan,
    hourly_terms,
    hours_plan,
    on_demand_price,
    plan_breakdown,
    term_price,
    topup_price,
)
from ._memory_run import SHARDED_MODES

TABLE_CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64)  # the counts priced when the reader allows any count
BOOKED = "booked"  # the quote's own end: the expected speed, the hours the booking rule covers
_PRICING = _data.catalog()["pricing"]
# (throughput, hours per run, hours needed for every output) of a GPU and card count at one end (`needed`)
Need = tuple[dict[str, Any], dict[str, Any], float]


# What sets only the price of the hours, not the hours: while only these change (the reader trying run
# counts, terms and options), each GPU and card count keeps its throughput and hours per run.
_PRICE_KEYS = (
    "runs",
    "parallel_runs",
    "billing",
    "deadline_hours",
    "term",
    "cards",
    "options",
    "booking",
    "booking_margin",
    "any_count",
    *QUANTITIES,
    *PRICE_FIELDS.values(),
)
_SPEED_KEYS = tuple(i.name for i in INPUTS if i.name not in _PRICE_KEYS)
# speed inputs -> {(GPU id, cards, end, on spot): (throughput, hours per run)}
_SPEEDS: dict[tuple[Any, ...], dict[tuple[str, int, str, bool], tuple[dict[str, Any], dict[str, Any]]]] = {}
# And the reverse: the price of each term for a GPU and card count depends on the options alone.
_OPTION_KEYS = ("options", *QUANTITIES, *PRICE_FIELDS.values())  # the term prices are kept with them
# option inputs -> (OptionPrices, {(GPU id, cards): its term prices},
#                   {(GPU id, cards, *term ids): their bound's figures})
_PRICES: dict[
    tuple[Any, ...],
    tuple[
        OptionPrices,
        dict[tuple[str, int], dict[str, tuple[str, int, float]]],
        dict[tuple[str | int, ...], tuple[float, int, float]],
    ],
] = {}


def forget() -> None:
    """Drop everything kept across answers, this engine's and the memory model's it reads: the next
    answer is computed from nothing. For a caller that compares an answer with one from nothing (the
    tests), or that wants the memory back; an answer is the same either way."""
    for store in (_BUDGETS, _SPEEDS, _PRICES, _cost_plans._COVERS):
        store.clear()
    _memory_model.forget()


def _tokens_per_run(values: dict[str, Any]) -> float:
    if values["workload"] == "steps":
        return float(values["steps"] * values["tokens_per_step"])
    tokens: float = values["tokens"] * values["epochs"]
    return tokens


class _Quoter:
    """Everything shared by the quotes of one input set."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values, self.budget = values, _budget(values)
        self.needs: dict[tuple[str, int, int, str], Need] = {}  # (GPU id, cards, streams, end)
        self.streams_of: dict[tuple[str, int], int] = {}
        self.offers: dict[str, bool] = {}  # GPU id -> whether the reader's prices leave it a plan
        self.rates: dict[tuple[str, str], float | None] = {}  # (GPU id, term id) -> `price_of`
        self.chosen: dict[tuple[str, int, str], tuple[dict[str, Any], dict[str, Any], float, dict[str, Any]]] = {}
        self.terms = {t["id"]: t for t in _data.terms()}
        self.shortest = min(self.terms.values(), key=lambda t: t["hours"])
        self.term_ids = list(self.terms) if values["term"] == BEST else [values["term"]]  # what a plan may combine
        self.options, self.prices, self.bounds = kept(
            _PRICES,
            key_of(values, _OPTION_KEYS),
            lambda: (
                OptionPrices(
                    [o for o in _PRICING["options"] if o["id"] in values["options"]],
                    self.terms,
                    {k: values[k] for k in QUANTITIES},
                ),
                {},
                {},
            ),
        )
        self.speeds = kept(_SPEEDS, key_of(values, _SPEED_KEYS), dict)
        self.tokens_per_run = _tokens_per_run(values)
        self.overhead = math.fsum(
            values[k] for k in ("load_hours", "validation_hours", "checkpoint_hours", "export_hours")
        )

    def measured(self, gpu: dict[str, Any]) -> float:
        """Tokens/s per card the reader measured on this GPU (its own field, else the chosen GPU's), or 0."""
        v = self.values
        measured: float = v[MEASURED_FIELDS[gpu["id"]]] or (v["throughput_per_gpu"] if gpu["id"] == v["gpu"] else 0.0)
        return measured

    def throughput(self, gpu: dict[str, Any], cards: int, end: str) -> dict[str, Any]:
        """Throughput at one end of the card's range (`LOW`, `EXPECTED`, `HIGH`); its whole range beside.
        A card without a measurement runs at its calibrated share of peak (or the reader's), and its
        range is the calibration's; a measured card's range is its measurement."""
        v = self.values
        work = self.budget.work(v, cards)
        cal = throughput.calibration()
        band = cal.range_of(gpu["id"], v["stack"])
        share = v["utilization"] or cal.share(gpu["id"])
        fp8 = v["precision"] == "fp8" and "fp8_dense_tflops" in gpu  # a card without FP8 trains in bf16
        step = card_step(work, gpu, share, v["bandwidth_share"], cal.dequant_share, fp8, cal.fp8_speedup)
        # The cards' shares are those of tuned frameworks; another stack runs the same step at its fitted
        # efficiency and overhead. A share the reader entered is already what their software reaches.
        stack = cal.stacks[v["stack"]] if not v["utilization"] else throughput.REFERENCE
        step_s = on_stack(step["step_s"], work.micro_batches, stack)
        measured = self.measured(gpu)
        alone = {  # one card's rate at each end, before any scaling
            end_: measured or work.tokens / step_s * factor
            for end_, factor in ((LOW, band[0]), (EXPECTED, 1.0), (HIGH, band[1]))
        }

        def scaling(n: int, e: str) -> float:
            """Efficiency on n cards at end e: the reader's measured one on the chosen GPU, else modelled,
            the low end with no collective hidden under compute."""
            if n > 1 and gpu["id"] == v["gpu"] and v["scaling_efficiency"] > 0:
                inside: float = v["scaling_efficiency"]
            else:
                inside = modelled_scaling(work, work.tokens / alone[e], gpu, n, v["bandwidth_share"], e != LOW)
            across: float = v["internode_efficiency"] if n > NODE_CARDS else 1.0
            return inside * across

        # A measurement taken on several cards already holds their scaling loss: it is scaled only by the
        # difference between its card count and this one, not again.
        taken_on = v["measurement_cards"] if measured else 1
        efficiency = {e: scaling(cards, e) / scaling(taken_on, e) for e in alone}
        cluster = {e: rate * cards * efficiency[e] for e, rate in alone.items()}
        return {
            "tokens_per_s_per_gpu": cluster[end] / cards,  # each card's share of the cluster's rate
            "tokens_per_s_alone": alone[end],
            "fp8": fp8,
            "measured": bool(measured),
            "matmul_share": share,
            "scaling_efficiency": efficiency[end],
            "micro_batches": work.micro_batches,
            "compute_share": step["compute_share"] * step["step_s"] / step_s,
            "tokens_per_s": cluster[end],
            "tokens_per_s_low": cluster[LOW],
            "tokens_per_s_high": cluster[HIGH],
        }

    def hours(self, tokens_per_s: float, cards: int, on_spot: bool) -> dict[str, Any]:
        """Hours of one output on `cards` cards; on spot, each preemption interrupts it like a failure."""
        v = self.values
        return run_hours(
            self.tokens_per_run / tokens_per_s / 3600,
            cards,
            v["failures_per_100h"] + (v["preemptions_per_100h"] if on_spot else 0.0),
            v["checkpoint_interval_hours"],
            v["checkpoint_write_s"] / 3600,
            v["restart_hours"] + v["restore_s"] / 3600,
            self.overhead,
        )

    def term_prices(self, gpu: dict[str, Any], cards: int) -> dict[str, tuple[str, int, float]]:
        """(term id, hours, price) of every term for one GPU and card count, whatever the hours needed."""
        key = (gpu["id"], cards)
        if key not in self.prices:  # kept across answers while the options and the reader's prices stay the same
            billed = billed_cards(gpu["id"], cards)
            self.prices[key] = {
                tid: (tid, term["hours"], term_price(self.held_rate(gpu["id"], tid), billed, term, self.options))
                for tid, term in self.terms.items()
                if self.rate(gpu["id"], tid) is not None
            }
        return self.prices[key]

    def rate(self, gpu_id: str, term_id: str) -> float | None:
        """`price_of` under this quoter's inputs, looked up once per GPU and term (every card count and end of
        the range asks again: in the browser's Python each call counts)."""
        key = (gpu_id, term_id)
        if key not in self.rates:
            self.rates[key] = price_of(self.values, gpu_id, term_id)
        return self.rates[key]

    def held_rate(self, gpu_id: str, term_id: str) -> float:
        """`rate` of a term a plan holds: a plan holds only offered terms (`term_prices`), and on-demand or
        spot hours only where there is such a price (`hourly`)."""
        rate = self.rate(gpu_id, term_id)
        assert rate is not None, (gpu_id, term_id)
        return rate

    def on_spot(self, gpu_id: str) -> bool:
        """Whether this GPU is rented on spot: the reader asked for spot, and it has a spot price."""
        return self.values["capacity"] == ON_SPOT and self.rate(gpu_id, SPOT) is not None

    def hourly(self, gpu: dict[str, Any], cards: int, entry: str = HOURLY) -> Hourly | None:
        """Billing by the hour (`entry`: on demand or spot) of this GPU and card count for `topup_price`,
        or None without such a price. Whole nodes bill all their cards; time is billed in increments."""
        rate = self.rate(gpu["id"], entry)
        if rate is None:
            return None
        billing = self.values["billing"]
        increment = _PRICING.get("billing_increment", {}).get(gpu["id"], "hour") if billing == CATALOG else billing
        return hourly_terms(rate, billed_cards(gpu["id"], cards), self.shortest, self.options, INCREMENTS[increment])

    def offered(self, gpu: dict[str, Any]) -> bool:
        """`offered` under this quoter's inputs and terms, once per GPU (every card count asks)."""
        if gpu["id"] not in self.offers:
            self.offers[gpu["id"]] = offered(self.values, gpu["id"], self.term_ids)
        return self.offers[gpu["id"]]

    def plan(self, gpu: dict[str, Any], cards: int, needed: float, term_ids: list[str]) -> dict[str, Any]:
        """The cheapest plan of these terms (those offered): with on-demand hours as a top-up (or alone) when
        every term may be combined, copies of the one term when the reader pinned it; spot hours alone on
        spot. The caller has checked that the GPU is `offered`."""
        spot = self.hourly(gpu, cards, SPOT) if self.on_spot(gpu["id"]) else None
        if spot is not None:
            plan = hours_plan(SPOT, needed, spot)
        else:
            prices = self.term_prices(gpu, cards)
            hourly = self.hourly(gpu, cards) if len(term_ids) == len(self.terms) else None
            items = [prices[tid] for tid in term_ids if tid in prices]
            if not items:
                assert hourly is not None, (gpu["id"], term_ids)
                plan = hours_plan(HOURLY, needed, hourly)
            elif hourly is None:
                plan = cheapest_plan(needed, items)
            else:
                plan = cheapest_mixed(needed, items, hourly)
        rate_of = lambda tid: self.held_rate(gpu["id"], tid)  # noqa: E731
        return {**plan, **plan_breakdown(plan, rate_of, billed_cards(gpu["id"], cards), self.terms, self.options)}

    def streams(self, gpu: dict[str, Any], cards: int) -> int:
        """How many outputs train side by side on these cards: groups of cards / k cards, each training one
        output at a time. The k that books the fewest hours (the plan's price never falls with more hours,
        so it is also the cheapest), fewer groups on a tie; 1 when the reader trains outputs one after another."""
        key = (gpu["id"], cards)
        if key not in self.streams_of:
            v = self.values
            ks = [1]
            # A measured peak holds for the card count it was measured on: a sharded run's does not say what
            # fewer cards would hold, so such a run is not split into groups.
            measured_sharded = v["memory_per_gpu_gb"] > 0 and _parallelism(v, cards) in SHARDED_MODES
            if v["parallel_runs"] and not measured_sharded:
                ks += [
                    k
                    for k in range(2, min(v["runs"], cards) + 1)
                    if cards % k == 0 and self.budget.fits(gpu, cards // k)
                ]
            self.streams_of[key] = min(ks, key=lambda k: (round(self.needed_by(gpu, cards, k, BOOKED)[2], 9), k))
        return self.streams_of[key]

    def needed(self, gpu: dict[str, Any], cards: int, end: str = EXPECTED) -> Need:
        """(throughput, hours per run, hours needed for every output) at one end of the throughput range, with
        the outputs trained side by side as `streams` says: the throughput is that of all the cards."""
        return self.needed_by(gpu, cards, self.streams(gpu, cards), end)

    def needed_by(self, gpu: dict[str, Any], cards: int, streams: int, end: str) -> Need:
        """`needed` with `streams` groups of cards / streams cards: each group trains ceil(runs / streams)
        outputs one after another, and the rental lasts as long as a group does."""
        key = (gpu["id"], cards, streams, end)
        if end == BOOKED and key not in self.needs:
            v = self.values
            speed, per_run, expected = self.needed_by(gpu, cards, streams, EXPECTED)
            bookings: dict[str, Callable[[], float]] = {
                LOW: lambda: self.needed_by(gpu, cards, streams, LOW)[2],
                EXPECTED: lambda: expected,
                MARGIN: lambda: expected * (1 + v["booking_margin"]),
            }
            booked = bookings[v["booking"]]()
            self.needs[key] = speed, per_run, max(booked, expected)  # a low end is never faster than expected
        if key not in self.needs:
            group = cards // streams
            spot = self.on_spot(gpu["id"])
            at = (gpu["id"], group, end, spot)
            if at not in self.speeds:
                speed = self.throughput(gpu, group, end)
                self.speeds[at] = speed, self.hours(speed["tokens_per_s"], group, spot)
            speed, per_run = self.speeds[at]
            rounds = -(-self.values["runs"] // streams)
            if streams > 1:  # the throughput of every group together
                speed = {
                    **speed,
                    **{k: speed[k] * streams for k in ("tokens_per_s", "tokens_per_s_low", "tokens_per_s_high")},
                }
            self.needs[key] = speed, per_run, rounds * per_run["total"]
        return self.needs[key]

    def chosen_plan(
        self, gpu: dict[str, Any], cards: int, end: str = BOOKED
    ) -> tuple[dict[str, Any], dict[str, Any], float, dict[str, Any]]:
        """(throughput, hours per run, hours needed, the plan the reader asked for: cheapest or pinned)."""
        key = (gpu["id"], cards, end)
        if key not in self.chosen:
            speed, per_run, needed = self.needed(gpu, cards, end)
            self.chosen[key] = speed, per_run, needed, self.plan(gpu, cards, needed, self.term_ids)
        return self.chosen[key]

    def finish_hours(self, gpu: dict[str, Any], cards: int) -> float:
        """Wall-clock hours from the start to the last output at the hours booked: the rental's length."""
        return self.needed(gpu, cards, BOOKED)[2]

    def ranked(self, gpu: dict[str, Any], cards: int) -> bool:
        """Whether a configuration may be ranked: it fits in memory and finishes by the deadline, if any."""
        deadline: float = self.values["deadline_hours"]
        return (
            self.budget.fits(gpu, cards)
            and self.offered(gpu)
            and (deadline <= 0 or self.finish_hours(gpu, cards) <= deadline * (1 + 1e-9))
        )

    def least_usd_per_output(self, gpu: dict[str, Any], cards: int) -> float:
        """A lower bound on `usd_per_output` without the plan search. A plan covers the hours needed
        with terms of at most the longest term's hours, so it pays for each hour at least the lowest
        price per hour of a term, and holds at least (hours / longest term) terms, each at least the
        lowest price of a term; plus the options billed once per plan. A hair under, so that
        rounding never lifts it above the true figure."""
        key = (gpu["id"], cards, *self.term_ids)
        if key not in self.bounds:  # kept with the term prices: the same while the options are
            prices = self.term_prices(gpu, cards)
            terms = [prices[tid] for tid in self.term_ids if tid in prices]  # none: on-demand hours alone
            self.bounds[key] = (
                min((price / hours for _, hours, price in terms), default=math.inf),
                max((hours for _, hours, _ in terms), default=1),
                min((price for _, _, price in terms), default=math.inf),
            )
        per_hour, longest, cheapest = self.bounds[key]
        needed = self.needed(gpu, cards, BOOKED)[2]
        hourly = self.hourly(gpu, cards) if len(self.term_ids) == len(self.terms) else None
        spot = self.hourly(gpu, cards, SPOT) if self.on_spot(gpu["id"]) else None
        if spot is not None:  # spot hours alone: each at least the rate
            floor = needed * spot.rate
        elif hourly is None:
            floor = max(needed * per_hour, math.ceil(needed / longest - 1e-9) * cheapest)
        else:  # on-demand hours may replace any term: each hour costs at least the cheaper of the two rates
            floor = needed * min(per_hour, hourly.rate)
        runs: int = self.values["runs"]
        return (floor + self.options.once) * (1 - 1e-9) / runs

    def usd_per_output(self, gpu: dict[str, Any], cards: int, end: str) -> float:
        """What the ranking compares: the chosen plan's price per output (a quote's `usd_per_output`)."""
        total: float = self.chosen_plan(gpu, cards, end)[3]["total_usd"]
        runs: int = self.values["runs"]
        return total / runs

    def quote(self, gpu: dict[str, Any], cards: int) -> dict[str, Any]:
        """One GPU and card count: throughput, hours, the booked plan (cheapest or pinned), the cheapest beside
        a pinned one, hourly billing alone, and what the booking does at the low end of the throughput range."""
        v = self.values
        speed, per_run, booked, chosen = self.chosen_plan(gpu, cards, BOOKED)
        needed = self.needed(gpu, cards, EXPECTED)[2]
        low = self.needed(gpu, cards, LOW)[2]
        spot = self.on_spot(gpu["id"])
        best = chosen if v["term"] == BEST or spot else self.plan(gpu, cards, booked, list(self.terms))
        streams = self.streams(gpu, cards)
        fit = int(chosen["hours"] // per_run["total"]) * streams if per_run["total"] > 0 else v["runs"]
        on_demand = self.hourly(gpu, cards)
        hourly = topup_low = None
        short = low - chosen["hours"]
        if on_demand is not None:
            hourly = on_demand_price(booked, on_demand, self.options)
        topup = self.hourly(gpu, cards, SPOT) if spot else on_demand  # a shortfall is bought by the hour
        if topup is not None:
            topup_low = topup_price(topup.increments(short), topup) if short > 1e-9 else 0.0
        mem = self.budget.memory_per_gpu(cards // streams)
        deadline = v["deadline_hours"]
        return {
            "gpu": gpu["id"],
            "name": gpu["name"],
            "short_name": gpu.get("short_name", gpu["name"]),
            "cards": cards,
            "billed_cards": billed_cards(gpu["id"], cards),
            "streams": streams,
            "cards_per_run": cards // streams,
            "rounds": -(-v["runs"] // streams),
            "one_after_another_hours": self.needed_by(gpu, cards, 1, BOOKED)[2],
            "on_spot": spot,
            "meets_deadline": deadline <= 0 or booked <= deadline * (1 + 1e-9),
            **speed,
            "run_hours": per_run,
            "needed_hours": needed,
            "booked_hours": booked,
            "low_end_hours": low,
            "spare_at_low_hours": -short,
            "topup_at_low_usd": topup_low,
            "plan": chosen["terms"],
            "plan_hours": chosen["hours"],
            "unused_hours": chosen["hours"] - needed,
            "total_usd": chosen["total_usd"],
            "gpu_usd": chosen["gpu_usd"],
            "options_usd": chosen["options_usd"],
            "outputs_fit": max(fit, v["runs"]),
            "successful_outputs": v["runs"],
            "usd_per_output": chosen["total_usd"] / v["runs"],
            "best_plan": best["terms"],
            "best_usd_per_output": best["total_usd"] / v["runs"],
            "usd_per_million_tokens": chosen["total_usd"] / (v["runs"] * self.tokens_per_run / 1e6),
            "hourly_usd": hourly,
            "hourly_usd_per_output": None if hourly is None else hourly / v["runs"],
            "memory_per_gpu_bytes": mem,
            "fits_memory": self.budget.fits(gpu, cards),
        }


def price_of(values: dict[str, Any], gpu_id: str, term_id: str) -> float | None:
    """Price per card-hour of one GPU for one term (`HOURLY`: on demand, `SPOT`): the reader's, else the
    catalog's; None where the term is not offered: the reader's 0, or an on-demand or spot price the
    catalog does not list (every term has a catalog price)."""
    own: float | None = values[PRICE_FIELDS[gpu_id, term_id]]
    if own is not None:
        return own if own > 0 else None
    return catalog_rate(gpu_id, term_id)


def offered(values: dict[str, Any], gpu_id: str, term_ids: list[str]) -> bool:
    """Whether a plan of these terms can rent this GPU at all: spot hours on spot, some term offered, or
    on-demand hours where every term may be combined. Only the reader's prices (0: not offered) leave a
    GPU without one: every term has a catalog price."""
    return (
        (values["capacity"] == ON_SPOT and price_of(values, gpu_id, SPOT) is not None)
        or any(price_of(values, gpu_id, tid) is not None for tid in term_ids)
        or (len(term_ids) == len(_PRICING["terms"]) and price_of(values, gpu_id, HOURLY) is not None)
    )


def card_counts(gpu_id: str, any_count: bool = False) -> tuple[int, ...]:
    """The card counts priced for one GPU: the catalog's shapes (each per-node count, then whole nodes of
    the largest; whole nodes only where the GPU is rented so), or `TABLE_CARDS` when the reader allows any
    count."""
    if any_count:
        return TABLE_CARDS
    shape = _PRICING["shapes"][gpu_id]
    node = shape["per_node"][-1]
    within = () if shape.get("whole_nodes") else tuple(shape["per_node"][:-1])
    return within + tuple(node * n for n in range(1, shape["max_nodes"] + 1))


def billed_cards(gpu_id: str, cards: int) -> int:
    """The cards a rental of `cards` pays for: a GPU rented only as whole nodes bills every card of the
    nodes it takes."""
    shape = _PRICING["shapes"][gpu_id]
    if not shape.get("whole_nodes"):
        return cards
    node: int = shape["per_node"][-1]
    return -(-cards // node) * node
