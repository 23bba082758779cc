"""Nothing is lost and every failure is one line: partial results, atomic writes, full disks, bad input.

A full disk is simulated by a fault-injecting writer (every write of the pilot's files goes through
`pilot.atomic.open_for_write`), so these run on any CI machine; a read-only output uses a read-only
tmpfs when this process may mount one (root), a directory without write permission otherwise.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from pilot import atomic, cli, runner
from pilot.errors import EXIT_CONFIG, EXIT_DEVICE, EXIT_DISK, EXIT_DIVERGED, PartialRun

from .conftest import TINY_MODEL, tiny

TINY_FLAGS = [f"--{k.replace('_', '-')}={v}" for k, v in TINY_MODEL.items()] + [
    "--seq-len=16",
    "--steps=4",
    "--warmup-steps=2",
    "--threads=1",
    "--quiet",
]


class FullDisk(io.RawIOBase):
    """A file that accepts `room` bytes, then fails as a full disk does (ENOSPC)."""

    def __init__(self, path: Path, room: int):
        self.fh, self.room = open(path, "wb"), room

    def writable(self):
        return True

    def write(self, data):
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self.fh.write(data)

    def fileno(self):
        return self.fh.fileno()

    def flush(self):
        self.fh.flush()

    def close(self):
        super().close()  # flushes through self.fh, so that one closes last
        self.fh.close()


@pytest.fixture
def disk_full_after(monkeypatch):
    def arm(room: int, match: str = ""):
        real = atomic.open_for_write
        monkeypatch.setattr(
            atomic, "open_for_write", lambda path: FullDisk(path, room) if match in path.name else real(path)
        )

    return arm


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    lines = [ln for ln in err.splitlines() if ln.startswith("gpu-pilot: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.slow  # real training
def test_nan_loss_keeps_what_was_measured(tmp_path, capsys, validate):
    out = tmp_path / "r.json"
    code = cli.main(["run", *TINY_FLAGS, "--lr=1000", "--optimizer=sgd", "--steps=8", "-o", str(out)])
    assert code == EXIT_DIVERGED
    assert "the loss became nan at step 4 (train.lr 1000)" in one_line_error(capsys)
    data = validate(json.loads(out.read_text(encoding="utf-8")))
    assert data["outcome"]["status"] == "partial"
    assert data["outcome"]["partial"] == {"reason": "diverged", "stage": "training", "steps_done": 3}
    assert len(data["losses"]) == 3 and all(isinstance(x, float) for x in data["losses"])
    assert data["timing"]["step"]["n"] == 1 and data["memory"]["peak_tensor_bytes"] > 0


@pytest.mark.slow  # real training
def test_failure_mid_run_is_a_partial_result_with_the_timing(monkeypatch, validate):
    calls = {"n": 0}
    real_step = runner.Trainer.step

    def step(self):
        calls["n"] += 1
        if calls["n"] == 5:  # after the warm-up and two timed steps
            raise RuntimeError("device lost")
        return real_step(self)

    monkeypatch.setattr(runner.Trainer, "step", step)
    with pytest.raises(PartialRun) as caught:
        runner.run(tiny(steps=6), show_progress=False)
    result = caught.value.result
    validate(result)
    assert result.outcome.partial.reason == "failed" and result.outcome.partial.stage == "training"
    assert result.timing.step.n == 2 and result.timing.validation_s is None and len(result.losses) == 4
    assert result.memory.peak_tensor_bytes > 0 and "device lost" in result.outcome.error


@pytest.fixture
def read_only_dir(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("root without permission to mount a read-only tmpfs")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_read_only_output_is_refused_before_any_work(read_only_dir, monkeypatch, capsys):
    monkeypatch.setattr(runner, "run", lambda *a, **k: pytest.fail("the run started"))
    code = cli.main(["run", *TINY_FLAGS, "-o", str(read_only_dir / "r.json")])
    assert code == EXIT_DISK
    assert f"cannot write the result to {read_only_dir / 'r.json'}" in one_line_error(capsys)


@pytest.mark.slow  # real training
def test_overwrite_on_a_full_disk_keeps_the_previous_result(tmp_path, disk_full_after, capsys, monkeypatch):
    out = tmp_path / "out" / "r.json"
    out.parent.mkdir()
    previous = '{"earlier": "result"}\n'
    out.write_text(previous, encoding="utf-8")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the copy of the result goes
    disk_full_after(1000, match="r.json")  # no result fits, not even the first, before any step
    code = cli.main(["run", *TINY_FLAGS, "--no-restore-check", "--overwrite", "-o", str(out)])
    assert code == EXIT_DISK
    err = capsys.readouterr().err
    assert (
        err.count("gpu-pilot: error:") == 1
        and "gpu-pilot: error: disk full: no space left on the device writing" in err
    )
    copies = list(tmp_path.glob("r.*.json"))
    assert len(copies) == 1 and f"a copy was written to {copies[0]}" in err, err
    assert json.loads(copies[0].read_text(encoding="utf-8"))["outcome"]["partial"]["stage"] == "warmup"
    assert out.read_text(encoding="utf-8") == previous
    assert sorted(p.name for p in out.parent.iterdir()) == ["r.json"], "a temporary or reserve file was left behind"


@pytest.mark.slow  # real training
def test_full_workdir_costs_the_restore_check_not_the_run(tmp_path, disk_full_after, validate):
    disk_full_after(10_000, match="checkpoint.pt")
    result = runner.run(tiny(), tmp_path / "w", show_progress=False)
    validate(result)
    assert (
        result.checkpoint.error.startswith("no space left on the device writing") and result.checkpoint.size_bytes == 0
    )
    assert result.restore is None and result.timing.step.n == 4 and result.timing.validation_s is not None
    assert result.outcome.status == "partial" and result.outcome.partial.reason == "checkpoint_failed"
    assert list((tmp_path / "w").iterdir()) == [], "the partial checkpoint was left behind"


def test_free_space_is_checked_before_the_first_step(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "free_bytes", lambda folder: 1000)
    monkeypatch.setattr(runner.Trainer, "step", lambda self: pytest.fail("training started"))
    code = cli.main(["run", *TINY_FLAGS, "-o", str(tmp_path / "r.json")])
    assert code == EXIT_DISK
    assert "not enough free space for the checkpoint" in one_line_error(capsys)
    assert not (tmp_path / "r.json").exists()


def _jsonl(tmp_path, name, lines):
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        (["--device=cuda"], EXIT_DEVICE, "run.device is 'cuda' but this PyTorch build sees no CUDA"),
        (["--lr=nan"], EXIT_CONFIG, "train.lr must be a finite number between 0 and 1000 (got nan)"),
        (["--lr=1e30"], EXIT_CONFIG, "train.lr must be a finite number between 0 and 1000 (got 1e+30)"),
        (
            ["--memory-limit-gb=nan"],
            EXIT_CONFIG,
            "run.memory_limit_gb must be a finite number between 0 and 1e+06 (got nan)",
        ),
        (["--memory-limit-gb=0.00003"], EXIT_CONFIG, "run.memory_limit_gb must hold at least the model's weights"),
        (["--synthetic-sequences=1"], EXIT_CONFIG, "the data holds 1 sequences, fewer than one global batch of 2"),
        (
            ["--method=lora", "--lora-rank=4096"],
            EXIT_CONFIG,
            "train.lora_rank must be <= 16, the smallest adapted dimension (layers.0.attn.k: 32 -> 16) (got 4096)",
        ),
        (["--data={jsonl_missing}"], EXIT_CONFIG, "data.text_field 'text' missing on line 2"),
        (["--data={jsonl_bad}"], EXIT_CONFIG, "line 1 is not JSON: Expecting value (column 1)"),
        (["--data={jsonl_short}"], EXIT_CONFIG, "fewer than one sequence of 17"),
        (
            ["--config={toml}"],
            EXIT_CONFIG,
            "invalid TOML: Expected ']' at the end of a table declaration (at line 2, column 7)",
        ),
        (["--config={json}"], EXIT_CONFIG, "invalid JSON: Expecting ':' delimiter (at line 2, column 17)"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, flags, code, message):
    files = {
        "jsonl_missing": _jsonl(tmp_path, "missing", ['{"text": "a"}', '{"body": "b"}']),
        "jsonl_bad": _jsonl(tmp_path, "bad", ["not json"]),
        "jsonl_short": _jsonl(tmp_path, "short", ['{"text": "too short"}']),
        "toml": str(tmp_path / "bad.toml"),
        "json": str(tmp_path / "bad.json"),
    }
    (tmp_path / "bad.toml").write_text("steps = 4\n[train\n", encoding="utf-8")
    (tmp_path / "bad.json").write_text('{"steps": 4,\n "train": {"lr" 1}}', encoding="utf-8")
    flags = [f.format(**files) for f in flags]
    assert cli.main(["run", *TINY_FLAGS, *flags, "-o", str(tmp_path / "r.json")]) == code
    line = one_line_error(capsys)
    assert message in line
    if any(k in "".join(flags) for k in (".jsonl", ".toml", ".json")):
        assert str(tmp_path) in line, "a file's error names the file"
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategies=zero"], "--strategies must name some of ddp,zero1,zero2,fsdp,fsdp_ckpt (got 'zero')"),
        (["--nproc-per-node=0"], "--nproc-per-node must be >= 1 (got 0)"),
        (["--nnodes=x"], "--nnodes must be a number of nodes such as 2"),
        (["--nnodes=1:4"], "--nnodes must be a fixed number here"),
        (["--nnodes=2"], "--rdzv-endpoint must be host:port with --nnodes 2 (got '')"),
        (
            ["--nnodes=2", "--rdzv-endpoint=127.0.0.1:29400", "--node-rank=2"],
            "--node-rank must be between 0 and 1 (got 2)",
        ),
        (["--micro-batch=3"], "train.grad_accum (1) or train.micro_batch (3) must be divisible by the 2 processes"),
    ],
)
def test_bad_scale_arguments_are_one_line(tmp_path, capsys, args, message):
    assert cli.main(["scale", *TINY_FLAGS, *args, "-o", str(tmp_path / "s.json")]) == EXIT_CONFIG
    assert message in one_line_error(capsys)


def test_validate_on_a_missing_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "r.json"
    assert cli.main(["validate", str(path)]) == EXIT_CONFIG
    assert f"{path}: cannot be read: No such file or directory" in one_line_error(capsys)


def test_validate_on_broken_json_names_line_and_column_as_the_site_does(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text("{\n  x", encoding="utf-8")
    assert cli.main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: INVALID" in out and "the file as a whole: expected valid JSON (error at line 2, column 3)" in out


def test_debug_shows_the_traceback(tmp_path, capsys):
    cli.main(["run", *TINY_FLAGS, "--device=cuda", "--debug", "-o", str(tmp_path / "r.json")])
    assert "Traceback" in capsys.readouterr().err


def test_help_lists_choices_and_hides_internal_commands(capsys):
    for argv in (["--help"], ["run", "--help"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
        text = capsys.readouterr().out
        assert "SUPPRESS" not in text and "_resume" not in text and "_scale_worker" not in text
    for choices in (
        "{full,lora,qlora}",
        "{fp32,bf16}",
        "{auto,fp32,bf16}",
        "{sdpa,eager}",
        "{adamw,sgd}",
        "{auto,cpu,cuda}",
    ):
        assert choices in text
    assert "exit codes:" in text


@pytest.mark.slow  # real training
def test_batch_search_shows_progress(capsys):
    runner.search_micro_batch(
        tiny(max_batch_limit=4),
        runner.device_for(tiny()),
        runner.load_tokens(tiny().data, tiny().model, 16, 0),
        show=True,
    )
    assert "batch search" in capsys.readouterr().err


def test_a_bad_command_line_is_one_line(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["run", "--method", "dora"])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.count("\n") == 1
    assert "argument --method: invalid choice: 'dora' (choose from 'full', 'lora', 'qlora')" in err


@pytest.mark.slow  # real training
def test_a_nan_validation_loss_is_a_partial_result(monkeypatch, validate):
    monkeypatch.setattr(runner.Trainer, "validate", lambda self, batches: float("nan"))
    with pytest.raises(PartialRun) as caught:
        runner.run(tiny(restore_check=False), show_progress=False)
    result = validate(caught.value.result)
    assert result["outcome"]["partial"] == {"reason": "diverged", "stage": "validation", "steps_done": 6}
    assert result["timing"]["step"]["n"] == 4 and result["timing"]["validation_loss"] is None


@pytest.mark.slow  # real training
def test_keep_workdir_keeps_the_temporary_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(runner.restore, "verify", lambda *a, **k: None)  # the checkpoint is what matters here
    runner.run(tiny(), show_progress=False, keep_workdir=True)
    kept = list(tmp_path.glob("gpu-pilot-*"))
    assert len(kept) == 1 and (kept[0] / "checkpoint.pt").exists()
    assert f"workdir kept at {kept[0]}" in capsys.readouterr().err
    runner.run(tiny(restore_check=False), show_progress=False)
    assert list(tmp_path.glob("gpu-pilot-*")) == kept, "without the flag the folder is removed"


def test_validate_judges_every_committed_file_as_the_build_does(capsys):
    """`gpu-pilot validate` on the rented machine and the site build run one validator: the same verdict
    on every hostile file (a bad date-time included) and every good one."""
    from gpuguide import results

    root = Path(__file__).resolve().parents[2]
    files = sorted((root / "tests" / "results" / "bad").glob("*.json")) + sorted((root / "results").rglob("*.json"))
    assert any(path.name == "bad-date.json" for path in files)
    for path in files:
        build_rejects = bool(results.parse(path.read_bytes())[1])
        assert cli.main(["validate", str(path)]) == int(build_rejects), path.name
        assert ("INVALID" in capsys.readouterr().out) == build_rejects, path.name
