"""Estimate vs measured: what the calculators' memory model predicts for this very run.

Kept apart from the rest so the pilot still runs, recording the estimate as absent with the
reason, wherever the calculators package is missing or refuses the inputs.
"""

from __future__ import annotations

from .config import PilotConfig
from .report import Estimate


def compare(
    cfg: PilotConfig, measured_bytes: int | None, device_type: str, world: int = 1, strategy: str = "none"
) -> Estimate:
    try:
        from calculators.pilot_inputs import relative_error, tensor_peak

        answer = tensor_peak(cfg.to_dict(), device_type, strategy, world)
    except Exception as exc:  # noqa: BLE001 - an estimate failure must never cost the measurement
        return Estimate(
            False, f"calculators unavailable: {type(exc).__name__}: {exc}", None, None, None, measured_bytes, None
        )
    if not answer["ok"]:
        reason = "calculators refused the inputs: " + ", ".join(f"{e['field']}={e['code']}" for e in answer["errors"])
        return Estimate(False, reason, answer["inputs"], None, None, measured_bytes, None)
    total = answer["estimated_bytes"]
    return Estimate(
        True, None, answer["inputs"], answer["components"], total, measured_bytes, relative_error(total, measured_bytes)
    )
