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
from operator import itemgetter

from . import _cost_model, _data, _memory_formulas, memory, throughput
from ._cost_model import (
    HOURLY, MAX_LOST_HOURS, NODE_CARDS, OptionPrices, StepWork, card_step, cheapest_mixed, cheapest_plan, cluster_tokens_per_s,
    hourly_terms, modelled_scaling, on_demand_price, plan_breakdown, run_hours, term_price, topup_price,
)
from .display import bars, metric, metrics, notes, phrase, record_table, table, value, verdict
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
TABLE_CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64)  # the counts priced when the reader allows any count
MIN_THROUGHPUT = 0.01
# Where in its throughput range each estimated card is priced (a measured card is priced at its measurement).
LOW, EXPECTED, HIGH = "low", "expected", "high"
BEST = "best"  # the term input's value for "the cheapest plan"
BOOKED = "booked"  # the quote's own end: the expected speed, the hours the booking rule covers
MARGIN = "margin"
# A plan entry of on-demand hours, labelled like a term ("3 × 1 hour on demand").
HOURLY_LABEL = N_("1 hour on demand")
# The rest of the memory inputs start collapsed.
_MEMORY_SHOWN = {"model", "method", "seq_len", "micro_batch", "parallelism"}
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
    Input("any_count", "bool", False, N_("Allow any card count"),
          N_("Off: only the shapes the catalog rents (cards per node, then whole nodes). On: 1 to 8, 16, 32 and 64 cards."),
          group=G_RENT, advanced=True),
    Input("term", "choice", BEST, N_("Term"),
          N_("The cheapest plan combines the catalog's terms; pinning one term books only copies of it."),
          choices=(Choice(BEST, N_("Cheapest plan")),) + tuple(Choice(t["id"], t["label"]) for t in _data.terms()),
          group=G_RENT),
    Input("booking", "choice", LOW, N_("Book for"),
          N_("The hours the plan covers: those of the throughput range's low end (the booking survives the "
             "estimate's error), the expected ones, or the expected ones plus a margin."),
          choices=(Choice(LOW, N_("The low end of the throughput range")), Choice(EXPECTED, N_("The expected hours")),
                   Choice(MARGIN, N_("The expected hours plus a margin"))), group=G_RENT),
    Input("booking_margin", "float", 0.2, N_("Margin on the expected hours"), unit="percent", min=0, max=10,
          step=0.05, group=G_RENT, only_when=("booking", (MARGIN,))),
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
           N_("An interruption loses the work done since the last checkpoint.")),
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


def price_field(gpu_id: str, term_id: str) -> str:
    """The input that holds the reader's own price of one GPU for one term (`HOURLY`: on demand)."""
    return f"price_{gpu_id}_{term_id}"


# The reader's prices, per GPU and term, on demand included: 0 keeps the site owner's catalog price. Each
# GPU's own fieldset, titled as prices with their currency and the GPU's name (a proper noun), its fields
# labelled with the terms.
G_PRICES = N_("Your prices per card-hour, US$ — {gpu}")
PRICE_FIELDS = {(g["id"], t["id"]): price_field(g["id"], t["id"])
                for g in _data.gpus() for t in [*_data.terms(), {"id": HOURLY}]}
PRICE_INPUTS = tuple(
    Input(PRICE_FIELDS[g["id"], t["id"]], "float", 0.0, t["label"],
          N_("Your price per card-hour for this GPU and term; 0 keeps the site owner's catalog price."),
          unit="usd_per_hour", min=0, max=10000, step=0.01, group=G_PRICES, group_params=(("gpu", g["name"]),),
          advanced=True, optional=True)
    for g in _data.gpus() for t in [*_data.terms(), {"id": HOURLY, "label": HOURLY_LABEL}])
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


def shape_problems(pricing: dict, gpu_ids) -> list[str]:
    """One line per GPU whose rentable shapes (pricing.shapes) are missing or malformed; [] when all are fine."""
    shapes = pricing.get("shapes", {})
    problems = []
    for gid in gpu_ids:
        shape = shapes.get(gid)
        per_node = shape.get("per_node") if isinstance(shape, dict) else None
        nodes = shape.get("max_nodes") if isinstance(shape, dict) else None
        if not (isinstance(per_node, list) and per_node and all(type(n) is int and 1 <= n <= 64 for n in per_node)
                and per_node == sorted(set(per_node))):
            problems.append(f"shapes[{gid!r}]: 'per_node' must be card counts from 1 to 64 in increasing order, "
                            f"such as [1, 2, 4, 8] (got {per_node!r})")
        if not (type(nodes) is int and 1 <= nodes <= 128):
            problems.append(f"shapes[{gid!r}]: 'max_nodes' must be a whole number of nodes from 1 to 128 (got {nodes!r})")
    return problems


# Checked once, on import: the build stops here with the fix, before any page or browser computes a price.
if _catalog_problems := catalog_problems(_PRICING["options"]) + shape_problems(_PRICING, [g["id"] for g in _data.gpus()]):
    raise CatalogError("calculators/data/catalog.json: " + "; ".join(_catalog_problems))
MEMORY_INPUTS = tuple(dataclasses.replace(i, advanced=i.advanced or i.name not in _MEMORY_SHOWN)
                      for i in memory.INPUTS if i.name not in ("gpus", "gpu"))  # cost has its own card choice
# The form's fieldsets in the order a reader decides (issue 33 item 7): what is trained and how, the run,
# the rental, then what refines the estimate; the reader's own prices last. Within a group, declaration order.
GROUP_ORDER = (memory.G_MODEL, memory.G_METHOD, G_WORK, memory.G_RUN, memory.G_PAR, G_RENT, G_SPEED, G_IDLE,
               G_MEM, G_MEASURED)
INPUTS = tuple(sorted(OWN_INPUTS + MEMORY_INPUTS, key=lambda i: GROUP_ORDER.index(i.group))) + PRICE_INPUTS


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
_PRICE_KEYS = ("runs", "term", "cards", "options", "booking", "booking_margin", "any_count", *QUANTITIES,
               *PRICE_FIELDS.values())
_SPEED_KEYS = tuple(i.name for i in INPUTS if i.name not in _PRICE_KEYS)
_SPEEDS: dict[tuple, dict] = {}   # speed inputs -> {(GPU id, cards, end): (throughput, hours per run)}
# And the reverse: the price of each term for a GPU and card count depends on the options alone.
_OPTION_KEYS = ("options", *QUANTITIES, *PRICE_FIELDS.values())  # the term prices are kept with them
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
        self.shortest = min(self.terms.values(), key=lambda t: t["hours"])
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
        if key not in self.prices:  # kept across answers while the options and the reader's prices stay the same
            self.prices[key] = {tid: (tid, term["hours"], term_price(self.rate(gpu["id"], tid), cards, term, self.options))
                                for tid, term in self.terms.items()}
        return self.prices[key]

    def rate(self, gpu_id: str, term_id: str) -> float | None:
        """Price per card-hour of one GPU for one term (`HOURLY`: on demand): the reader's, else the
        catalog's; None where neither has one (an on-demand price the catalog does not list)."""
        own = self.values[PRICE_FIELDS[gpu_id, term_id]]
        if own > 0:
            return own
        if term_id == HOURLY:
            return _PRICING.get("on_demand_usd_per_card_hour", {}).get(gpu_id)
        return _PRICING["usd_per_card_hour"][gpu_id][term_id]

    def hourly(self, gpu: dict, cards: int) -> tuple | None:
        """On-demand billing of this GPU and card count for `topup_price`, or None without an on-demand price."""
        rate = self.rate(gpu["id"], HOURLY)
        return None if rate is None else hourly_terms(rate, cards, self.shortest, self.options)

    def plan(self, gpu: dict, cards: int, needed: float, term_ids) -> dict:
        """The cheapest plan of these terms: with on-demand hours as a top-up (or alone) when every term
        may be combined, copies of the one term when the reader pinned it."""
        prices = self.term_prices(gpu, cards)
        hourly = self.hourly(gpu, cards) if len(term_ids) == len(self.terms) else None
        items = [prices[tid] for tid in term_ids]
        plan = cheapest_plan(needed, items) if hourly is None else cheapest_mixed(needed, items, hourly)
        return {**plan, **plan_breakdown(plan, lambda tid: self.rate(gpu["id"], tid), cards, self.terms, self.options)}

    def needed(self, gpu: dict, cards: int, end: str = EXPECTED) -> tuple[dict, dict, float]:
        """(throughput, hours per run, hours needed for every output) at one end of the throughput range."""
        key = (gpu["id"], cards, end)
        if end == BOOKED and key not in self.needs:
            v = self.values
            speed, per_run, expected = self.needed(gpu, cards, EXPECTED)
            booked = {LOW: lambda: self.needed(gpu, cards, LOW)[2], EXPECTED: lambda: expected,
                      MARGIN: lambda: expected * (1 + v["booking_margin"])}[v["booking"]]()
            self.needs[key] = speed, per_run, max(booked, expected)  # a low end is never faster than expected
        if key not in self.needs:
            if key not in self.speeds:
                speed = self.throughput(gpu, cards, end)
                self.speeds[key] = speed, self.hours(speed["tokens_per_s"], cards)
            speed, per_run = self.speeds[key]
            self.needs[key] = speed, per_run, self.values["runs"] * per_run["total"]
        return self.needs[key]

    def chosen_plan(self, gpu: dict, cards: int, end: str = BOOKED) -> tuple[dict, dict, float, dict]:
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
        needed = self.needed(gpu, cards, BOOKED)[2]
        hourly = self.hourly(gpu, cards) if len(self.term_ids) == len(self.terms) else None
        if hourly is None:
            floor = max(needed * per_hour, math.ceil(needed / longest - 1e-9) * cheapest)
        else:  # on-demand hours may replace any term: each hour costs at least the cheaper of the two rates
            floor = needed * min(per_hour, hourly[0])
        return (floor + self.options.once) * (1 - 1e-9) / self.values["runs"]

    def fits(self, gpu: dict, cards: int) -> bool:
        return self.budget.fits(gpu, cards)

    def usd_per_output(self, gpu: dict, cards: int, end: str) -> float:
        """What the ranking compares: the chosen plan's price per output (a quote's `usd_per_output`)."""
        return self.chosen_plan(gpu, cards, end)[3]["total_usd"] / self.values["runs"]

    def quote(self, gpu: dict, cards: int) -> dict:
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
            topup_low = topup_price(math.ceil(short - 1e-9), self.hourly(gpu, cards)) if short > 1e-9 else 0.0
        mem = self.budget.memory_per_gpu(cards)
        return {"gpu": gpu["id"], "name": gpu["name"], "cards": cards, **speed, "run_hours": per_run,
                "needed_hours": needed, "booked_hours": booked, "low_end_hours": low,
                "spare_at_low_hours": -short, "topup_at_low_usd": topup_low,
                "plan": chosen["terms"], "plan_hours": chosen["hours"],
                "unused_hours": chosen["hours"] - needed, "total_usd": chosen["total_usd"],
                "gpu_usd": chosen["gpu_usd"], "options_usd": chosen["options_usd"],
                "outputs_fit": max(fit, v["runs"]), "successful_outputs": v["runs"],
                "usd_per_output": chosen["total_usd"] / v["runs"],
                "best_plan": best["terms"], "best_usd_per_output": best["total_usd"] / v["runs"],
                "usd_per_million_tokens": chosen["total_usd"] / (v["runs"] * self.tokens_per_run / 1e6),
                "hourly_usd": hourly, "hourly_usd_per_output": None if hourly is None else hourly / v["runs"],
                "memory_per_gpu_bytes": mem, "fits_memory": self.fits(gpu, cards)}


def card_counts(gpu_id: str, any_count: bool = False) -> tuple[int, ...]:
    """The card counts priced for one GPU: the catalog's shapes (each per-node count, then whole nodes of
    the largest), or `TABLE_CARDS` when the reader allows any count."""
    if any_count:
        return TABLE_CARDS
    shape = _PRICING["shapes"][gpu_id]
    node = shape["per_node"][-1]
    return tuple(shape["per_node"]) + tuple(node * n for n in range(2, shape["max_nodes"] + 1))


def _rank_key(usd_per_output: float, cards: int) -> tuple:
    """How configurations compare: cost per output (to the micro-dollar), then fewer cards."""
    return round(usd_per_output, 6), cards


def _cheapest_configuration(quoter: _Quoter, gpu: dict) -> tuple | None:
    """The rank key of a GPU's cheapest card count that fits, or None when none fits. Card counts
    are priced from the lowest bound up (`least_usd_per_output`), and the search stops once a bound
    is above the cheapest price found: a plan search per card count was most of an answer's time."""
    counts = card_counts(gpu["id"], quoter.values["any_count"])
    bounds = sorted(_rank_key(quoter.least_usd_per_output(gpu, n), n) for n in counts if quoter.fits(gpu, n))
    best = None
    for bound, cards in bounds:
        if best is not None and bound > best[0]:
            break
        key = _rank_key(quoter.usd_per_output(gpu, cards, BOOKED), cards)
        best = key if best is None else min(best, key)
    return best


def estimate(values: dict) -> dict:
    quoter = _Quoter(values)
    gpus = {g["id"]: g for g in _data.gpus()}
    own = gpus[values["gpu"]]
    chosen = quoter.quote(own, values["cards"])
    # Every card count of the chosen GPU that fits, for its table; of each GPU, the cheapest.
    rows = [quoter.quote(own, n) for n in card_counts(own["id"], values["any_count"]) if quoter.fits(own, n)]
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
    nearest = None if chosen["fits_memory"] else _nearest_fit(values, quoter, own, by_gpu)
    edited = [gid for gid in gpus if any(values[PRICE_FIELDS[gid, tid]] > 0 for tid in [*quoter.terms, HOURLY])]
    return {**chosen, "params": quoter.budget.state(1).run.params, "tokens_per_run": quoter.tokens_per_run,
            "nearest_fit": nearest, "prices_edited": edited,
            "pinned": values["term"] != BEST, "illustrative_prices": bool(_PRICING.get("illustrative")),
            "prices_as_of": prices.get("as_of"), "currency": _PRICING.get("currency", "USD"),
            "ranking": ranking, "ranking_low": sensitivity[LOW], "ranking_high": sensitivity[HIGH],
            "ranking_holds": not rivals, "ranking_rival": rivals[0] if rivals else None,
            "best_by_gpu": by_gpu, "options_table": rows}


def _nearest_fit(values: dict, quoter: _Quoter, own: dict, by_gpu: list[dict]) -> dict | None:
    """The configuration nearest the reader's that fits in memory, priced, with what changed ("change"):
    the same cards with a smaller micro-batch, else more cards of the same GPU, else the cheapest GPU that
    fits; None when nothing does."""
    cards, micro = values["cards"], values["micro_batch"] // 2
    while micro >= 1 and values["memory_per_gpu_gb"] <= 0:  # a measured peak does not move with the batch
        smaller = _Quoter({**values, "micro_batch": micro})
        if smaller.fits(own, cards):
            return {**smaller.quote(own, cards), "change": "micro_batch", "micro_batch": micro}
        micro //= 2
    for n in card_counts(own["id"], values["any_count"]):
        if n > cards and quoter.fits(own, n):
            return {**quoter.quote(own, n), "change": "cards", "micro_batch": values["micro_batch"]}
    if by_gpu:
        return {**by_gpu[0], "change": "gpu", "micro_batch": values["micro_batch"]}
    return None


def _status(ok: bool, warn: bool = False):
    return "bad" if not ok else ("warn" if warn else "ok")


def plan_text(plan: list) -> list:
    """A plan as display data: [[count, term label msgid], ...] (the "plan" display unit)."""
    terms = {t["id"]: t["label"] for t in _data.terms()} | {HOURLY: HOURLY_LABEL}
    return [[count, terms[tid]] for tid, count in plan]


def _source(q: dict) -> str:
    # TRANSLATORS: a table cell under "Throughput is": the throughput figure was measured by a pilot run,
    # or estimated by the model. It qualifies "throughput" (gender and number agree with it).
    return N_("measured") if q["measured"] else N_("estimated")


# The columns of the two per-card tables, each in the one order the page and the command line show: the
# price per output and the card count right after the name, so a phone shows what decides before the
# table scrolls sideways; the rest explains the price.
BEST_COLUMNS = [(N_("GPU"), "raw", itemgetter("name")),
                (N_("Per successful output"), "usd", itemgetter("usd_per_output")),
                (N_("Cards"), "count", itemgetter("cards")),
                (N_("Hourly billing, per output"), "usd", itemgetter("hourly_usd_per_output")),
                (N_("Plan"), "plan", lambda q: plan_text(q["plan"])),
                (N_("Unused hours"), "hours", itemgetter("unused_hours")),
                (N_("Throughput"), "tokens_per_s", itemgetter("tokens_per_s")),
                (N_("Low end"), "tokens_per_s", itemgetter("tokens_per_s_low")),
                (N_("High end"), "tokens_per_s", itemgetter("tokens_per_s_high")),
                (N_("Throughput is"), "text", _source)]
# Shown only when the term is pinned: what the cheapest plan would cost instead.
CHEAPEST_PLAN = (N_("Cheapest plan, per output"), "usd", itemgetter("best_usd_per_output"))
OPTION_COLUMNS = [(N_("Cards"), "count", itemgetter("cards")),
                  (N_("Per successful output"), "usd", itemgetter("usd_per_output")),
                  CHEAPEST_PLAN,
                  (N_("Plan price"), "usd", itemgetter("total_usd")),
                  (N_("Plan"), "plan", lambda q: plan_text(q["plan"])),
                  (N_("Hours needed"), "hours", itemgetter("needed_hours")),
                  (N_("Memory per GPU"), "bytes", itemgetter("memory_per_gpu_bytes"))]


def _config(q: dict, micro_batch: int | None = None) -> dict:
    """"2 × H100 SXM 80 GB" (with its micro-batch when that is what changed), as a verdict's phrase."""
    count = {"count": value(q["cards"], "count"), "gpu": q["name"]}
    if micro_batch is None:
        return phrase(N_("{count} × {gpu}"), count)
    return phrase(N_("{count} × {gpu} with micro-batch {micro_batch}"),
                  {**count, "micro_batch": value(micro_batch, "count")})


def _verdict(values: dict, r: dict) -> dict:
    """One sentence first: the cheapest configuration, its price, whether it survives the throughput range,
    and the reader's own choice beside it when that differs (or does not fit)."""
    if not r["ranking"]:
        return verdict(N_("No catalog GPU fits this run in memory at the card counts priced: change the memory "
                          "inputs, or allow any card count."), {}, "bad",
                       short=phrase(N_("No catalog GPU fits this run in memory.")))
    best = r["best_by_gpu"][0]
    names = {g["id"]: g["name"] for g in _data.gpus()}
    params = {"config": _config(best), "plan": value(plan_text(best["plan"]), "plan"),
              "price": value(best["usd_per_output"], "usd"),
              "range": phrase(N_("it stays the cheapest across the throughput range")) if r["ranking_holds"] else
              phrase(N_("at the ends of the throughput range, {rival} may be cheaper"),
                     {"rival": names[r["ranking_rival"]]})}
    status = "ok" if r["ranking_holds"] else "warn"
    # The sticky headline: the cheapest configuration and its price; the rest stays in the result.
    short = phrase(N_("Cheapest: {config}, {price} per successful output."), {k: params[k] for k in ("config", "price")})
    if not r["fits_memory"]:
        near = r["nearest_fit"]
        micro = near["micro_batch"] if near["change"] == "micro_batch" else None
        return verdict(N_("Cheapest: {config} with {plan}, {price} per successful output; {range}. Your choice, {chosen}, "
                          "does not fit in memory; the nearest that fits, {nearest}, costs {nearest_price}."),
                       {**params, "chosen": _config(r), "nearest": _config(near, micro),
                        "nearest_price": value(near["usd_per_output"], "usd")}, "warn", short)
    if (best["gpu"], best["cards"]) != (r["gpu"], r["cards"]):
        return verdict(N_("Cheapest: {config} with {plan}, {price} per successful output; {range}. Your choice, "
                          "{chosen}: {chosen_price}."),
                       {**params, "chosen": _config(r), "chosen_price": value(r["usd_per_output"], "usd")}, status, short)
    return verdict(N_("Cheapest: {config} with {plan}, {price} per successful output; {range}."), params, status, short)


def _booking_note(q: dict) -> tuple[str, dict]:
    """What the booking does at the low end of the throughput range."""
    spare = q["spare_at_low_hours"]
    if spare >= -1e-9:
        return (N_("At the low end of the throughput range this booking covers the job with {hours} to spare."),
                {"hours": value(spare, "hours")})
    if q["topup_at_low_usd"] is None:
        return (N_("At the low end of the throughput range this booking falls {hours} short, and this GPU has no "
                   "on-demand price to top it up."), {"hours": value(-spare, "hours")})
    return (N_("At the low end of the throughput range this booking falls {hours} short; topping it up on demand "
               "costs {usd}."), {"hours": value(-spare, "hours"), "usd": value(q["topup_at_low_usd"], "usd")})


def _display(values: dict, r: dict) -> list[dict]:
    names = {g["id"]: g["name"] for g in _data.gpus()}
    # No headline price for a configuration that does not fit: the nearest one that fits is priced instead.
    q = r if r["fits_memory"] or not r["nearest_fit"] else r["nearest_fit"]
    priced = f"{q['cards']} × {q['name']}"
    # The headline figure first, then which configuration it prices (not always the cheapest, nor the asked one).
    head = [metric(N_("Cost per successful output"), q["usd_per_output"], "usd"),
            metric(N_("Configuration priced") if q is r else N_("Nearest configuration that fits"), priced, "raw",
                   None if q is r else "warn"),
            metric(N_("Reservation plan"), plan_text(q["plan"]), "plan"),
            metric(N_("Plan price"), q["total_usd"], "usd"),
            metric(N_("Hours needed"), q["needed_hours"], "hours"),
            metric(N_("Hours booked"), q["booked_hours"], "hours"),
            metric(N_("Unused hours in the plan"), q["unused_hours"], "hours",
                   _status(True, q["unused_hours"] > 0.5 * q["plan_hours"])),
            metric(N_("Outputs that fit in the plan"), q["outputs_fit"], "count"),
            metric(N_("Throughput"), q["tokens_per_s"], "tokens_per_s"),
            metric(N_("Throughput, low end"), q["tokens_per_s_low"], "tokens_per_s"),
            metric(N_("Throughput, high end"), q["tokens_per_s_high"], "tokens_per_s"),
            metric(N_("Memory per GPU"), q["memory_per_gpu_bytes"], "bytes", _status(q["fits_memory"]))]
    if r["pinned"]:
        head.insert(4, metric(N_("Cheapest plan, per output"), q["best_usd_per_output"], "usd"))
    if q["hourly_usd_per_output"] is not None:
        head.insert(4, metric(N_("Hourly billing, per output"), q["hourly_usd_per_output"], "usd"))
    if not q["fits_memory"]:  # nothing fits: no price is a headline; the memory tile and the notes say why
        priced_tiles = {N_("Cost per successful output"), N_("Plan price"), N_("Cheapest plan, per output"),
                        N_("Hourly billing, per output")}
        head = [m for m in head if m["label"] not in priced_tiles]
    runs, h = values["runs"], q["run_hours"]
    hours = [(N_("Training"), runs * h["train"]), (N_("Checkpoint writes"), runs * h["writes"]),
             (N_("Lost to interruptions"), runs * h["lost"]),
             # TRANSLATORS: a share of the paid hours: loading the environment, data and model (a noun,
             # not a "please wait" message).
             (NP_("hours in the plan", "Loading"), runs * values["load_hours"]), (N_("Validation"), runs * values["validation_hours"]),
             (N_("Checkpoint upload"), runs * values["checkpoint_hours"]),
             # TRANSLATORS: hours of the reserved term that are paid for but not needed.
             (N_("Export"), runs * values["export_hours"]), (NP_("hours in the plan", "Unused"), q["unused_hours"])]
    option_labels = {o["id"]: o["label"] for o in _PRICING["options"]}
    terms = {t["id"]: t["label"] for t in _data.terms()} | {HOURLY: HOURLY_LABEL}
    breakdown = [[terms[tid], v] for tid, v in q["gpu_usd"].items()]
    breakdown += [[option_labels[k], v] for k, v in q["options_usd"].items()]
    # The chosen GPU's card counts; the other GPUs': their cheapest row in BEST_COLUMNS' table.
    option_columns = [c for c in OPTION_COLUMNS if r["pinned"] or c is not CHEAPEST_PLAN]
    note_items = []
    if r["prices_as_of"]:
        note_items.append((N_("Prices as of {date}.") if not r["illustrative_prices"]
                           else N_("Prices as of {date}; they are illustrative: the site owner sets them in the catalog."),
                           {"date": r["prices_as_of"]}))
    if r["prices_edited"]:
        note_items.append((N_("Your own prices replace the site owner's catalog for {gpus}."),
                           {"gpus": ", ".join(names[g] for g in r["prices_edited"])}))
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
        near = r["nearest_fit"]
        if near:
            reason = {"micro_batch": N_("The figures above price the nearest configuration that fits: the same cards "
                                        "with micro-batch {micro_batch}."),
                      "cards": N_("The figures above price the nearest configuration that fits: {count} cards of the "
                                  "same GPU."),
                      "gpu": N_("The figures above price the nearest configuration that fits: the cheapest GPU that "
                                "fits, {count} × {gpu}.")}[near["change"]]
            note_items.append((reason, {"micro_batch": value(near["micro_batch"], "count"),
                                        "count": value(near["cards"], "count"), "gpu": near["name"]}))
    if q["fits_memory"]:
        note_items.append(_booking_note(q))
    mtbf = q["run_hours"]["mtbf_hours"]
    if mtbf is not None and mtbf < values["checkpoint_interval_hours"]:
        note_items.append((N_("With {count} cards the mean time between failures, {mtbf}, is shorter than the "
                              "checkpoint interval, {interval}: most intervals fail before their checkpoint, and the "
                              "hours lost grow exponentially. A shorter interval loses less."),
                           {"count": value(q["cards"], "count"), "mtbf": value(mtbf, "hours"),
                            "interval": value(values["checkpoint_interval_hours"], "hours")}))
    if q["run_hours"]["lost_capped"]:
        note_items.append((N_("At this failure rate a run is not expected to finish: the figures stop counting the hours "
                              "lost to interruptions at {hours}. Lower the failure rate or the checkpoint interval, or "
                              "use fewer cards."), {"hours": value(MAX_LOST_HOURS, "hours")}))
    if values["cards"] > NODE_CARDS:
        note_items.append((NN_("More than {count} card spans several nodes: the efficiency across nodes applies.",
                               "More than {count} cards span several nodes: the efficiency across nodes applies."),
                           {"count": value(NODE_CARDS, "count")}))
    if not r["ranking"]:
        note_items.append((NN_("No catalog GPU fits the memory budget with up to {count} card.",
                               "No catalog GPU fits the memory budget with up to {count} cards."),
                           {"count": value(max(max(card_counts(g["id"], values["any_count"])) for g in _data.gpus()),
                                           "count")}))
    return [
        _verdict(values, r),
        metrics(N_("Cost per successful output"), head),
        bars(N_("Hours in the plan"), "hours", hours),
        table(N_("Price breakdown"), [(N_("Item"), "text"), (N_("Price"), "usd")], breakdown),
        record_table(N_("Cheapest configuration of each GPU"), BEST_COLUMNS, r["best_by_gpu"]),
        record_table(N_("Card counts of this GPU that fit"), option_columns, r["options_table"]),
        notes(note_items),
    ]


def run(values: dict) -> dict:
    result = estimate(values)
    result["display"] = _display(values, result)
    return result
