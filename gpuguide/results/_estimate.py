"""Measured (or traced) peak memory against the memory calculator's estimate for the same configuration."""

from __future__ import annotations

from dataclasses import dataclass, field

from calculators.memory import COMPONENT_LABELS
from calculators.pilot_inputs import relative_error, tensor_peak
from guidekit.l10n import N_

# The memory calculator's own component labels (msgids).
COMPONENTS = COMPONENT_LABELS
STRATEGIES = {
    "none": N_("One process"),
    "ddp": "DDP",
    "zero1": "ZeRO-1",
    "zero2": "ZeRO-2",
    "fsdp": "FSDP",
    "fsdp_ckpt": N_("FSDP with gradient checkpointing"),
}


@dataclass
class Comparison:
    strategy: str
    world: int
    measured: int | None  # or traced, in a trace
    estimated: int | None = None
    components: dict[str, int] = field(default_factory=dict)
    traced: bool = False  # `measured` is a trace's peak (gpu-pilot trace), not a measurement

    @property
    def error(self) -> float | None:
        return relative_error(self.estimated, self.measured)


def _estimate(data: dict, strategy: str, world: int, micro_batch: int | None, measured) -> Comparison:
    row = Comparison(strategy, world, measured)
    answer = tensor_peak(data["config"], data["environment"]["device_type"], strategy, world, micro_batch)
    if answer["ok"]:
        row.estimated, row.components = answer["estimated_bytes"], answer["components"]
    return row


def comparisons(data: dict) -> list[Comparison]:
    """One row per measured configuration: the run itself, or the scaling baseline and each strategy; a
    trace's one row holds its traced peak (on the CPU, against the CPU estimate)."""
    scaling, memory = data.get("scaling"), data.get("memory")
    if data.get("trace"):
        row = _estimate(data, "none", 1, None, data["trace"]["peak_bytes"])
        row.traced = True
        return [row]
    if scaling:
        runs = [scaling["baseline"], *scaling["runs"]]
        return [_estimate(data, r["strategy"], r["world_size"], r["micro_batch"], r["peak_tensor_bytes"]) for r in runs]
    if memory:
        return [_estimate(data, "none", 1, None, memory["peak_tensor_bytes"])]
    return []
