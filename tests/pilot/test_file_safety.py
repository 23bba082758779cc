"""Issue 53 item 5: the pilot's files. Its output and reserve are regular files it creates, never a
link's target or a device (private copies in tmp_path, never the system's); `validate` reads only a
regular file, at most the contract's limit, and prints no control character of the file's; `trace`
allocates nothing real of the size it traces."""

from __future__ import annotations

import json
import os
import resource
import time

import pytest

from pilot import cli
from pilot.result import MAX_BYTES
from pilot.resultfile import ResultFile, target


def test_an_output_that_is_a_link_or_a_fifo_is_never_replaced(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for path in (link, fifo):
        for overwrite in (False, True):
            with pytest.raises(FileExistsError, match="is not a regular file"):
                target(path, overwrite)
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert target(tmp_path / "new.json", False) == tmp_path / "new.json"


def test_a_link_planted_at_the_reserve_is_removed_not_followed(tmp_path):
    victim = tmp_path / "precious.bin"
    victim.write_bytes(b"x" * 1000)
    result = ResultFile(tmp_path / "run.json", overwrite=False, steps=4)
    result.reserve_path.symlink_to(victim)
    result.prepare()
    assert victim.read_bytes() == b"x" * 1000  # not truncated through the link
    assert result.reserve_path.is_file() and not result.reserve_path.is_symlink()
    assert result.reserve_path.stat().st_size == result.capacity
    result.discard_reserve()


def test_validate_reads_no_fifo_and_no_more_than_the_limit(tmp_path, capsys):
    fifo = tmp_path / "result.json"
    os.mkfifo(fifo)
    start = time.monotonic()
    code = cli.main(["validate", str(fifo)])
    assert code != 0 and time.monotonic() - start < 10  # refused at once, not blocked on the pipe
    assert f"{fifo}: cannot be read: not a regular file" in capsys.readouterr().err
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as f:
        f.truncate(MAX_BYTES * 4)  # sparse: its size without its bytes
    assert cli.main(["validate", str(huge)]) == 1
    assert f"{MAX_BYTES * 4:,}" in capsys.readouterr().out


def test_validate_prints_no_control_character_of_the_file(tmp_path, capsys):
    hostile = tmp_path / "hostile\x1b[2J.json"
    hostile.write_text(json.dumps({"schema_version": "1", "\x1b]0;pwned\x07": 1}), encoding="utf-8")
    assert cli.main(["validate", str(hostile)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b" in out


@pytest.mark.slow
def test_trace_allocates_nothing_of_the_size_it_traces():
    """A micro-batch of 1,024 sequences of 65,536 tokens: the data alone would be 512 MB of int64 tokens;
    the process's peak resident memory must not grow by it (the tiny built-in model traces in a few MB)."""
    from pilot.config import PilotConfig
    from pilot.trace import trace_step

    def config(micro_batch: int) -> PilotConfig:
        train = {"method": "lora", "micro_batch": micro_batch, "seq_len": 65536, "grad_checkpointing": True}
        return PilotConfig(train=train, device="cpu", restore_check=False)

    trace_step(config(1))  # the libraries imported and warmed: what follows is the trace's own
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    traced = trace_step(config(1024))
    grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    assert traced.peak_bytes > 10 * 2**30  # the traced activations are large...
    assert grew < 128 * 2**20, grew  # ...and nothing of them, nor of the batch, is real
