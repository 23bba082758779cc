"""`guide new` scaffolds a guide that builds under --strict in every locale it names (issue 50 item 6)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from guidekit import __version__
from guidekit.runtime.assets import PYODIDE_VERSION
from guidekit.scaffold import main as guide
from tests.conftest import ROOT

pytestmark = pytest.mark.build  # builds the new site


def test_a_new_guide_builds_in_every_locale(tmp_path, capsys):
    project = tmp_path / "heat-pumps"
    assert guide(["new", str(project), "--title", "Qué bomba de calor", "--locales", "es,DE,he"]) == 0
    assert "files written" in capsys.readouterr().out
    assert json.loads((project / "package.json").read_text())["dependencies"]["pyodide"] == PYODIDE_VERSION
    assert f'"guidekit=={__version__}"' in (project / "pyproject.toml").read_text()
    assert (project / "locales" / "he" / "LC_MESSAGES" / "messages.po").is_file()  # catalogs extracted
    (project / "node_modules").symlink_to(ROOT / "node_modules")  # `npm install`, already done here
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(project))
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    hebrew = (tmp_path / "site" / "he" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="he" dir="rtl"' in hebrew and "guide-translation" in hebrew  # "not translated yet"
    assert 'data-guide-calc="heat-pumps"' in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--locales", "es,xx"], "'xx': Material has no translation of its interface for this locale"),
        (["--locales", "es,de,es"], "a locale is named twice"),
        (["--locales", " , "], "name at least one locale"),
    ],
)
def test_bad_arguments_get_one_line(tmp_path, capsys, args, message):
    assert guide(["new", str(tmp_path / "g"), "--title", "T", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("guide new: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "g").exists()


def test_it_never_writes_into_a_folder_that_has_files(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert guide(["new", str(tmp_path), "--title", "T", "--locales", "es"]) == 2
    assert "is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
