"""The cost calculator's quoting engine: for one set of inputs, each GPU and card count's throughput
range, hours with interruptions, booking and cheapest plan (or copies of a pinned term), its price per
successful output; then the ranking of the GPUs, whether it survives the throughput range, and the
nearest configuration that fits when the reader's does not.

The formulas it applies are ``_cost_model``'s (roofline, interruptions) and ``_cost_plans``' (the
reservation planner, prices); the inputs it reads are declared in ``_cost_inputs``; the calculator that shows its answer is
``cost``. What only some inputs move (the memory budget, each configuration's throughput and hours,
the term prices) is kept across answers, keyed by those inputs (``_kept``); ``forget`` drops it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from guidekit.calc import kept, key_of

from . import _cost_model, _cost_plans, _data, _memory_model, memory, throughput
from ._cost_inputs import (
    BEST,
    EXPECTED,
    HIGH,
    INPUTS,
    LOW,
    MARGIN,
    MEASURED_FIELDS,
    MEMORY_INPUTS,
    PRICE_FIELDS,
    QUANTITIES,
)
from ._cost_model import NODE_CARDS, StepWork, card_step, modelled_scaling, on_stack, run_hours
from ._cost_plans import (
    HOURLY,
    OptionPrices,
    cheapest_mixed,
    cheapest_plan,
    hourly_terms,
    on_demand_price,
    plan_breakdown,
    term_price,
    topup_price,
)
from ._memory_model import Unsharded, unsharded

TABLE_CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64)  # the counts priced when the reader allows any count
BOOKED = "booked"  # the quote's own end: the expected speed, the hours the booking rule covers
_PRICING = _data.catalog()["pricing"]
_DESKTOP = {"workstation", "consumer"}
# (throughput, hours per run, hours needed for every output) of a GPU and card count at one end (`needed`)
Need = tuple[dict[str, Any], dict[str, Any], float]


def _parallelism(values: dict[str, Any], cards: int) -> str:
    """The parallelism a card count runs: "one GPU" becomes replicated DDP beyond one card."""
    return "ddp" if values["parallelism"] == "single" and cards > 1 else values["parallelism"]


def memory_values(values: dict[str, Any], cards: int) -> dict[str, Any]:
    """Memory inputs for a card count."""
    return {
        **{i.name: values[i.name] for i in MEMORY_INPUTS},
        "gpus": cards,
        "parallelism": _parallelism(values, cards),
    }


class _Budget:
    """The memory model's side of every quote, which only the memory inputs move: each parallelism
    mode's run and unsharded components, the memory per GPU and whether it fits, per card count.
    Kept across answers (`_budget`): on the cost page a reader mostly edits the rental and the
    workload, and these were a quarter of each answer's time."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values
        self.states: dict[str, Unsharded] = {}  # parallelism mode -> its components
        self.totals: dict[int, int] = {}  # cards -> memory per GPU
        self.fitting: dict[tuple[str, int], bool] = {}  # (GPU id, cards) -> fits
        self.works: dict[tuple[int, int], StepWork] = {}  # (cards, tokens per step) -> work

    def state(self, cards: int) -> Unsharded:
        mode = _parallelism(self.values, cards)
        if mode not in self.states:
            self.states[mode] = unsharded(memory.build_run(memory_values(self.values, cards)))
        return self.states[mode]

    def memory_per_gpu(self, cards: int) -> int:
        measured: float = self.values["memory_per_gpu_gb"] * 1e9
        if measured > 0:
            return round(measured)
        if cards not in self.totals:
            self.totals[cards] = self.state(cards).per_gpu(cards)["total"]
        return self.totals[cards]

    def fits(self, gpu: dict[str, Any], cards: int) -> bool:
        key = (gpu["id"], cards)  # asked before each quote and again inside it
        if key not in self.fitting:
            self.fitting[key] = memory.fits(self.memory_per_gpu(cards), gpu, self.values["margin"])["fits"]
        return self.fitting[key]

    def work(self, values: dict[str, Any], cards: int) -> StepWork:
        """The step's work depends on the card count and the global batch, not on the card."""
        key = (cards, tokens_per_step(values))
        if key not in self.works:
            self.works[key] = _cost_model.step_work(self.state(cards), cards, key[1])
        return self.works[key]


_BUDGET_KEYS = tuple(i.name for i in MEMORY_INPUTS) + ("memory_per_gpu_gb",)
_BUDGETS: dict[tuple[Any, ...], _Budget] = {}


def _budget(values: dict[str, Any]) -> _Budget:
    """The budget of these memory inputs, computed once for as long as they stay the same."""
    return kept(_BUDGETS, key_of(values, _BUDGET_KEYS), lambda: _Budget({k: values[k] for k in _BUDGET_KEYS}))


# What sets only the price of the hours, not the hours: while only these change (the reader trying run
# counts, terms and options), each GPU and card count keeps its throughput and hours per run.
_PRICE_KEYS = (
    "runs",
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
# speed inputs -> {(GPU id, cards, end): (throughput, hours per run)}
_SPEEDS: dict[tuple[Any, ...], dict[tuple[str, int, str], tuple[dict[str, Any], dict[str, Any]]]] = {}
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


def tokens_per_step(values: dict[str, Any]) -> int:
    """The global batch in tokens: micro-batches are accumulated up to it, and the optimizer step and
    the gradient exchange happen once per global batch, whichever way the workload is given."""
    if values["workload"] == "steps":
        per_step: int = values["tokens_per_step"]
        return per_step
    sequences: int = values["global_batch"]
    seq_len: int = values["seq_len"]
    return sequences * seq_len


class _Quoter:
    """Everything shared by the quotes of one input set."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values, self.budget = values, _budget(values)
        self.needs: dict[tuple[str, int, str], Need] = {}
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
        share = v["desktop_utilization"] if gpu["tier"] in _DESKTOP else v["utilization"] or cal.share(gpu["id"])
        fp8 = v["precision"] == "fp8" and "fp8_dense_tflops" in gpu  # a card without FP8 trains in bf16
        step = card_step(work, gpu, share, v["bandwidth_share"], cal.dequant_share, fp8, cal.fp8_speedup)
        # The cards' shares are those of tuned frameworks; another stack runs the same step at its fitted
        # efficiency and overhead. A share the reader entered is already what their software reaches.
        stack = cal.stacks[v["stack"]] if not v["utilization"] or gpu["tier"] in _DESKTOP else throughput.REFERENCE
        step_s = on_stack(step["step_s"], work.micro_batches, stack.efficiency, stack.overhead_s)
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

    def hours(self, tokens_per_s: float, cards: int) -> dict[str, Any]:
        v = self.values
        return run_hours(
            self.tokens_per_run / tokens_per_s / 3600,
            cards,
            v["failures_per_100h"],
            v["checkpoint_interval_hours"],
            v["checkpoint_write_s"] / 3600,
            v["restart_hours"] + v["restore_s"] / 3600,
            self.overhead,
        )

    def term_prices(self, gpu: dict[str, Any], cards: int) -> dict[str, tuple[str, int, float]]:
        """(term id, hours, price) of every term for one GPU and card count, whatever the hours needed."""
        key = (gpu["id"], cards)
        if key not in self.prices:  # kept across answers while the options and the reader's prices stay the same
            self.prices[key] = {
                tid: (tid, term["hours"], term_price(self.held_rate(gpu["id"], tid), cards, term, self.options))
                for tid, term in self.terms.items()
            }
        return self.prices[key]

    def rate(self, gpu_id: str, term_id: str) -> float | None:
        """Price per card-hour of one GPU for one term (`HOURLY`: on demand): the reader's, else the
        catalog's; None where neither has one (an on-demand price the catalog does not list)."""
        own: float = self.values[PRICE_FIELDS[gpu_id, term_id]]
        if own > 0:
            return own
        rate: float | None
        if term_id == HOURLY:
            rate = _PRICING.get("on_demand_usd_per_card_hour", {}).get(gpu_id)
        else:
            rate = _PRICING["usd_per_card_hour"][gpu_id][term_id]
        return rate

    def held_rate(self, gpu_id: str, term_id: str) -> float:
        """`rate` of a term a plan holds: every term has a catalog price, and a plan holds on-demand hours
        only where there is an on-demand price (`hourly`)."""
        rate = self.rate(gpu_id, term_id)
        assert rate is not None, (gpu_id, term_id)
        return rate

    def hourly(self, gpu: dict[str, Any], cards: int) -> tuple[float, float, float] | None:
        """On-demand billing of this GPU and card count for `topup_price`, or None without an on-demand price."""
        rate = self.rate(gpu["id"], HOURLY)
        return None if rate is None else hourly_terms(rate, cards, self.shortest, self.options)

    def plan(self, gpu: dict[str, Any], cards: int, needed: float, term_ids: list[str]) -> dict[str, Any]:
        """The cheapest plan of these terms: with on-demand hours as a top-up (or alone) when every term
        may be combined, copies of the one term when the reader pinned it."""
        prices = self.term_prices(gpu, cards)
        hourly = self.hourly(gpu, cards) if len(term_ids) == len(self.terms) else None
        items = [prices[tid] for tid in term_ids]
        plan = cheapest_plan(needed, items) if hourly is None else cheapest_mixed(needed, items, hourly)
        return {
            **plan,
            **plan_breakdown(plan, lambda tid: self.held_rate(gpu["id"], tid), cards, self.terms, self.options),
        }

    def needed(self, gpu: dict[str, Any], cards: int, end: str = EXPECTED) -> Need:
        """(throughput, hours per run, hours needed for every output) at one end of the throughput range."""
        key = (gpu["id"], cards, end)
        if end == BOOKED and key not in self.needs:
            v = self.values
            speed, per_run, expected = self.needed(gpu, cards, EXPECTED)
            bookings: dict[str, Callable[[], float]] = {
                LOW: lambda: self.needed(gpu, cards, LOW)[2],
                EXPECTED: lambda: expected,
                MARGIN: lambda: expected * (1 + v["booking_margin"]),
            }
            booked = bookings[v["booking"]]()
            self.needs[key] = speed, per_run, max(booked, expected)  # a low end is never faster than expected
        if key not in self.needs:
            if key not in self.speeds:
                speed = self.throughput(gpu, cards, end)
                self.speeds[key] = speed, self.hours(speed["tokens_per_s"], cards)
            speed, per_run = self.speeds[key]
            self.needs[key] = speed, per_run, self.values["runs"] * per_run["total"]
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

    def least_usd_per_output(self, gpu: dict[str, Any], cards: int) -> float:
        """A lower bound on `usd_per_output` without the plan search. A plan covers the hours needed
        with terms of at most the longest term's hours, so it pays for each hour at least the lowest
        price per hour of a term, and holds at least (hours / longest term) terms, each at least the
        lowest price of a term; plus the options billed once per plan. A hair under, so that
        rounding never lifts it above the true figure."""
        key = (gpu["id"], cards, *self.term_ids)
        if key not in self.bounds:  # kept with the term prices: the same while the options are
            terms = [self.term_prices(gpu, cards)[tid] for tid in self.term_ids]
            self.bounds[key] = (
                min(price / hours for _, hours, price in terms),
                max(hours for _, hours, _ in terms),
                min(price for _, _, price in terms),
            )
        per_hour, longest, cheapest = self.bounds[key]
        needed = self.needed(gpu, cards, BOOKED)[2]
        hourly = self.hourly(gpu, cards) if len(self.term_ids) == len(self.terms) else None
        if hourly is None:
            floor = max(needed * per_hour, math.ceil(needed / longest - 1e-9) * cheapest)
        else:  # on-demand hours may replace any term: each hour costs at least the cheaper of the two rates
            floor = needed * min(per_hour, hourly[0])
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
        best = chosen if v["term"] == BEST else self.plan(gpu, cards, booked, list(self.terms))
        fit = int(chosen["hours"] // per_run["total"]) if per_run["total"] > 0 else v["runs"]
        on_demand = self.rate(gpu["id"], HOURLY)
        hourly = topup_low = None
        short = low - chosen["hours"]
        if on_demand is not None:
            hourly = on_demand_price(on_demand, cards, booked, self.shortest, self.options)
            terms = hourly_terms(on_demand, cards, self.shortest, self.options)  # `hourly`'s, with a price
            topup_low = topup_price(math.ceil(short - 1e-9), terms) if short > 1e-9 else 0.0
        mem = self.budget.memory_per_gpu(cards)
        return {
            "gpu": gpu["id"],
            "name": gpu["name"],
            "cards": cards,
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


# The figures of a quote that price it: none of them for a configuration that does not fit in memory.
UNPRICED = (
    "usd_per_output",
    "total_usd",
    "gpu_usd",
    "options_usd",
    "best_usd_per_output",
    "usd_per_million_tokens",
    "hourly_usd",
    "hourly_usd_per_output",
    "topup_at_low_usd",
)


def card_counts(gpu_id: str, any_count: bool = False) -> tuple[int, ...]:
    """The card counts priced for one GPU: the catalog's shapes (each per-node count, then whole nodes of
    the largest), or `TABLE_CARDS` when the reader allows any count."""
    if any_count:
        return TABLE_CARDS
    shape = _PRICING["shapes"][gpu_id]
    node = shape["per_node"][-1]
    return tuple(shape["per_node"]) + tuple(node * n for n in range(2, shape["max_nodes"] + 1))


def _rank_key(usd_per_output: float, cards: int) -> tuple[float, int]:
    """How configurations compare: cost per output (to the micro-dollar), then fewer cards."""
    return round(usd_per_output, 6), cards


def _cheapest_configuration(quoter: _Quoter, gpu: dict[str, Any]) -> tuple[float, int] | None:
    """The rank key of a GPU's cheapest card count that fits, or None when none fits. Card counts
    are priced from the lowest bound up (`least_usd_per_output`), and the search stops once a bound
    is above the cheapest price found: a plan search per card count was most of an answer's time."""
    counts = card_counts(gpu["id"], quoter.values["any_count"])
    bounds = sorted(_rank_key(quoter.least_usd_per_output(gpu, n), n) for n in counts if quoter.budget.fits(gpu, n))
    best = None
    for bound, cards in bounds:
        if best is not None and bound > best[0]:
            break
        key = _rank_key(quoter.usd_per_output(gpu, cards, BOOKED), cards)
        best = key if best is None else min(best, key)
    return best


def estimate(values: dict[str, Any]) -> dict[str, Any]:
    quoter = _Quoter(values)
    gpus = {g["id"]: g for g in _data.gpus()}
    own = gpus[values["gpu"]]
    chosen = quoter.quote(own, values["cards"])
    if not chosen["fits_memory"]:  # a configuration that cannot run has no price of its own
        chosen |= dict.fromkeys(UNPRICED)
    # Every card count of the chosen GPU that fits, for its table; of each GPU, the cheapest.
    rows = [quoter.quote(own, n) for n in card_counts(own["id"], values["any_count"]) if quoter.budget.fits(own, n)]
    best = {gid: key for gid, gpu in gpus.items() if (key := _cheapest_configuration(quoter, gpu)) is not None}
    ranking = sorted(best, key=best.__getitem__)
    by_gpu = [quoter.quote(gpus[gid], best[gid][1]) for gid in ranking]
    # Each GPU's cheapest configuration re-priced at both ends of its throughput range: the question is
    # whether the pick survives the model's error, and pricing every card count again would take most of
    # the answer's time. The pick holds when, at its own low end, it costs no more than any other card at
    # that card's high end.
    at = {
        end: {q["gpu"]: _rank_key(quoter.usd_per_output(gpus[q["gpu"]], q["cards"], end), q["cards"]) for q in by_gpu}
        for end in (LOW, HIGH)
    }
    sensitivity = {end: sorted(keys, key=keys.__getitem__) for end, keys in at.items()}
    rivals = sorted((g for g in ranking[1:] if at[HIGH][g][0] < at[LOW][ranking[0]][0]), key=at[HIGH].__getitem__)
    prices = _PRICING.get("price_sources", {}).get(values["gpu"], {})
    nearest = None if chosen["fits_memory"] else _nearest_fit(values, quoter, own, by_gpu)
    edited = [gid for gid in gpus if any(values[PRICE_FIELDS[gid, tid]] > 0 for tid in [*quoter.terms, HOURLY])]
    return {
        **chosen,
        "params": quoter.budget.state(1).run.params,
        "stack": values["stack"],
        "tokens_per_run": quoter.tokens_per_run,
        "nearest_fit": nearest,
        "prices_edited": edited,
        "pinned": values["term"] != BEST,
        "illustrative_prices": bool(_PRICING.get("illustrative")),
        "prices_as_of": prices.get("as_of"),
        "currency": _PRICING.get("currency", "USD"),
        "ranking": ranking,
        "ranking_low": sensitivity[LOW],
        "ranking_high": sensitivity[HIGH],
        "ranking_holds": not rivals,
        "ranking_rival": rivals[0] if rivals else None,
        "best_by_gpu": by_gpu,
        "options_table": rows,
    }


def _nearest_fit(
    values: dict[str, Any], quoter: _Quoter, own: dict[str, Any], by_gpu: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The configuration nearest the reader's that fits in memory, priced, with what changed ("change"):
    on several cards, the least sharding that fits them (its collectives cost least), else the same
    cards with a smaller micro-batch, else more cards of the same GPU, else the cheapest GPU that fits;
    None when nothing does."""
    cards, micro = values["cards"], values["micro_batch"] // 2
    order = memory.SHARDING_ORDER  # "one GPU" on several cards runs as DDP (`_parallelism`)
    later = order[order.index(_parallelism(values, cards)) + 1 :] if cards > 1 else ()
    for mode in later if values["memory_per_gpu_gb"] <= 0 else ():
        sharded = _Quoter({**values, "parallelism": mode})
        if sharded.budget.fits(own, cards):
            return {
                **sharded.quote(own, cards),
                "change": "parallelism",
                "parallelism": mode,
                "micro_batch": values["micro_batch"],
            }
    while micro >= 1 and values["memory_per_gpu_gb"] <= 0:  # a measured peak does not move with the batch
        smaller = _Quoter({**values, "micro_batch": micro})
        if smaller.budget.fits(own, cards):
            return {**smaller.quote(own, cards), "change": "micro_batch", "micro_batch": micro}
        micro //= 2
    for n in card_counts(own["id"], values["any_count"]):
        if n > cards and quoter.budget.fits(own, n):
            return {**quoter.quote(own, n), "change": "cards", "micro_batch": values["micro_batch"]}
    if by_gpu:
        return {**by_gpu[0], "change": "gpu", "micro_batch": values["micro_batch"]}
    return None
