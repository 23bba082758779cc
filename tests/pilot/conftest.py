"""Shared fixtures: tiny configurations and the site's validator (`gpuguide.results`) for every produced result."""

from __future__ import annotations

import json
import tempfile

import pytest

from gpuguide import results
from pilot.config import ModelConfig, PilotConfig, TrainConfig

TINY_MODEL = {"layers": 2, "hidden": 32, "heads": 4, "kv_heads": 2, "intermediate": 64, "vocab": 300}


def tiny(**run) -> PilotConfig:
    """A model small enough that a whole pilot run takes about a second on two cores."""
    model = dict(TINY_MODEL, **run.pop("model", {}))
    train = dict({"micro_batch": 2, "seq_len": 16}, **run.pop("train", {}))
    run.setdefault("warmup_steps", 2)
    run.setdefault("steps", 4)
    run.setdefault("threads", 1)
    return PilotConfig(model=ModelConfig(**model), train=TrainConfig(**train), **run)


@pytest.fixture(autouse=True)
def own_temp_folder(tmp_path_factory, monkeypatch):
    """Each test's pilot runs, in this process or a child, keep their workdirs in a temp folder of their
    own. A run removes the workdirs that killed runs left in its temp folder and says so on stderr: in a
    shared /tmp that is whatever another test (or anything else on the machine) left there, and a test
    that counts stderr's lines would read that line as its own."""
    folder = tmp_path_factory.mktemp("TMPDIR")  # beside tmp_path, which some tests expect to find empty
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again


@pytest.fixture(scope="session")
def validate():
    def check(data):
        text = json.dumps(data) if isinstance(data, dict) else data.to_json()
        parsed, problems = results.parse(text)
        assert not problems, problems
        return parsed

    return check


def checkpointed_reference(cfg: PilotConfig, workdir):
    """Three steps, a checkpoint, two more steps: the reference a fresh process must reproduce."""
    import torch

    from pilot import restore
    from pilot.trainer import Trainer

    trainer = Trainer(cfg, torch.device("cpu"))
    losses = [trainer.step()[0] for _ in range(3)]
    ref, _ = restore.write_checkpoint(trainer, workdir / "checkpoint.pt")
    losses += [trainer.step()[0] for _ in range(2)]
    restore.finish_reference(ref, trainer, losses[3:])
    return cfg, ref, workdir
