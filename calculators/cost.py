"""The cost calculator: a fixed-term rental priced against the work it must finish.

The memory budget is not a single number: the calculator takes the memory
calculator's own inputs (declared once, in ``memory.INPUTS``, reused here) and
evaluates them for every GPU and card count, so sharded runs (ZeRO/FSDP) need less
per card as cards are added. A measured figure (``memory_per_gpu_gb``, e.g. the
pilot's peak) replaces the estimate when given. Formulas: ``_cost_model``.
"""

from __future__ import annotations

import dataclasses

from . import _data, memory
from ._cost_model import cluster_tokens_per_s, derived_tokens_per_s, per_output, price, schedule
from ._display import bars, metric, metrics, notes, table, value
from ._errors import error
from ._i18n import N_
from ._inputs import Choice, Input
from ._memory_model import unsharded

NAME = "cost"
TITLE = N_("Fixed-term rental cost")

G_RENT, G_WORK, G_SPEED = N_("Rental"), N_("Workload"), N_("Throughput")
G_IDLE, G_MEM = N_("Hours that do not train"), N_("Memory budget")
TABLE_CARDS = (1, 2, 4, 8)
MIN_THROUGHPUT = 0.01
_MEMORY_SHOWN = {"model", "method", "parallelism"}  # the rest of the memory inputs start collapsed
_PRICING = _data.catalog()["pricing"]


def _hours(name, default, label, help_=""):
    return Input(name, "float", default, label, help_, unit="hours", min=0, max=100000, step=0.1, group=G_IDLE)


# The workload is given one way or the other (see Input.only_when).
BY_TOKENS = ("workload", ("tokens",))
BY_STEPS = ("workload", ("steps",))

OWN_INPUTS = (
    Input("gpu", "choice", "h200-141gb", N_("GPU"),
          choices=tuple(Choice(g["id"], g["name"]) for g in _data.gpus()), group=G_RENT),
    Input("cards", "int", 1, N_("Cards"), unit="count", min=1, max=1024, group=G_RENT),
    Input("term", "choice", "1w", N_("Term"), choices=tuple(Choice(t["id"], t["label"]) for t in _data.terms()),
          group=G_RENT),
    Input("options", "multichoice", ["checkpoint_storage"], N_("Options"),
          choices=tuple(Choice(o["id"], o["label"]) for o in _PRICING["options"]), group=G_RENT),
    Input("storage_tb", "float", 1.0, N_("Checkpoint storage"), unit="tb", min=0, max=10000, step=0.1,
          group=G_RENT, advanced=True),
    Input("scratch_tb", "float", 2.0, N_("Extra scratch"), unit="tb", min=0, max=10000, step=0.1,
          group=G_RENT, advanced=True),
    Input("egress_tb", "float", 0.5, N_("Data moved out"), unit="tb", min=0, max=10000, step=0.1,
          group=G_RENT, advanced=True),
    Input("workload", "choice", "tokens", N_("Workload given as"),
          choices=(Choice("tokens", N_("Tokens × epochs")), Choice("steps", N_("Steps × tokens per step"))),
          group=G_WORK),
    Input("tokens", "float", 2e8, N_("Training tokens per epoch"), unit="tokens", min=1, max=1e15, group=G_WORK, only_when=BY_TOKENS),
    Input("epochs", "float", 3.0, N_("Epochs"), unit="number", min=0.01, max=1000, step=0.1, group=G_WORK, only_when=BY_TOKENS),
    Input("steps", "int", 1000, N_("Optimizer steps"), unit="count", min=1, max=10**9, group=G_WORK, only_when=BY_STEPS),
    Input("tokens_per_step", "int", 65536, N_("Tokens per step (global batch)"), unit="tokens", min=1,
          max=10**10, group=G_WORK, only_when=BY_STEPS),
    Input("runs", "int", 1, N_("Complete runs required"),
          N_("For example several seeds or a small sweep; each run trains the whole workload."),
          unit="count", min=1, max=1000, group=G_WORK),
    Input("throughput_per_gpu", "float", 0.0, N_("Measured throughput per GPU"),
          N_("0 derives it from the GPU's bf16 rate and the utilization below; enter the pilot's figure when you have it."),
          unit="tokens_per_s", min=0, max=1e9, group=G_SPEED, optional=True),
    Input("utilization", "float", 0.35, N_("Share of peak bf16 rate achieved"), unit="percent", min=0.01,
          max=1, step=0.01, group=G_SPEED),
    Input("scaling_efficiency", "float", 0.9, N_("Scaling efficiency"),
          N_("Throughput of N cards divided by N times one card."), unit="percent", min=0.01, max=1,
          step=0.01, group=G_SPEED),
    _hours("load_hours", 0.5, N_("Loading per run"), N_("Environment, data and model loading.")),
    _hours("validation_hours", 0.5, N_("Validation per run")),
    _hours("checkpoint_hours", 0.5, N_("Checkpoint upload per run")),
    _hours("export_hours", 0.5, N_("Export per run")),
    _hours("restart_hours", 2.0, N_("Restart allowance per term")),
    Input("memory_per_gpu_gb", "float", 0.0, N_("Measured memory per GPU"),
          N_("0 estimates it from the memory inputs for each card count."), unit="gb", min=0, max=100000,
          group=G_MEM, optional=True),
)
MEMORY_INPUTS = tuple(dataclasses.replace(i, advanced=i.advanced or i.name not in _MEMORY_SHOWN)
                      for i in memory.INPUTS if i.name != "gpus")
INPUTS = OWN_INPUTS + MEMORY_INPUTS


def prepare(values: dict) -> dict:
    return memory.prepare(values)


def _memory_values(values: dict, cards: int) -> dict:
    """Memory inputs for a card count; "one GPU" becomes replicated DDP beyond one card."""
    out = {i.name: values[i.name] for i in MEMORY_INPUTS}
    out["gpus"] = cards
    if out["parallelism"] == "single" and cards > 1:
        out["parallelism"] = "ddp"
    return out


def check(values: dict) -> list[dict]:
    errors = [e for e in memory.check(_memory_values(values, 1))]
    if 0 < values["throughput_per_gpu"] < MIN_THROUGHPUT:
        errors.append(error("throughput_per_gpu", "out_of_range", min=MIN_THROUGHPUT, max=1e9))
    return errors


class _MemoryBudget:
    """Memory per GPU for any card count, from one or two memory-model evaluations."""

    def __init__(self, values: dict):
        self.measured = values["memory_per_gpu_gb"] * 1e9
        self.values, self.states = values, {}

    def per_gpu(self, cards: int) -> int:
        if self.measured > 0:
            return round(self.measured)
        mv = _memory_values(self.values, cards)
        if mv["parallelism"] not in self.states:
            self.states[mv["parallelism"]] = unsharded(memory.build_run(mv))
        return self.states[mv["parallelism"]].per_gpu(cards)["total"]


def _tokens_per_run(values: dict) -> float:
    if values["workload"] == "steps":
        return float(values["steps"] * values["tokens_per_step"])
    return values["tokens"] * values["epochs"]


def _per_gpu_throughput(values: dict, gpu: dict, params: int) -> float:
    """Measured throughput (on the chosen GPU) scales to other GPUs by their bf16 rates."""
    if values["throughput_per_gpu"] > 0:
        chosen = _data.gpu(values["gpu"])
        return values["throughput_per_gpu"] * gpu["bf16_dense_tflops"] / chosen["bf16_dense_tflops"]
    return derived_tokens_per_s(gpu, values["utilization"], params, values["method"],
                                values["gradient_checkpointing"])


def quote(values: dict, gpu: dict, cards: int, budget: _MemoryBudget, params: int) -> dict:
    """Everything about one (GPU, card count, term) choice."""
    term = next(t for t in _data.terms() if t["id"] == values["term"])
    tokens_per_run = _tokens_per_run(values)
    per_gpu_tps = _per_gpu_throughput(values, gpu, params)
    tps = cluster_tokens_per_s(per_gpu_tps, cards, values["scaling_efficiency"])
    overhead_per_run = sum(values[k] for k in ("load_hours", "validation_hours", "checkpoint_hours",
                                               "export_hours"))
    sched = schedule(tokens_per_run, values["runs"], tps, overhead_per_run, values["restart_hours"],
                     term["hours"])
    quantities = {k: values[k] for k in ("storage_tb", "scratch_tb", "egress_tb")}
    cost = price(_PRICING, gpu["id"], cards, term, values["options"], quantities)
    mem = budget.per_gpu(cards)
    fit = memory.fits(mem, gpu, values["margin"])
    return {"gpu": gpu["id"], "name": gpu["name"], "cards": cards, "term": term["id"],
            "tokens_per_run": tokens_per_run, "tokens_per_s_per_gpu": per_gpu_tps, "tokens_per_s": tps,
            **sched, **cost, **per_output(cost["total_usd"], sched["completed_runs"], tokens_per_run),
            "memory_per_gpu_bytes": mem, "fits_memory": fit["fits"], "memory_headroom_bytes": fit["headroom_bytes"]}


def estimate(values: dict) -> dict:
    params = memory.build_run(_memory_values(values, 1)).params
    budget = _MemoryBudget(values)
    chosen = quote(values, _data.gpu(values["gpu"]), values["cards"], budget, params)
    table_rows = [q for g in _data.gpus() for n in TABLE_CARDS
                  if (q := quote(values, g, n, budget, params))["fits_memory"]]
    return {**chosen, "params": params, "illustrative_prices": bool(_PRICING.get("illustrative")),
            "currency": _PRICING.get("currency", "USD"), "options_table": table_rows}


def _status(ok: bool, warn: bool = False):
    return "bad" if not ok else ("warn" if warn else "ok")


def _display(values: dict, r: dict) -> list[dict]:
    head = [metric(N_("Total price"), r["total_usd"], "usd"),
            metric(N_("Hours needed"), r["needed_hours"], "hours", _status(r["finishes"])),
            metric(N_("Margin left in the term"), r["margin_hours"], "hours",
                   _status(r["finishes"], r["margin_fraction"] < 0.1)),
            metric(N_("Completed runs"), r["completed_runs"], "count", _status(r["completed_runs"] > 0)),
            metric(N_("Memory per GPU"), r["memory_per_gpu_bytes"], "bytes", _status(r["fits_memory"]))]
    if r["usd_per_run"] is not None:
        head[4:4] = [metric(N_("Cost per million trained tokens"), r["usd_per_million_tokens"], "usd"),
                     metric(N_("Cost per completed run"), r["usd_per_run"], "usd")]
    runs = values["runs"]
    hours = [(N_("Training"), r["productive_hours"]),
             (N_("Loading"), runs * values["load_hours"]), (N_("Validation"), runs * values["validation_hours"]),
             (N_("Checkpoint upload"), runs * values["checkpoint_hours"]),
             (N_("Export"), runs * values["export_hours"]), (N_("Restart allowance"), values["restart_hours"]),
             (N_("Unused"), max(0.0, r["margin_hours"]))]
    option_labels = {o["id"]: o["label"] for o in _PRICING["options"]}
    breakdown = [[N_("GPU time"), r["gpu_usd"]]] + [[option_labels[k], v] for k, v in r["options_usd"].items()]
    rows = [[q["name"], q["cards"], q["memory_per_gpu_bytes"], q["needed_hours"], q["finishes"], q["total_usd"],
             q["usd_per_million_tokens"], q["usd_per_run"]] for q in r["options_table"]]
    note_items = [(N_("Prices are illustrative; the site owner sets them in the catalog."), {})]
    if not r["fits_memory"]:
        note_items.append((N_("The run does not fit in {gpu} memory with this card count and headroom."),
                           {"gpu": r["name"]}))
    if not r["finishes"]:
        note_items.append((N_("The work needs {needed} but the term has {term}."),
                           {"needed": value(r["needed_hours"], "hours"), "term": value(r["term_hours"], "hours")}))
    if not rows:
        note_items.append((N_("No catalog GPU fits the memory budget with up to {count} cards."),
                           {"count": value(max(TABLE_CARDS), "count")}))
    return [
        metrics(N_("Fixed-term price"), head),
        bars(N_("Hours in the term"), "hours", hours),
        table(N_("Price breakdown"), [(N_("Item"), "text"), (N_("Price"), "usd")], breakdown),
        table(N_("Every GPU and card count that fits"),
              [(N_("GPU"), "raw"), (N_("Cards"), "count"), (N_("Memory per GPU"), "bytes"),
               (N_("Hours needed"), "hours"), (N_("Finishes in the term"), "bool"), (N_("Total price"), "usd"),
               (N_("Per million tokens"), "usd"), (N_("Per completed run"), "usd")], rows),
        notes(note_items),
    ]


def run(values: dict) -> dict:
    result = estimate(values)
    result["display"] = _display(values, result)
    return result
