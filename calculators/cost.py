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

This module is the calculator the registry runs: its check, its display (the verdict, the metrics,
the tables and the notes) and ``run``. Its inputs are declared in ``_cost_inputs``; the quotes come
from the engine in ``_cost_quote`` (formulas in ``_cost_model`` and ``_cost_plans``), the answer and
its ranking from ``_cost_rank``; the catalog's prices are checked by ``_prices.check_catalog`` (the
build and a test run it).
"""

from __future__ import annotations

from typing import Any

from guidekit.calc import Carry, error
from guidekit.l10n import N_

from . import _data, memory
from ._cost_budget import memory_values
from ._cost_display import display
from ._cost_inputs import BEST, G_IDLE, G_MEM, G_RENT, G_SPEED, G_WORK, INPUTS, MIN_INTERVAL
from ._cost_own_inputs import G_MEASURED, G_PRICES, MEASURED_FIELDS, TABLES, measured_field
from ._cost_quote import offered
from ._cost_rank import estimate
from ._cost_speed_notes import STACK_SHORT
from ._cost_verdict import plan_text

# What the registry, the other modules and the tests read here; the inputs and the engine's answer
# (`estimate`) come from their own modules.
__all__ = [
    "STACK_SHORT",
    "TABLES",
    "G_IDLE",
    "G_MEASURED",
    "G_MEM",
    "G_PRICES",
    "G_RENT",
    "G_SPEED",
    "G_WORK",
    "INPUTS",
    "MEASURED_FIELDS",
    "NAME",
    "TITLE",
    "check",
    "estimate",
    "measured_field",
    "plan_text",
    "prepare",
    "run",
]

NAME = "cost"
TITLE = N_("Fixed-term rental cost")
# A pilot result dropped on the form is read by this guide's import panels (its measured speeds).
IMPORTER = "gpuguide.results"
FOOTNOTE = N_("GB = 10⁹ bytes. Prices in US dollars; the notes under the answer say where they come from.")
# The same job's memory in detail: the memory page's form takes this one's model, method and run.
CARRY = (Carry("memory", N_("Check this job's memory"), rename=(("cards", "gpus"),)),)


# A model preset fills the same dimension fields as on the memory page.
prepare = memory.prepare


def check(values: dict[str, Any]) -> list[dict[str, Any]]:
    errors = [e for e in memory.check(memory_values(values, 1))]
    # A zero interval is meaningless once checkpoints take time or failures lose work.
    if (values["failures_per_100h"] > 0 or values["checkpoint_write_s"] > 0) and values[
        "checkpoint_interval_hours"
    ] <= 0:
        errors.append(error("checkpoint_interval_hours", "out_of_range", min=MIN_INTERVAL, max=100000))
    errors += _offered_errors(values)
    return errors


def _offered_errors(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The chosen GPU must be rentable at the reader's prices (0: not offered): on the term they pinned, or on
    some term or by the hour. Other GPUs without a price simply leave the ranking."""
    gid, term = values["gpu"], values["term"]
    name = next(g["name"] for g in _data.gpus() if g["id"] == gid)
    if term != BEST and not offered(values, gid, [term]):
        return [error("term", "term_not_offered", gpu=name)]
    if term == BEST and not offered(values, gid, [t["id"] for t in _data.terms()]):
        return [error("gpu", "gpu_not_offered", gpu=name)]
    return []


def run(values: dict[str, Any]) -> dict[str, Any]:
    result = estimate(values)
    result["display"] = display(values, result)
    return result
