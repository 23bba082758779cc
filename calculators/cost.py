"""The cost calculator: the cheapest reservation that delivers the outputs wanted, per GPU and card count.

An output is one training run (tokens × epochs, or steps × tokens per step); the reader says how
many they want. For every catalog GPU and card count whose memory budget fits, the calculator
estimates the throughput (``_cost_model``: compute and bandwidth of that card at the shares fitted
to published measurements in ``throughput``, its link for several cards) as a range, low, expected
and high, unless the reader measured it on that card, the expected hours with interruptions, and the
cheapest combination of the catalog's terms that covers them, or copies of a pinned term. Cost per
successful output is the plan's price divided by the outputs it delivers. The memory budget takes the memory calculator's
own inputs (declared once, in ``memory.INPUTS``, reused here). The result quotes the chosen GPU and
card count, every card count of that GPU that fits (``options_table``) and each GPU's cheapest
configuration (``best_by_gpu``, in ``ranking`` order).
"""

from __future__ import annotations

import dataclasses
import math

from . import _cost_model, _data, _memory_formulas, memory, throughput
from ._cost_model import (
    NODE_CARDS, OptionPrices, StepWork, card_step, cheapest_plan, cluster_tokens_per_s, modelled_scaling,
    on_demand_price, plan_breakdown, run_hours, term_price,
)
from .display import bars, metric, metrics, notes, table, value
from ._errors import error
from ._i18n import N_, NN_, NP_
from ._inputs import Choice, Input
from ._kept import key_of, kept
from ._memory_formulas import unsharded

NAME = "cost"
TITLE = N_("Fixed-term rental cost")

G_RENT, G_WORK, G_SPEED = N_("Rental"), N_("Workload"), N_("Throughput")
G_IDLE, G_MEM = N_("Hours that do not train"), N_("Memory budget")
G_MEASURED = N_("Measured throughput per card")
TABLE_CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64)
MIN_THROUGHPUT = 0.01
# Where in its throughput range each estimated card is priced (a measured card is priced at its measurement).
LOW, EXPECTED, HIGH = "low", "expected", "high"
BEST = "best"  # the term input's value for "the cheapest plan"
_MEMORY_SHOWN = {"model", "method", "parallelism"}  # the rest of the memory inputs start collapsed
_PRICING = _data.catalog()["pricing"]
_DESKTOP = {"workstation", "consumer"}


def _hours(name, default, label, help_="", advanced=False):
    return Input(name, "float", default, label, help_, unit="hours", min=0, max=100000, step=0.1, group=G_IDLE,
                 advanced=advanced)


def measured_field(gpu_id: str) -> str:
    """The input that holds a throughput measured on one catalog GPU (a pilot result fills its card's)."""
    return f"measured_{gpu_id}"


def _share(name, default, label, help_, group=G_SPEED, advanced=True, optional=False):
    low = 0 if optional else 0.01
    return Input(name, "float", default, label, help_, unit="percent", min=low, max=1, step=0.01, group=group,
                 advanced=advanced, optional=optional)


# The workload is given one way or the other (see Input.only_when).
BY_TOKENS = ("workload", ("tokens",))
BY_STEPS = ("workload", ("steps",))

OWN_INPUTS = (
    Input("gpu", "choice", "h200-141gb", N_("GPU"),
          choices=tuple(Choice(g["id"], g["name"]) for g in _data.gpus()), group=G_RENT),
    Input("cards", "int", 1, N_("Cards"), unit="count", min=1, max=1024, group=G_RENT),
    Input("term", "choice", BEST, N_("Term"),
          N_("The cheapest plan combines the catalog's terms; pinning one term books only copies of it."),
          choices=(Choice(BEST, N_("Cheapest plan")),) + tuple(Choice(t["id"], t["label"]) for t in _data.terms()),
          group=G_RENT),
    Input("options", "multichoice", ["checkpoint_storage"], N_("Options"),
          choices=tuple(Choice(o["id"], o["label"]) for o in _PRICING["options"]), group=G_RENT),
    Input("storage_tb", "float", 1.0, N_("Checkpoint storage"), unit="tb", min=0, max=10000, step=0.1,
          group=G_RENT, advanced=True),
    Input("scratch_tb", "float", 2.0, N_("Extra scratch"), unit="tb", min=0, max=10000, step=0.1,
          group=G_RENT, advanced=True),
    Input("egress_tb", "float", 0.5, N_("Data moved out"), unit="tb", min=0, max=10000, step=0.1,
          group=G_RENT, advanced=True),
    Input("workload", "choice", "tokens", N_("One output is"),
          choices=(Choice("tokens", N_("Tokens × epochs")), Choice("steps", N_("Steps × tokens per step"))),
          group=G_WORK),
    Input("tokens", "float", 2e8, N_("Training tokens per epoch"), unit="tokens", min=1, max=1e15, group=G_WORK, only_when=BY_TOKENS),
    Input("epochs", "float", 3.0, N_("Epochs"), unit="number", min=0.01, max=1000, step=0.1, group=G_WORK, only_when=BY_TOKENS),
    Input("steps", "int", 1000, N_("Optimizer steps"), unit="count", min=1, max=10**9, group=G_WORK, only_when=BY_STEPS),
    Input("tokens_per_step", "int", 65536, N_("Tokens per step (global batch)"), unit="tokens", min=1,
          max=10**10, group=G_WORK, only_when=BY_STEPS),
    Input("runs", "int", 1, N_("Successful outputs wanted"),
          N_("For example 6 for a sweep of six runs; each output trains the whole workload."),
          unit="count", min=1, max=1000, group=G_WORK),
    Input("throughput_per_gpu", "float", 0.0, N_("Measured throughput per GPU"),
          N_("Measured on the GPU chosen above (the pilot's figure). 0 estimates it; the fields under "
             "“Measured throughput per card” set any card."),
          unit="tokens_per_s", min=0, max=1e9, group=G_SPEED, optional=True),
    _share("utilization", 0.0, N_("Share of peak matrix rate, data-centre cards"),
           N_("The share of the dense bf16 peak that the matrix multiplications reach. 0 uses each card's share "
              "fitted to published measurements."), advanced=False, optional=True),
    _share("desktop_utilization", 0.3, N_("Share of peak matrix rate, workstation and consumer cards"),
           N_("An assumption: no published measurement of these cards calibrates it. Lower than the data-centre "
              "cards': they hold their boost clock for less time within a smaller power limit.")),
    _share("bandwidth_share", throughput.BANDWIDTH_SHARE, N_("Share of peak bandwidth achieved"),
           N_("For memory-bound kernels and for the link between cards.")),
    _share("scaling_efficiency", 0.0, N_("Measured scaling efficiency"),
           N_("Throughput of N cards divided by N times one card, on the GPU chosen above. 0 models it from the link."),
           advanced=False, optional=True),
    _share("internode_efficiency", throughput.INTERNODE_EFFICIENCY, N_("Efficiency across nodes"),
           N_("Applied on top for more than 8 cards, which span several nodes.")),
    _hours("load_hours", 0.5, N_("Loading per output"), N_("Environment, data and model loading.")),
    _hours("validation_hours", 0.5, N_("Validation per output")),
    _hours("checkpoint_hours", 0.5, N_("Checkpoint upload per output")),
    _hours("export_hours", 0.5, N_("Export per output")),
    Input("failures_per_100h", "float", 0.01, N_("Interruptions per 100 card-hours"),
          N_("Expected failures that stop the run; any card's failure stops every card."),
          unit="number", min=0, max=100, step=0.01, group=G_IDLE),
    _hours("checkpoint_interval_hours", 1.0, N_("Checkpoint interval"),
           N_("An interruption loses on average half of it.")),
    _hours("restart_hours", 0.5, N_("Restart per interruption"), N_("Noticing the failure and relaunching."),
           advanced=True),
    Input("checkpoint_write_s", "float", 30.0, N_("Checkpoint write"), N_("Training pauses this long per checkpoint."),
          unit="seconds", min=0, max=1e6, group=G_IDLE, advanced=True),
    Input("restore_s", "float", 120.0, N_("Checkpoint restore"), N_("Loading the last checkpoint after a restart."),
          unit="seconds", min=0, max=1e6, group=G_IDLE, advanced=True),
    Input("memory_per_gpu_gb", "float", 0.0, N_("Measured memory per GPU"),
          N_("0 estimates it from the memory inputs for each card count."), unit="gb", min=0, max=100000,
          group=G_MEM, optional=True),
) + tuple(
    # One per catalog GPU, labelled with its name (a proper noun): a measurement stays with its card
    # whichever GPU the form has chosen.
    Input(measured_field(g["id"]), "float", 0.0, g["name"],
          N_("Tokens per second per card, measured on this GPU (the pilot's figure); 0 keeps the estimate."),
          unit="tokens_per_s", min=0, max=1e9, group=G_MEASURED, advanced=True, optional=True)
    for g in _data.gpus())
MEASURED_FIELDS = {g["id"]: measured_field(g["id"]) for g in _data.gpus()}
# What a catalog option may be billed by: per term, or per TB (per day, or once) of one of these inputs.
PRICINGS = ("term", "tb_day", "tb")
QUANTITIES = tuple(i.name for i in OWN_INPUTS if i.unit == "tb")


class CatalogError(ValueError):
    """The catalog asks for something the cost calculator cannot price."""


def catalog_problems(options: list[dict]) -> list[str]:
    """One line per option the calculator could not price; [] when every option is fine."""
    problems = []
    for option in options:
        per, quantity = option.get("per"), option.get("quantity")
        if per not in PRICINGS:
            problems.append(f"option {option.get('id')!r}: 'per' must be one of {', '.join(PRICINGS)} (got {per!r})")
        elif per != "term" and quantity not in QUANTITIES:
            problems.append(f"option {option.get('id')!r}: 'quantity' must be one of {', '.join(QUANTITIES)} "
                            f"(got {quantity!r}); a new quantity needs its own input in calculators/cost.py")
    return problems


# Checked once, on import: the build stops here with the fix, before any page or browser computes a price.
if _catalog_problems := catalog_problems(_PRICING["options"]):
    raise CatalogError("calculators/data/catalog.json: " + "; ".join(_catalog_problems))
MEMORY_INPUTS = tuple(dataclasses.replace(i, advanced=i.advanced or i.name not in _MEMORY_SHOWN)
                      for i in memory.INPUTS if i.name != "gpus")
INPUTS = OWN_INPUTS + MEMORY_INPUTS


def prepare(values: dict) -> dict:
    return memory.prepare(values)


def _parallelism(values: dict, cards: int) -> str:
    """The parallelism a card count runs: "one GPU" becomes replicated DDP beyond one card."""
    return "ddp" if values["parallelism"] == "single" and cards > 1 else values["parallelism"]


def _memory_values(values: dict, cards: int) -> dict:
    """Memory inputs for a card count."""
    return {**{i.name: values[i.name] for i in MEMORY_INPUTS}, "gpus": cards, "parallelism": _parallelism(values, cards)}


def check(values: dict) -> list[dict]:
    errors = [e for e in memory.check(_memory_values(values, 1))]
    for name in ("throughput_per_gpu", *MEASURED_FIELDS.values()):
        if 0 < values[name] < MIN_THROUGHPUT:
            errors.append(error(name, "out_of_range", min=MIN_THROUGHPUT, max=1e9))
    # A zero interval is meaningless once checkpoints take time or failures lose work.
    if (values["failures_per_100h"] > 0 or values["checkpoint_write_s"] > 0) and values["checkpoint_interval_hours"] <= 0:
        errors.append(error("checkpoint_interval_hours", "out_of_range", min=0.01, max=100000))
    return errors


class _Budget:
    """The memory model's side of every quote, which only the memory inputs move: each parallelism
    mode's run and unsharded components, the memory per GPU and whether it fits, per card count.
    Kept across answers (`_budget`): on the cost page a reader mostly edits the rental and the
    workload, and these were a quarter of each answer's time."""

    def __init__(self, values: dict):
        self.values, self.states, self.totals, self.fitting, self.works = values, {}, {}, {}, {}

    def state(self, cards: int):
        mode = _parallelism(self.values, cards)
        if mode not in self.states:
            self.states[mode] = unsharded(memory.build_run(_memory_values(self.values, cards)))
        return self.states[mode]

    def memory_per_gpu(self, cards: int) -> int:
        measured = self.values["memory_per_gpu_gb"] * 1e9
        if measured > 0:
            return round(measured)
        if cards not in self.totals:
            self.totals[cards] = self.state(cards).per_gpu(cards)["total"]
        return self.totals[cards]

    def fits(self, gpu: dict, cards: int) -> bool:
        key = (gpu["id"], cards)  # asked before each quote and again inside it
        if key not in self.fitting:
            self.fitting[key] = memory.fits(self.memory_per_gpu(cards), gpu, self.values["margin"])["fits"]
        return self.fitting[key]

    def work(self, values: dict, cards: int) -> StepWork:
        """The step's work depends on the card count and the workload's batch, not on the card."""
        key = (cards, values["workload"] == "steps" and values["tokens_per_step"])
        if key not in self.works:
            self.works[key] = step_work(values, self, cards)
        return self.works[key]


def _kept(store: dict, names: tuple, values: dict, make):
    """What `make()` gives for these values of the inputs `names`, kept across answers (`_kept.kept`)."""
    return kept(store, key_of(values, names), make)


_BUDGET_KEYS = tuple(i.name for i in MEMORY_INPUTS) + ("memory_per_gpu_gb",)
_BUDGETS: dict[tuple, _Budget] = {}


def _budget(values: dict) -> _Budget:
    """The budget of these memory inputs, computed once for as long as they stay the same."""
    return _kept(_BUDGETS, _BUDGET_KEYS, values, lambda: _Budget({k: values[k] for k in _BUDGET_KEYS}))


# What sets only the price of the hours, not the hours: while only these change (the reader trying run
# counts, terms and options), each GPU and card count keeps its throughput and hours per run.
_PRICE_KEYS = ("runs", "term", "cards", "options", *QUANTITIES)
_SPEED_KEYS = tuple(i.name for i in INPUTS if i.name not in _PRICE_KEYS)
_SPEEDS: dict[tuple, dict] = {}   # speed inputs -> {(GPU id, cards, end): (throughput, hours per run)}
# And the reverse: the price of each term for a GPU and card count depends on the options alone.
_OPTION_KEYS = ("options", *QUANTITIES)
# option inputs -> (OptionPrices, {(GPU id, cards): its term prices, (GPU id, cards, *term ids): their bound's figures})
_PRICES: dict[tuple, tuple] = {}


def _forget() -> None:
    """Drop what is kept across answers (tests compare an answer with one from nothing)."""
    for store in (_BUDGETS, _SPEEDS, _PRICES):
        store.clear()
    _memory_formulas.forget()


def _tokens_per_run(values: dict) -> float:
    if values["workload"] == "steps":
        return float(values["steps"] * values["tokens_per_step"])
    return values["tokens"] * values["epochs"]


def step_work(values: dict, budget: _Budget, cards: int) -> StepWork:
    """What one card does per optimizer step: FLOPs, bytes moved, bytes exchanged with the others
    (a steps workload accumulates gradients up to its global batch)."""
    per_step = values["tokens_per_step"] if values["workload"] == "steps" else None
    return _cost_model.step_work(budget.state(cards), cards, per_step)


class _Quoter:
    """Everything shared by the quotes of one input set."""

    def __init__(self, values: dict):
        self.values, self.budget, self.needs, self.chosen = values, _budget(values), {}, {}
        self.terms = {t["id"]: t for t in _data.terms()}
        self.term_ids = list(self.terms) if values["term"] == BEST else [values["term"]]  # what a plan may combine
        self.options, self.prices = _kept(_PRICES, _OPTION_KEYS, values, lambda: (OptionPrices(
            [o for o in _PRICING["options"] if o["id"] in values["options"]], self.terms,
            {k: values[k] for k in QUANTITIES}), {}))
        self.speeds = _kept(_SPEEDS, _SPEED_KEYS, values, dict)
        self.tokens_per_run = _tokens_per_run(values)
        self.overhead = math.fsum(values[k] for k in ("load_hours", "validation_hours", "checkpoint_hours",
                                                      "export_hours"))

    def work(self, cards: int) -> StepWork:
        return self.budget.work(self.values, cards)

    def measured(self, gpu: dict) -> float:
        """Tokens/s per card the reader measured on this GPU (its own field, else the chosen GPU's), or 0."""
        v = self.values
        return v[MEASURED_FIELDS[gpu["id"]]] or (v["throughput_per_gpu"] if gpu["id"] == v["gpu"] else 0.0)

    def throughput(self, gpu: dict, cards: int, end: str) -> dict:
        """Throughput at one end of the card's range (`LOW`, `EXPECTED`, `HIGH`); its whole range beside.
        A card without a measurement runs at its calibrated share of peak (or the reader's), and its
        range is the calibration's; a measured card's range is its measurement."""
        v = self.values
        work = self.work(cards)
        cal = throughput.calibration()
        if gpu["tier"] in _DESKTOP:
            share, band = v["desktop_utilization"], cal.uncalibrated_band
        else:
            share, band = v["utilization"] or cal.share(gpu["id"]), cal.range_of(gpu["id"])
        step = card_step(work, gpu, share, v["bandwidth_share"], cal.dequant_share)
        measured = self.measured(gpu)
        per_gpu = {end_: measured or step["tokens_per_s"] * factor
                   for end_, factor in ((LOW, band[0]), (EXPECTED, 1.0), (HIGH, band[1]))}
        if gpu["id"] == v["gpu"] and v["scaling_efficiency"] > 0:
            efficiency = dict.fromkeys(per_gpu, v["scaling_efficiency"] if cards > 1 else 1.0)
        else:
            efficiency = {e: modelled_scaling(work, work.tokens / rate, gpu, cards, v["bandwidth_share"])
                          for e, rate in per_gpu.items()}
        cluster = {e: cluster_tokens_per_s(rate, cards, efficiency[e], v["internode_efficiency"])
                   for e, rate in per_gpu.items()}
        return {"tokens_per_s_per_gpu": per_gpu[end], "measured": bool(measured), "matmul_share": share,
                "scaling_efficiency": efficiency[end], "compute_share": step["compute_share"],
                "tokens_per_s": cluster[end], "tokens_per_s_low": cluster[LOW], "tokens_per_s_high": cluster[HIGH]}

    def hours(self, tokens_per_s: float, cards: int) -> dict:
        v = self.values
        return run_hours(self.tokens_per_run / tokens_per_s / 3600, cards, v["failures_per_100h"],
                         v["checkpoint_interval_hours"], v["checkpoint_write_s"] / 3600,
                         v["restart_hours"] + v["restore_s"] / 3600, self.overhead)

    def term_prices(self, gpu: dict, cards: int) -> dict:
        """(term id, hours, price) of every term for one GPU and card count, whatever the hours needed."""
        key = (gpu["id"], cards)
        if key not in self.prices:  # kept across answers while the options stay the same
            rates = _PRICING["usd_per_card_hour"][gpu["id"]]
            self.prices[key] = {tid: (tid, term["hours"], term_price(rates[tid], cards, term, self.options))
                                for tid, term in self.terms.items()}
        return self.prices[key]

    def plan(self, gpu: dict, cards: int, needed: float, term_ids) -> dict:
        rates = _PRICING["usd_per_card_hour"][gpu["id"]]
        prices = self.term_prices(gpu, cards)
        plan = cheapest_plan(needed, [prices[tid] for tid in term_ids])
        return {**plan, **plan_breakdown(plan, rates.get, cards, self.terms, self.options)}

    def needed(self, gpu: dict, cards: int, end: str = EXPECTED) -> tuple[dict, dict, float]:
        """(throughput, hours per run, hours needed for every output) at one end of the throughput range."""
        key = (gpu["id"], cards, end)
        if key not in self.needs:
            if key not in self.speeds:
                speed = self.throughput(gpu, cards, end)
                self.speeds[key] = speed, self.hours(speed["tokens_per_s"], cards)
            speed, per_run = self.speeds[key]
            self.needs[key] = speed, per_run, self.values["runs"] * per_run["total"]
        return self.needs[key]

    def chosen_plan(self, gpu: dict, cards: int, end: str = EXPECTED) -> tuple[dict, dict, float, dict]:
        """(throughput, hours per run, hours needed, the plan the reader asked for: cheapest or pinned)."""
        key = (gpu["id"], cards, end)
        if key not in self.chosen:
            speed, per_run, needed = self.needed(gpu, cards, end)
            self.chosen[key] = speed, per_run, needed, self.plan(gpu, cards, needed, self.term_ids)
        return self.chosen[key]

    def least_usd_per_output(self, gpu: dict, cards: int) -> float:
        """A lower bound on `usd_per_output` without the plan search. A plan covers the hours needed
        with terms of at most the longest term's hours, so it pays for each hour at least the lowest
        price per hour of a term, and holds at least (hours / longest term) terms, each at least the
        lowest price of a term; plus the options billed once per plan. A hair under, so that
        rounding never lifts it above the true figure."""
        key = (gpu["id"], cards, *self.term_ids)
        if key not in self.prices:  # kept with the term prices: the same while the options are
            terms = [self.term_prices(gpu, cards)[tid] for tid in self.term_ids]
            self.prices[key] = (min(price / hours for _, hours, price in terms), max(hours for _, hours, _ in terms),
                                min(price for _, _, price in terms))
        per_hour, longest, cheapest = self.prices[key]
        needed = self.needed(gpu, cards)[2]
        floor = max(needed * per_hour, math.ceil(needed / longest - 1e-9) * cheapest)
        return (floor + self.options.once) * (1 - 1e-9) / self.values["runs"]

    def fits(self, gpu: dict, cards: int) -> bool:
        return self.budget.fits(gpu, cards)

    def usd_per_output(self, gpu: dict, cards: int, end: str) -> float:
        """What the ranking compares: the chosen plan's price per output (a quote's `usd_per_output`)."""
        return self.chosen_plan(gpu, cards, end)[3]["total_usd"] / self.values["runs"]

    def quote(self, gpu: dict, cards: int, end: str = EXPECTED) -> dict:
        """One GPU and card count: throughput, hours, the cheapest plan, the pinned one, hourly billing."""
        v = self.values
        speed, per_run, needed, chosen = self.chosen_plan(gpu, cards, end)
        best = chosen if v["term"] == BEST else self.plan(gpu, cards, needed, list(self.terms))
        fit = int(chosen["hours"] // per_run["total"]) if per_run["total"] > 0 else v["runs"]
        on_demand = _PRICING.get("on_demand_usd_per_card_hour", {}).get(gpu["id"])
        hourly = None
        if on_demand is not None:
            hourly = on_demand_price(on_demand, cards, needed, _data.terms()[0], self.options)
        mem = self.budget.memory_per_gpu(cards)
        return {"gpu": gpu["id"], "name": gpu["name"], "cards": cards, **speed, "run_hours": per_run,
                "needed_hours": needed, "plan": chosen["terms"], "plan_hours": chosen["hours"],
                "unused_hours": chosen["hours"] - needed, "total_usd": chosen["total_usd"],
                "gpu_usd": chosen["gpu_usd"], "options_usd": chosen["options_usd"],
                "outputs_fit": max(fit, v["runs"]), "successful_outputs": v["runs"],
                "usd_per_output": chosen["total_usd"] / v["runs"],
                "best_plan": best["terms"], "best_usd_per_output": best["total_usd"] / v["runs"],
                "usd_per_million_tokens": chosen["total_usd"] / (v["runs"] * self.tokens_per_run / 1e6),
                "hourly_usd": hourly, "hourly_usd_per_output": None if hourly is None else hourly / v["runs"],
                "memory_per_gpu_bytes": mem, "fits_memory": self.fits(gpu, cards)}


def _rank_key(usd_per_output: float, cards: int) -> tuple:
    """How configurations compare: cost per output (to the micro-dollar), then fewer cards."""
    return round(usd_per_output, 6), cards


def _cheapest_configuration(quoter: _Quoter, gpu: dict) -> tuple | None:
    """The rank key of a GPU's cheapest card count that fits, or None when none fits. Card counts
    are priced from the lowest bound up (`least_usd_per_output`), and the search stops once a bound
    is above the cheapest price found: a plan search per card count was most of an answer's time."""
    bounds = sorted(_rank_key(quoter.least_usd_per_output(gpu, n), n) for n in TABLE_CARDS if quoter.fits(gpu, n))
    best = None
    for bound, cards in bounds:
        if best is not None and bound > best[0]:
            break
        key = _rank_key(quoter.usd_per_output(gpu, cards, EXPECTED), cards)
        best = key if best is None else min(best, key)
    return best


def estimate(values: dict) -> dict:
    quoter = _Quoter(values)
    gpus = {g["id"]: g for g in _data.gpus()}
    own = gpus[values["gpu"]]
    chosen = quoter.quote(own, values["cards"])
    # Every card count of the chosen GPU that fits, for its table; of each GPU, the cheapest.
    rows = [quoter.quote(own, n) for n in TABLE_CARDS if quoter.fits(own, n)]
    best = {gid: key for gid, gpu in gpus.items() if (key := _cheapest_configuration(quoter, gpu)) is not None}
    ranking = sorted(best, key=best.get)
    by_gpu = [quoter.quote(gpus[gid], best[gid][1]) for gid in ranking]
    # Each GPU's cheapest configuration re-priced at both ends of its throughput range: the question is
    # whether the pick survives the model's error, and pricing every card count again would take most of
    # the answer's time. The pick holds when, at its own low end, it costs no more than any other card at
    # that card's high end.
    at = {end: {q["gpu"]: _rank_key(quoter.usd_per_output(gpus[q["gpu"]], q["cards"], end), q["cards"])
                for q in by_gpu} for end in (LOW, HIGH)}
    sensitivity = {end: sorted(keys, key=keys.get) for end, keys in at.items()}
    rivals = sorted((g for g in ranking[1:] if at[HIGH][g][0] < at[LOW][ranking[0]][0]), key=at[HIGH].get)
    prices = _PRICING.get("price_sources", {}).get(values["gpu"], {})
    return {**chosen, "params": quoter.budget.state(1).run.params, "tokens_per_run": quoter.tokens_per_run,
            "pinned": values["term"] != BEST, "illustrative_prices": bool(_PRICING.get("illustrative")),
            "prices_as_of": prices.get("as_of"), "currency": _PRICING.get("currency", "USD"),
            "ranking": ranking, "ranking_low": sensitivity[LOW], "ranking_high": sensitivity[HIGH],
            "ranking_holds": not rivals, "ranking_rival": rivals[0] if rivals else None,
            "best_by_gpu": by_gpu, "options_table": rows}


def _status(ok: bool, warn: bool = False):
    return "bad" if not ok else ("warn" if warn else "ok")


def plan_text(plan: list) -> list:
    """A plan as display data: [[count, term label msgid], ...] (the "plan" display unit)."""
    terms = {t["id"]: t["label"] for t in _data.terms()}
    return [[count, terms[tid]] for tid, count in plan]


def _source(q: dict) -> str:
    # TRANSLATORS: a table cell under "Throughput is": the throughput figure was measured by a pilot run,
    # or estimated by the model. It qualifies "throughput" (gender and number agree with it).
    return N_("measured") if q["measured"] else N_("estimated")


def _display(values: dict, r: dict) -> list[dict]:
    names = {g["id"]: g["name"] for g in _data.gpus()}
    head = [metric(N_("Cost per successful output"), r["usd_per_output"], "usd"),
            metric(N_("Reservation plan"), plan_text(r["plan"]), "plan"),
            metric(N_("Plan price"), r["total_usd"], "usd"),
            metric(N_("Hours needed"), r["needed_hours"], "hours"),
            metric(N_("Unused hours in the plan"), r["unused_hours"], "hours",
                   _status(True, r["unused_hours"] > 0.5 * r["plan_hours"])),
            metric(N_("Outputs that fit in the plan"), r["outputs_fit"], "count"),
            metric(N_("Throughput"), r["tokens_per_s"], "tokens_per_s"),
            metric(N_("Throughput, low end"), r["tokens_per_s_low"], "tokens_per_s"),
            metric(N_("Throughput, high end"), r["tokens_per_s_high"], "tokens_per_s"),
            metric(N_("Memory per GPU"), r["memory_per_gpu_bytes"], "bytes", _status(r["fits_memory"]))]
    if r["pinned"]:
        head.insert(3, metric(N_("Cheapest plan, per output"), r["best_usd_per_output"], "usd"))
    if r["hourly_usd_per_output"] is not None:
        head.insert(3, metric(N_("Hourly billing, per output"), r["hourly_usd_per_output"], "usd"))
    runs, h = values["runs"], r["run_hours"]
    hours = [(N_("Training"), runs * h["train"]), (N_("Checkpoint writes"), runs * h["writes"]),
             (N_("Lost to interruptions"), runs * h["lost"]),
             # TRANSLATORS: a share of the paid hours: loading the environment, data and model (a noun,
             # not a "please wait" message).
             (NP_("hours in the plan", "Loading"), runs * values["load_hours"]), (N_("Validation"), runs * values["validation_hours"]),
             (N_("Checkpoint upload"), runs * values["checkpoint_hours"]),
             # TRANSLATORS: hours of the reserved term that are paid for but not needed.
             (N_("Export"), runs * values["export_hours"]), (NP_("hours in the plan", "Unused"), r["unused_hours"])]
    option_labels = {o["id"]: o["label"] for o in _PRICING["options"]}
    terms = {t["id"]: t["label"] for t in _data.terms()}
    breakdown = [[terms[tid], v] for tid, v in r["gpu_usd"].items()]
    breakdown += [[option_labels[k], v] for k, v in r["options_usd"].items()]
    best_rows = [[q["name"], q["cards"], plan_text(q["plan"]), q["unused_hours"], q["tokens_per_s"],
                  q["tokens_per_s_low"], q["tokens_per_s_high"], _source(q), q["usd_per_output"],
                  q["hourly_usd_per_output"]] for q in r["best_by_gpu"]]
    all_columns = [(N_("Cards"), "count"), (N_("Memory per GPU"), "bytes"),
                   (N_("Hours needed"), "hours"), (N_("Plan"), "plan"), (N_("Plan price"), "usd"),
                   (N_("Per successful output"), "usd")]
    if r["pinned"]:
        all_columns.append((N_("Cheapest plan, per output"), "usd"))
    all_rows = [[q["cards"], q["memory_per_gpu_bytes"], q["needed_hours"], plan_text(q["plan"]),
                 q["total_usd"], q["usd_per_output"]] + ([q["best_usd_per_output"]] if r["pinned"] else [])
                for q in r["options_table"]]  # the chosen GPU's; the others': their cheapest row above
    note_items = []
    if r["prices_as_of"]:
        note_items.append((N_("Prices as of {date}.") if not r["illustrative_prices"]
                           else N_("Prices as of {date}; they are illustrative: the site owner sets them in the catalog."),
                           {"date": r["prices_as_of"]}))
    low, high = throughput.calibration().band
    note_items.append((N_("Throughput is estimated from each card's compute, bandwidth and link, at its share of peak "
                          "fitted to published measurements. Those measurements fell from {low} below to {high} above "
                          "the model's estimates: each estimate's low and high ends."),
                       {"low": value(1 - low, "percent"), "high": value(high - 1, "percent")}))
    fitted = throughput.calibration().shares
    unfitted = [q for q in [r, *r["best_by_gpu"]] if q["gpu"] not in fitted and not q["measured"]]
    if unfitted:
        low, high = throughput.calibration().uncalibrated_band
        note_items.append((N_("No published measurement calibrates the workstation and consumer cards: their share of "
                              "peak is an assumption, and their range, {low} below to {high} above, is as far as the "
                              "model missed a card it was not fitted to."),
                           {"low": value(1 - low, "percent"), "high": value(high - 1, "percent")}))
    if any(q["measured"] for q in [r, *r["best_by_gpu"]]):
        note_items.append((N_("A measured throughput replaces the estimate on its own card; the table says which "
                              "figures are measured."), {}))
    if r["ranking"]:
        if r["ranking_holds"]:
            note_items.append((N_("Across the throughput range, {gpu} stays the cheapest per output: at its low end it "
                                  "costs no more than any other card at its high end."),
                               {"gpu": names[r["ranking"][0]]}))
        else:
            note_items.append((N_("The cheapest per output depends on where each card falls in its throughput range: "
                                  "{gpu} at its low end costs more per output than {rival} at its high end."),
                               {"gpu": names[r["ranking"][0]], "rival": names[r["ranking_rival"]]}))
    if r["pinned"] and r["usd_per_output"] > r["best_usd_per_output"] + 1e-9:
        note_items.append((N_("Pinning the term costs {extra} more per output than the cheapest plan."),
                           {"extra": value(r["usd_per_output"] - r["best_usd_per_output"], "usd")}))
    if not r["fits_memory"]:
        note_items.append((N_("The run does not fit in {gpu} memory with this card count and headroom."),
                           {"gpu": r["name"]}))
    if values["cards"] > NODE_CARDS:
        note_items.append((NN_("More than {count} card spans several nodes: the efficiency across nodes applies.",
                               "More than {count} cards span several nodes: the efficiency across nodes applies."),
                           {"count": value(NODE_CARDS, "count")}))
    if not r["ranking"]:
        note_items.append((NN_("No catalog GPU fits the memory budget with up to {count} card.",
                               "No catalog GPU fits the memory budget with up to {count} cards."),
                           {"count": value(max(TABLE_CARDS), "count")}))
    return [
        metrics(N_("Cost per successful output"), head),
        bars(N_("Hours in the plan"), "hours", hours),
        table(N_("Price breakdown"), [(N_("Item"), "text"), (N_("Price"), "usd")], breakdown),
        table(N_("Cheapest configuration of each GPU"),
              [(N_("GPU"), "raw"), (N_("Cards"), "count"), (N_("Plan"), "plan"), (N_("Unused hours"), "hours"),
               (N_("Throughput"), "tokens_per_s"), (N_("Low end"), "tokens_per_s"), (N_("High end"), "tokens_per_s"),
               (N_("Throughput is"), "text"),
               (N_("Per successful output"), "usd"), (N_("Hourly billing, per output"), "usd")], best_rows),
        table(N_("Card counts of this GPU that fit"), all_columns, all_rows),
        notes(note_items),
    ]


def run(values: dict) -> dict:
    result = estimate(values)
    result["display"] = _display(values, result)
    return result
