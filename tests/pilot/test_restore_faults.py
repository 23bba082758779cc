"""Each planted restore fault makes the fresh-process check fail, with a reason naming the part."""

import pytest
import torch

from pilot import restore
from pilot.checkpoint import FAULTS, restore_training_state

from .conftest import checkpointed_reference, tiny

# Child processes and real training: the full suite's (`make test`), not the fast tier's.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    # Dropout makes the continuation consume the torch RNG, as real training may.
    cfg = tiny(model={"dropout": 0.1}, steps=3)
    return checkpointed_reference(cfg, tmp_path_factory.mktemp("faults"))


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (None, None),
        ("drop_optimizer", "optimizer not restored: "),
        ("reset_scheduler", "scheduler not restored: "),  # detail checked below
        ("lose_data_position", "data_position not restored: 1 of 2 entries differ (first: batch: expected 3, got 0)"),
        ("skip_rng:python", "rng.python not restored"),
        ("skip_rng:numpy", "rng.numpy not restored"),
        ("skip_rng:torch_cpu", "rng.torch_cpu not restored"),
    ],
)
def test_fault_is_caught_precisely(reference, fault, reason):
    cfg, ref, workdir = reference
    check = restore.verify(cfg, torch.device("cpu"), ref, workdir, fault=fault)
    if reason is None:
        assert check.passed and not check.failures
        assert len(check.checks) == len(check.verified) and all(c["passed"] for c in check.checks)
        return
    assert not check.passed
    assert check.failures[0].startswith(reason), check.failures
    # The same finding as data, for the site to word in the reader's language.
    state = [c for c in check.checks if c["check"] == "state" and not c["passed"]]
    assert {c["component"] for c in state} == {reason.split(" ", 1)[0]}, check.checks
    # Only the planted part fails the state comparison.
    assert sum("not restored" in f for f in check.failures) == 1, check.failures
    if fault == "reset_scheduler":
        assert "last_epoch: expected 3, got 0" in check.failures[0]
    if fault in ("drop_optimizer", "reset_scheduler", "lose_data_position"):
        # These change the training itself, so the continued run differs too.
        assert any(f.startswith("final parameters differ") for f in check.failures), check.failures


def test_every_fault_but_the_gpu_one_is_planted_above_and_a_misspelt_one_is_refused():
    planted = {f for f, _ in test_fault_is_caught_precisely.pytestmark[0].args[1] if f}
    assert planted == set(FAULTS) - {"skip_rng:torch_cuda"}  # the CUDA generator needs a GPU
    with pytest.raises(ValueError, match="unknown restore fault 'drop_optimiser'"):
        restore_training_state(None, {}, fault="drop_optimiser")


def test_missing_checkpoint_is_reported(reference, tmp_path):
    cfg, ref, _ = reference
    broken = restore.Reference(tmp_path / "absent.pt", ref.step, ref.state, ref.losses, ref.final)
    check = restore.verify(cfg, torch.device("cpu"), broken, tmp_path)
    assert not check.passed and "could not resume" in check.failures[0]
    assert [(c["check"], c["passed"]) for c in check.checks] == [("resume", False)] and check.checks[0][
        "exit_code"
    ] != 0


def test_the_restore_shows_progress(reference, capsys):
    cfg, ref, workdir = reference
    assert restore.verify(cfg, torch.device("cpu"), ref, workdir, show=True).passed
    err = capsys.readouterr().err
    assert "restore: 100%" in err and "3/3" in err  # one tick for the restore, one per resumed step
