"""The build reads `results/` safely: kind and size before content, one line per bad file, and
log lines that a file name cannot forge."""

import json
import os
from pathlib import Path

import pytest

from gpuguide import results
from gpuguide.markers.pilot_results import load_runs

SAMPLE = Path(__file__).parents[2] / "results" / "sample-cpu.json"


def _error_lines(results_dir: Path) -> list[str]:
    with pytest.raises(ValueError) as caught:
        load_runs(results_dir, results_dir.parent)
    head, *lines = str(caught.value).split("\n")
    assert head == "Invalid pilot result files:"
    return lines


def test_folders_devices_and_huge_files_get_one_line_each_without_being_read(tmp_path):
    found = tmp_path / "results"
    found.mkdir()
    (found / "dir.json").mkdir()
    if Path("/dev/zero").exists():
        os.symlink("/dev/zero", found / "zero.json")
    with open(found / "huge.json", "wb") as f:  # sparse: no disk used
        f.truncate(results.MAX_BYTES + 1)
    os.symlink(found / "missing-target", found / "dangling.json")
    lines = _error_lines(found)
    by_name = {line.split(":", 1)[0]: line for line in lines}
    assert len(lines) == len(by_name) == 3 + Path("/dev/zero").exists()
    assert "not a regular file" in by_name["results/dir.json"]
    assert "larger than a result file can be" in by_name["results/huge.json"]
    assert "cannot be read" in by_name["results/dangling.json"]
    if Path("/dev/zero").exists():
        assert "not a regular file" in by_name["results/zero.json"]


def test_a_lone_surrogate_is_refused_before_any_page_is_written(tmp_path):
    found = tmp_path / "results"
    found.mkdir()
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["label"] = "run \ud800"  # json.dumps writes it as the escape \ud800, which is valid JSON
    (found / "lone.json").write_text(json.dumps(data), encoding="ascii")
    assert _error_lines(found) == [
        "results/lone.json: /label: expected text without a lone surrogate escape (\\ud800–\\udfff)"
    ]


def test_a_file_name_cannot_forge_a_log_line_or_reverse_one(tmp_path):
    found = tmp_path / "results"
    found.mkdir()
    (found / "x\nAll 12 result files are valid\u202e.json").write_bytes(b"{")
    [line] = _error_lines(found)
    assert "\n" not in line and "\u202e" not in line
    assert line.startswith("results/x\\nAll 12 result files are valid\\u202e.json: ")


def test_valid_files_still_load(tmp_path):
    found = tmp_path / "results"
    found.mkdir()
    (found / "run.json").write_bytes(SAMPLE.read_bytes())
    assert [name for name, _ in load_runs(found, tmp_path)] == ["run.json"]
