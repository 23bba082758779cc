"""Every exit code `gpu-pilot --help` documents, triggered once, each with its one line on stderr.

Most run in this process on the tiny model; the file-size limit runs in a child with RLIMIT_FSIZE
set, and a signal is sent by the training loop to its own process, as a Ctrl-C would arrive.
"""

from __future__ import annotations

import functools
import json
import os
import re
import resource
import signal
import subprocess
import sys

import pytest

from pilot import cli, runner, scale_launch
from pilot.report import PilotResult

from .test_failures import TINY_FLAGS

ERROR = "gpu-pilot: error: "


def _documented() -> set[int]:
    """The codes the help's epilog lists ("130/143" is two)."""
    text = cli.EXIT_CODES.split(":", 1)[1].strip()
    return {int(c) for part in re.findall(r"(?:^|; )(\d+(?:/\d+)?) ", text) for c in part.split("/")}


def _kill_self_at_step(monkeypatch, signum: int, at: int = 3) -> None:
    real, calls = runner.Trainer.step, {"n": 0}

    def step(self):
        calls["n"] += 1
        if calls["n"] == at:
            os.kill(os.getpid(), signum)  # delivered to the handler `signals_raise` installed
        return real(self)

    monkeypatch.setattr(runner.Trainer, "step", step)


def _raise_in_step(monkeypatch, exc: BaseException) -> None:
    def step(self):
        raise exc

    monkeypatch.setattr(runner.Trainer, "step", step)


def _failed_restore(monkeypatch) -> None:
    # The real fresh process, told to leave the optimizer state out of what it restores.
    monkeypatch.setattr(runner.restore, "verify", functools.partial(runner.restore.verify, fault="drop_optimizer"))


def _failed_torchrun(monkeypatch) -> None:
    monkeypatch.setattr(scale_launch, "run_child", lambda *a, **k: 1)


# (code, arguments after the command, set-up, a phrase of the one error line or None: no error line)
CASES = [
    (0, ["run", "--no-restore-check"], None, None),
    (1, ["run", "--micro-batch=0"], None, "train.micro_batch must be an integer between 1 and 65536 (got 0)"),
    (3, ["run"], _failed_restore, "restore check failed: optimizer not restored"),
    (4, ["run", "--device=cuda"], None, "run.device is 'cuda' but this PyTorch build sees no CUDA"),
    (6, ["run", "--memory-limit-gb=2e-4"], None, None),
    (7, ["scale", "--strategies=ddp"], _failed_torchrun, "torchrun with ddp failed (exit 1)"),
    (8, ["run", "--lr=1000", "--optimizer=sgd", "--steps=8"], None, "the loss became nan at step 4"),
    (
        130,
        ["run", "--no-restore-check"],
        functools.partial(_kill_self_at_step, signum=signal.SIGINT),
        "interrupted by SIGINT",
    ),
    (
        143,
        ["run", "--no-restore-check"],
        functools.partial(_kill_self_at_step, signum=signal.SIGTERM),
        "interrupted by SIGTERM",
    ),
    (
        70,
        ["run", "--no-restore-check"],
        functools.partial(_raise_in_step, exc=ZeroDivisionError("planted")),
        "unexpected ZeroDivisionError: planted (run again with --debug for the traceback)",
    ),
]
# 2 (argparse) and 5 (the disk) need a different harness: below.
ELSEWHERE = {2, 5}


def test_the_table_covers_every_documented_code():
    assert _documented() == {0, 1, 2, 3, 4, 5, 6, 7, 8, 70, 130, 143}
    assert {c for c, *_ in CASES} | ELSEWHERE == _documented()


# The codes reached only after training starts; the others are refused before the first step.
AFTER_TRAINING = {0, 3, 6, 7, 8, 130, 143}


@pytest.mark.parametrize(
    ("code", "args", "arrange", "phrase"),
    [
        pytest.param(*case, id=str(case[0]), marks=[pytest.mark.slow] if case[0] in AFTER_TRAINING else [])
        for case in CASES
    ],
)
def test_exit_code(tmp_path, monkeypatch, capsys, code, args, arrange, phrase):
    if arrange is not None:
        arrange(monkeypatch)
    out = tmp_path / "r.json"
    assert cli.main([*args, *TINY_FLAGS, "-o", str(out)]) == code
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith(ERROR)]
    if phrase is None:
        assert errors == [] and "Traceback" not in err, err
    else:
        assert len(errors) == 1 and phrase in errors[0] and "Traceback" not in err, err
    if code == 6:  # does not fit: a result, written, and the exit status says so
        data = json.loads(out.read_text(encoding="utf-8"))
        assert data["outcome"]["status"] == "does_not_fit" and "gpu-pilot: does not fit:" in err
    if code in (3, 7, 8, 130, 143, 70):  # what was measured is kept
        assert PilotResult.from_json(out).outcome.status in ("partial", "completed")
    assert not list(tmp_path.glob(".*")), "a reserve or temporary file was left beside the result"


def test_exit_2_bad_command_line(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["run", "--no-such-option"])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.count("\n") == 1 and "unrecognized arguments: --no-such-option" in err


def _limited(limit: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.slow
def test_exit_5_file_size_limit_is_one_line_before_any_step(tmp_path):
    """Before: the checkpoint hit EFBIG inside torch.save, after the training, and the run ended with
    exit 70 and PyTorch's "file write failed". Now the limit is read before the first step."""
    flags = [f for f in TINY_FLAGS if not f.startswith(("--hidden", "--intermediate"))] + [
        "--hidden=256",
        "--intermediate=512",
    ]
    out = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-m", "pilot", "run", *flags, "-o", str(out)],
        capture_output=True,
        text=True,
        preexec_fn=_limited(2_000_000),
        timeout=600,
    )
    assert done.returncode == 5, done.stderr[-2000:]
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith(ERROR)]
    assert len(lines) == 1 and "would pass this process's file-size limit of 2,000,000 bytes (ulimit -f)" in lines[0]
    assert "Traceback" not in done.stderr and not out.exists()


@pytest.mark.slow
def test_a_write_past_the_file_size_limit_is_a_disk_error(tmp_path):
    """torch.save past RLIMIT_FSIZE: the atomic writer names the limit (EFBIG), whatever torch raised."""
    script = (
        "import sys, torch; from pathlib import Path; from pilot import checkpoint; from pilot.errors import describe\n"
        "try:\n"
        "    checkpoint.atomic_save({'w': torch.zeros(1_000_000)}, Path(sys.argv[1]))\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, *describe(exc), sep='|')\n"
    )
    target = tmp_path / "ck.pt"
    done = subprocess.run(
        [sys.executable, "-c", script, str(target)],
        capture_output=True,
        text=True,
        preexec_fn=_limited(1_000_000),
        timeout=300,
    )
    name, message, code = done.stdout.strip().split("|")
    assert (name, code) == ("FileTooLargeError", "5"), done.stderr[-2000:]
    assert message.startswith(f"file too large: writing {target} reached this process's file-size limit of 1,000,000")
    assert list(tmp_path.iterdir()) == [], "the partial file was left behind"
