"""The reduced accuracy matrix: the memory calculator within 5 % of the tensor peak measured on the
real stack (transformers + peft, CPU). The full matrix is `python -m benchmarks.memory_accuracy`."""

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

from benchmarks.memory_accuracy import FAMILY_QUICK, GOAL, QUICK, measure  # noqa: E402

# Child processes and real training: the full suite's (`make test`), not the fast tier's.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("case", QUICK, ids=lambda c: c.name)
def test_estimate_within_goal_of_the_measured_peak(case, tmp_path):
    row = measure(case, tmp_path)
    assert row["relative_error"] is not None, row["reason"]
    assert abs(row["relative_error"]) <= GOAL, row


@pytest.mark.parametrize("case", FAMILY_QUICK, ids=lambda c: c.name)
def test_each_family_added_with_transformers_5_is_estimated_within_goal(case, tmp_path):
    """Qwen3, Gemma 2 and 3, Mixtral, Qwen2-MoE, Qwen3-MoE and OLMoE, each a few seconds: LoRA on a mixture
    of experts both on its routed experts (peft's target_parameters) and on the attention only."""
    row = measure(case, tmp_path)
    assert row["relative_error"] is not None, row["reason"]
    assert abs(row["relative_error"]) <= GOAL, row


def test_the_wide_shapes_stored_peaks_against_todays_estimate(tmp_path):
    """Issue 52 item 9: three layers, a wide MLP, a small vocabulary and 2 x 1,024 tokens, whose SGD runs with
    checkpointing read 13 % (fp32) and 15 % (bf16 autocast) under the real CPU peak when the model counted the
    backward pass's start only. The stored measurements (benchmarks/results/memory_accuracy.json), re-estimated
    now, without training again: the first block's backward is the peak, within 2 %."""
    import json

    from benchmarks.memory_accuracy import DEFAULT_JSON, reestimate

    rows = [r for r in json.loads(DEFAULT_JSON.read_text(encoding="utf-8"))["rows"] if r["family"] == "llama-wide"]
    assert {(r["method"], r["optimizer"], r["autocast"]) for r in rows} == {
        ("full", "sgd", False),
        ("full", "sgd", True),
        ("lora", "adamw", True),
    }
    for row in reestimate(rows, tmp_path):
        assert row["estimated_bytes"] is not None and abs(row["relative_error"]) <= 0.02, row
