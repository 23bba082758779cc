"""The reduced accuracy matrix: the memory calculator within 5 % of the tensor peak measured on the
real stack (transformers + peft, CPU). The full matrix is `python -m benchmarks.memory_accuracy`."""
import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

from benchmarks.memory_accuracy import GOAL, QUICK, measure  # noqa: E402

# Child processes and real training: the full suite's (`make test`), not the fast tier's.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("case", QUICK, ids=lambda c: c.name)
def test_estimate_within_goal_of_the_measured_peak(case, tmp_path):
    row = measure(case, tmp_path)
    assert row["relative_error"] is not None, row["reason"]
    assert abs(row["relative_error"]) <= GOAL, row
