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
