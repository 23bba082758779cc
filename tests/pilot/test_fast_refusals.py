"""Precise refusals before torch is imported (seconds of imports saved on every mistake): the output,
the workdir, the options and the model's config.json. Each runs the CLI in a fresh interpreter and
checks that torch was never imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from calculators.hf_config import SUPPORTED
from pilot import cli

from .test_failures import TINY_FLAGS, read_only_dir  # noqa: F401 - a fixture

CONFIGS = Path(__file__).parents[1] / "fixtures" / "hf-configs"
PROBE = "import sys\nfrom pilot import cli\ncode = cli.main(sys.argv[1:])\nprint('torch' in sys.modules, code)\n"
FAMILIES = "supported: " + ", ".join(SUPPORTED)


def _cli(*args: str) -> tuple[bool, int, str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300)
    imported, code = done.stdout.split()
    return imported == "True", int(code), done.stderr


def _made_up(folder: Path) -> Path:
    spec = json.loads((CONFIGS / "llama-tiny.json").read_text(encoding="utf-8"))
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**spec, "model_type": "made_up_family"}), encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", ["config", "directory"])
def test_an_unknown_model_type_is_one_short_line_naming_the_families(tmp_path, how):
    """Before: transformers' own error, one 11,686-character line listing every model type it knows,
    after the imports (and for a directory, only once transformers had read it)."""
    folder = _made_up(tmp_path / "model")
    args = ["--model-config", str(folder / "config.json")] if how == "config" else ["--model", str(folder)]
    imported, code, err = _cli("run", *args, "-o", str(tmp_path / "r.json"))
    assert (imported, code) == (False, 1)
    assert err.count("\n") == 1 and len(err) < 500, err  # the path, and the 11 model types by name
    assert f"model {folder / 'config.json'}: model type 'made_up_family' is not supported ({FAMILIES})" in err


def test_a_preset_the_pilot_cannot_run_is_refused_naming_those_it_runs(monkeypatch):
    """Every shipped preset is of a model type the pilot runs; one that is not (here, a type the reader
    forgets) is refused naming those it runs."""
    import calculators.hf_config as reader
    from pilot.config import ModelConfig

    monkeypatch.delitem(reader.MODEL_TYPES, "gemma2")
    with pytest.raises(
        ValueError,
        match="model.source 'gemma-2-9b' is a gemma2 model, a family the pilot does not "
        "run yet; it runs: llama-3.2-1b.*qwen2.5-7b",
    ):
        ModelConfig(source="gemma-2-9b")


def test_help_offers_every_preset_the_pilot_runs(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "presets: llama-3.2-1b, llama-3.2-3b" in text and "gemma-2-9b" in text and "mixtral-8x7b" in text


def test_a_read_only_workdir_is_refused_before_torch(tmp_path, read_only_dir):  # noqa: F811
    """Before: an existing read-only --workdir was found when the checkpoint was written, after training."""
    imported, code, err = _cli("run", *TINY_FLAGS, "--workdir", str(read_only_dir), "-o", str(tmp_path / "r.json"))
    assert (imported, code) == (False, 5)
    assert err.startswith(f"gpu-pilot: error: cannot write to the workdir {read_only_dir}") and err.count("\n") == 1
    assert list(tmp_path.glob("*r.json*")) == []


def test_an_existing_output_and_a_read_only_one_are_refused_before_torch(tmp_path, read_only_dir):  # noqa: F811
    out = tmp_path / "r.json"
    out.write_text("{}", encoding="utf-8")
    imported, code, err = _cli("run", *TINY_FLAGS, "-o", str(out))
    assert (imported, code) == (False, 1) and "already exists; pass --overwrite to replace it" in err
    imported, code, err = _cli("run", *TINY_FLAGS, "-o", str(read_only_dir / "r.json"))
    assert (imported, code) == (False, 5) and f"cannot write the result to {read_only_dir / 'r.json'}" in err


def test_a_bad_option_is_refused_before_torch(tmp_path):
    imported, code, err = _cli("run", "--micro-batch=0", "-o", str(tmp_path / "r.json"))
    assert (imported, code) == (False, 1) and "train.micro_batch must be an integer between 1 and 65536" in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--strategies", "ddp,zero"], "--strategies must name some of ddp,zero1,zero2,fsdp,fsdp_ckpt (got 'zero')"),
        (["--strategies", ","], "--strategies must name some of ddp,zero1,zero2,fsdp,fsdp_ckpt (got none)"),
        (["--nproc-per-node", "0"], "--nproc-per-node must be >= 1 (got 0)"),
        (["--nnodes", "two"], "--nnodes must be a number of nodes such as 2, or a range such as 1:4 (got 'two')"),
        (
            ["--nnodes", "1:4"],
            "--nnodes must be a fixed number here, since the effective batch depends on it (got '1:4')",
        ),
        (["--nnodes", "2"], "--rdzv-endpoint must be host:port with --nnodes 2 (got '')"),
        (
            ["--nnodes", "2", "--rdzv-endpoint", "h:29400", "--node-rank", "2"],
            "--node-rank must be between 0 and 1 (got 2)",
        ),
        (
            ["--nproc-per-node", "3"],
            "train.grad_accum (1) or train.micro_batch (2) must be divisible by the 3 processes",
        ),
    ],
)
def test_a_bad_scale_option_is_refused_before_torch(tmp_path, options, message):
    """Before: scale's own options (pilot.scale.ScaleConfig, and the batch split over the processes) were
    checked only once torch and the trainer had been imported."""
    out = tmp_path / "r.json"
    imported, code, err = _cli("scale", *TINY_FLAGS, *options, "-o", str(out))
    assert (imported, code) == (False, 1)
    assert err.startswith(f"gpu-pilot: error: {message}") and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("change", "line"),
    [
        # Issue 52 item 3 and attack finding 18: both exited 70 ("unexpected") after transformers' import,
        # the first with its cause cut off at the end of the line.
        (
            {"num_attention_heads": 5, "num_key_value_heads": 5, "head_dim": None},
            "num_attention_heads: The hidden size must be divisible by the number of attention heads.",
        ),
        ({"num_attention_heads": 5}, "num_key_value_heads: The number of KV heads must divide the number of"),
        ({"num_attention_heads": 1_000_000}, "In the config.json, num_attention_heads is 1000000: a layout"),
    ],
)
@pytest.mark.parametrize("command", ["trace", "run"])
def test_a_config_whose_shape_breaks_a_rule_is_one_line_before_torch(tmp_path, change, line, command):
    spec = json.loads((CONFIGS / "llama-tiny.json").read_text(encoding="utf-8"))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({**spec, **change}), encoding="utf-8")
    imported, code, err = _cli(command, "--model-config", str(config), "-o", str(tmp_path / "r.json"))
    assert (imported, code) == (False, 1), err
    assert err == f"gpu-pilot: error: model {config}: {line}" + err.split(line, 1)[1] and err.count("\n") == 1, err
