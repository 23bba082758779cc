"""The memory model against the pilot's exact peak of live tensors, on a tiny model on the CPU.

The full 12-configuration matrix is `python -m benchmarks.pilot_estimate_matrix`; this keeps a
few of its cases in the suite (skipped where PyTorch is not installed).
"""

import pytest

pytest.importorskip("torch")

from pilot.config import ModelConfig, PilotConfig, TrainConfig  # noqa: E402
from pilot.data import load_tokens  # noqa: E402
from pilot.estimate import compare  # noqa: E402
from pilot.runner import fits  # noqa: E402
from pilot.trainer import resolve_device  # noqa: E402

MODEL = ModelConfig(layers=2, hidden=64, heads=4, kv_heads=2, intermediate=176, vocab=1024)


@pytest.mark.parametrize("method, precision, ckpt, micro_batch, seq_len", [
    ("full", "fp32", False, 2, 64),   # peaks in the optimizer step
    ("full", "fp32", False, 8, 128),  # peaks at the start of the backward pass
    ("full", "bf16", True, 4, 64),
    ("lora", "bf16", True, 4, 128),
])
def test_estimate_within_five_percent_of_the_measured_peak(method, precision, ckpt, micro_batch, seq_len):
    cfg = PilotConfig(model=MODEL, train=TrainConfig(method=method, precision=precision, grad_checkpointing=ckpt,
                                                     micro_batch=micro_batch, seq_len=seq_len),
                      device="cpu", restore_check=False)
    _, measured = fits(cfg, resolve_device("cpu"), load_tokens(cfg.data, cfg.model, seq_len, cfg.seed))
    estimate = compare(cfg, measured, "cpu")
    assert estimate.calculator_inputs["optimizer_impl"] == "single_tensor"
    assert abs(estimate.relative_error) <= 0.05, (measured, estimate.estimated_bytes)
