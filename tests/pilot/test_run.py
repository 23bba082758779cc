"""End-to-end pilot runs on the CPU: the result validates, round-trips, and states what it verified."""

import json
import subprocess
import sys

import pytest

from pilot import runner, summary
from pilot.report import PilotResult

from .conftest import tiny


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    return runner.run(tiny(label="test", note="unit test"), tmp_path_factory.mktemp("run"), show_progress=False)


@pytest.mark.slow  # real training
def test_full_run_is_complete_and_valid(full_run, validate):
    data = validate(full_run)
    assert data["schema_version"] == "1" and list(data)[0] == "schema_version"
    assert data["outcome"] == {"status": "completed", "error": None, "partial": None}
    timing = data["timing"]
    assert timing["step"]["n"] == 4 and timing["warmup_steps"] == 2
    assert timing["step"]["p50"] <= timing["step"]["p95"] <= timing["step"]["max"]
    assert data["memory"]["method"] == "live_tensor_tracker" and data["memory"]["peak_tensor_bytes"] > 0
    assert data["checkpoint"]["step"] == 4 and data["checkpoint"]["size_bytes"] > 0
    # Each figure names what it covers: validation's held-out batches, the checkpoint's one process.
    assert (timing["validation_batches"], timing["validation_tokens"]) == (2, 2 * 2 * 16)
    assert (data["checkpoint"]["processes"], data["checkpoint"]["sharded"]) == (1, False)
    assert len(data["losses"]) == 6
    assert data["environment"]["device_type"] == "cpu"


@pytest.mark.slow  # real training
def test_restore_passes_bitwise_and_lists_every_component(full_run):
    r = full_run.restore
    assert r.passed and r.mode == "bitwise" and r.fresh_process and r.failures == []
    verified = " | ".join(r.verified)
    for part in (
        "model:",
        "optimizer:",
        "scheduler:",
        "data_position:",
        "rng.python:",
        "rng.numpy:",
        "rng.torch_cpu:",
        "continued losses for 2 steps: bitwise identical",
        "final trainable parameters",
    ):
        assert part in verified
    assert r.max_loss_abs_diff == 0.0 and r.max_param_abs_diff == 0.0


@pytest.mark.slow  # real training
def test_result_round_trips(full_run, tmp_path):
    path = full_run.save_json(tmp_path / "r.json")
    again = PilotResult.from_json(path)
    assert again.to_dict() == full_run.to_dict()
    with pytest.raises(FileExistsError, match="--overwrite"):
        full_run.save_json(path)


@pytest.mark.slow  # real training
def test_summary_mentions_each_figure(full_run):
    text = summary.render(full_run)
    for word in (
        "step time",
        "p95",
        "CV",
        "data wait",
        "validation",
        "tensor peak",
        "checkpoint",
        "restore       PASSED",
        " over 2 held-out micro-batches, 64 tokens (loss ",
        " by one process, not sharded (scale measures a sharded one per strategy)",
    ):
        assert word in text


@pytest.mark.slow  # real training
def test_lora_bf16_checkpointing_accumulation_from_jsonl(tmp_path, validate):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps({"text": f"line {i} " * 20}) for i in range(40)), encoding="utf-8")
    cfg = tiny(
        train={
            "method": "lora",
            "precision": "bf16",
            "grad_checkpointing": True,
            "grad_accum": 2,
            "optimizer": "sgd",
            "lr_schedule": "linear",
        },
        data={"source": str(data)},
        model={"dropout": 0.1},
    )
    result = runner.run(cfg, tmp_path / "w", show_progress=False)
    validate(result)
    assert result.restore.passed, result.restore.failures
    assert 0 < result.model.trainable_parameters < result.model.parameters


@pytest.mark.slow  # real training
def test_out_of_memory_is_a_result(validate):
    # Above the weights (0.16 MB), below what training needs: a does-not-fit result, not an input error.
    result = runner.run(tiny(memory_limit_gb=2e-4), show_progress=False)
    validate(result)
    assert result.outcome.status == "does_not_fit" and "exceed the limit" in result.outcome.error
    assert result.timing is None and result.restore is None


@pytest.mark.slow  # real training
def test_find_max_batch_bisects_to_the_limit(validate):
    probe = runner.run(tiny(train={"micro_batch": 8}, restore_check=False), show_progress=False)
    limit = probe.memory.peak_tensor_bytes + 1  # micro-batch 8 just fits
    result = runner.run(
        tiny(find_max_batch=True, memory_limit_gb=limit / 1e9, max_batch_limit=64, steps=2, restore_check=False),
        show_progress=False,
    )
    validate(result)
    search = result.batch_search
    assert search.largest_fitting >= 8
    assert any(not t.fits for t in search.trials) or search.largest_fitting == 64
    assert result.config["train"]["micro_batch"] == search.largest_fitting


@pytest.mark.slow  # real training
def test_cli_refuses_to_overwrite_and_validates(tmp_path):
    out = tmp_path / "result.json"
    out.write_text("{}", encoding="utf-8")
    cmd = [
        sys.executable,
        "-m",
        "pilot",
        "run",
        "--output",
        str(out),
        "--layers",
        "1",
        "--hidden",
        "32",
        "--steps",
        "2",
        "--warmup-steps",
        "2",
        "--no-restore-check",
        "--quiet",
        "--seq-len",
        "8",
    ]
    refused = subprocess.run(cmd, capture_output=True, text=True)
    assert refused.returncode == 1 and "--overwrite" in refused.stderr
    done = subprocess.run(cmd + ["--overwrite"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    check = subprocess.run([sys.executable, "-m", "pilot", "validate", str(out)], capture_output=True, text=True)
    assert check.returncode == 0 and "valid" in check.stdout
    bad = subprocess.run(cmd + ["--micro-batch", "0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "train.micro_batch" in bad.stderr


def test_progress_falls_back_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    from pilot.progress import Progress

    bar = Progress(2, "pilot")
    bar.update(loss="1.0")
    bar.update(loss="0.5")
    bar.close()
    assert "pilot: 2/2 loss=0.5" in capsys.readouterr().err
