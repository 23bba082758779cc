"""The CPU tensor peak is exact: it agrees with PyTorch's MemTracker to the byte."""

import pytest
import torch
from torch.distributed._tools.mem_tracker import MemTracker

from pilot.memory import LiveTensorTracker
from pilot.trainer import Trainer

from .conftest import tiny


def _three_steps(trainer):
    for _ in range(3):
        trainer.step()


@pytest.mark.slow  # real training steps
@pytest.mark.parametrize("train", [{}, {"grad_checkpointing": True, "precision": "bf16", "optimizer": "sgd"}])
def test_tracker_matches_memtracker(train):
    cfg = tiny(train=train)
    ours = Trainer(cfg, torch.device("cpu"))
    tracker = LiveTensorTracker()
    tracker.ignore(ours.tokens)
    tracker.track(list(ours.module.parameters()), list(ours.module.buffers()))
    with tracker:
        _three_steps(ours)
    theirs = Trainer(cfg, torch.device("cpu"))
    mt = MemTracker()
    mt.track_external(theirs.module, theirs.optimizer)
    with mt:
        for _ in range(3):
            theirs.step()
            mt.reset_mod_stats()
    assert tracker.peak == mt.get_tracker_snapshot("peak")[torch.device("cpu")]["Total"]


def test_limit_raises_out_of_memory():
    with pytest.raises(torch.OutOfMemoryError, match="exceed the limit of 1000"):
        with LiveTensorTracker(limit_bytes=1000):
            torch.zeros(1000)
