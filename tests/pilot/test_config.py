"""Config dataclasses refuse bad values with the option's dotted name and the value received."""

import json

import pytest

from pilot.cli import _parser, config_from_args
from pilot.config import ModelConfig, PilotConfig, TrainConfig


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TrainConfig(micro_batch=0), "train.micro_batch must be an integer between 1 and 65536 (got 0)"),
        (lambda: TrainConfig(precision="fp8"), "train.precision must be one of 'fp32', 'bf16' (got 'fp8')"),
        (lambda: TrainConfig(lora_targets="q,x"), "train.lora_targets must be one of"),
        (
            lambda: ModelConfig(hidden=30, heads=4),
            "model.hidden must be divisible by model.heads (got hidden=30, heads=4)",
        ),
        (lambda: ModelConfig(heads=4, kv_heads=3), "model.kv_heads must divide model.heads"),
        (lambda: ModelConfig(source="/no/such/dir"), "a preset (llama-3.2-1b, "),
        (lambda: ModelConfig(source="/no/such/dir"), "or an existing directory (got '/no/such/dir')"),
        (lambda: PilotConfig(warmup_steps=1), "run.warmup_steps must be an integer between 2 and 100000 (got 1)"),
        (lambda: PilotConfig(device="tpu"), "run.device must be one of"),
        (lambda: PilotConfig.from_dict({"train": {"batch": 3}}), "unknown option train.batch"),
        (lambda: PilotConfig.from_dict({"stepz": 3}), "unknown option run.stepz"),
    ],
)
def test_bad_values_name_the_option(build, message):
    with pytest.raises(ValueError) as err:
        build()
    assert message in str(err.value)


def test_flags_override_a_toml_file(tmp_path):
    path = tmp_path / "pilot.toml"
    path.write_text('steps = 7\n[train]\nmethod = "lora"\nmicro_batch = 3\n[model]\nlayers = 3\n', encoding="utf-8")
    args = _parser().parse_args(["run", "--config", str(path), "--micro-batch", "5", "--grad-checkpointing"])
    cfg = config_from_args(args)
    assert (cfg.steps, cfg.train.method, cfg.train.micro_batch, cfg.model.layers) == (7, "lora", 5, 3)
    assert cfg.train.grad_checkpointing is True
    assert PilotConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
