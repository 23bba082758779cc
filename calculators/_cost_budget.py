"""The memory side of every cost quote: the memory calculator's run for each parallelism mode a card
count takes, the memory per GPU and whether it fits, and the work of one optimizer step; kept across
answers while the memory inputs stay the same (on the cost page a reader mostly edits the rental and
the workload)."""

from __future__ import annotations

from typing import Any

from guidekit.calc import kept, key_of

from . import _cost_model, memory
from ._cost_inputs import MEMORY_INPUTS
from ._cost_model import StepWork
from ._memory_model import Unsharded, unsharded


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


def tokens_per_step(values: dict[str, Any]) -> int:
    """The global batch in tokens: micro-batches are accumulated up to it, and the optimizer step and
    the gradient exchange happen once per global batch, whichever way the workload is given."""
    if values["workload"] == "steps":
        per_step: int = values["tokens_per_step"]
        return per_step
    sequences: int = values["global_batch"]
    seq_len: int = values["seq_len"]
    return sequences * seq_len
