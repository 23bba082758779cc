"""The pilot holds every result file it writes to the result contract (`pilot.result`)."""

from __future__ import annotations

import json
from pathlib import Path

from pilot.report import PilotResult
from pilot.result import parse
from pilot.resultfile import ResultFile

SAMPLE = Path(__file__).resolve().parents[2] / "results" / "sample-cpu.json"


def _writer(tmp_path) -> ResultFile:
    writer = ResultFile(tmp_path / "out.json", overwrite=True, steps=4)
    writer.prepare()
    return writer


def test_a_valid_result_is_written_without_a_word(tmp_path, capsys):
    writer = _writer(tmp_path)
    path = writer.finish(PilotResult.from_json(SAMPLE))
    assert parse(path.read_bytes())[1] == []
    assert "contract" not in capsys.readouterr().err


def test_a_result_that_breaks_the_contract_is_kept_and_named_once(tmp_path, capsys):
    """A pilot bug that writes a value the schema refuses: the measurements stay on disk, and stderr
    names the exact place, once, however many stages rewrite the file."""
    result = PilotResult.from_json(SAMPLE)
    result.label = "x" * 201  # the schema allows 200 characters
    writer = _writer(tmp_path)
    writer.stage(result, "training", 2)
    path = writer.finish(result)
    assert json.loads(path.read_text(encoding="utf-8"))["label"] == "x" * 201
    err = capsys.readouterr().err
    assert err.count("breaks the result contract") == 1, err
    assert "/label: expected text of at most 200 characters" in err
