"""The generator from its wheel alone (a non-editable install): the theme, the runtime, sw.js and its
catalogs travel in it. Another guide built from an install of it in a clean venv is
tests/site/test_example_guide.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
pytestmark = pytest.mark.build  # pip builds the generator's wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory, guidekit_wheel) -> Path:
    """guidekit's wheel as pip builds it from generator/, unpacked where an install would put it."""
    site_packages = tmp_path_factory.mktemp("generator-wheel") / "site-packages"
    zipfile.ZipFile(guidekit_wheel).extractall(site_packages)
    return site_packages


def test_the_wheel_carries_what_the_build_reads_beside_the_code(installed):
    package = installed / "guidekit"
    assert (package / "runtime" / "sw.js").is_file() and (package / "runtime" / "snapshot.mjs").is_file()
    assert (package / "theme" / "main.html").is_file() and (
        package / "theme" / "partials" / "calculator.html"
    ).is_file()
    assert (package / "theme" / "assets" / "javascripts" / "calculator-worker.js").is_file()
    # The generator's own strings, translated, with their template (issue 50 item 4).
    assert (package / "locales" / "guidekit.pot").is_file()
    for locale in ("es", "ja", "ar", "en", "de", "fr", "he", "zh"):
        assert (package / "locales" / locale / "LC_MESSAGES" / "guidekit.po").is_file(), locale
    assert not list(installed.glob("calculators")) and not list(installed.glob("gpuguide"))


def test_a_calculator_no_browser_wheel_holds_stops_the_build_with_one_line(tmp_path):
    """The build imports toycalc from PYTHONPATH; the reader's browser could not, with `packages` empty."""
    site = tmp_path / "toy"
    shutil.copytree(FIXTURES / "toysite", site)
    config = site / "mkdocs.yml"
    config.write_text(
        config.read_text(encoding="utf-8")
        .replace('packages: ["../toycalc"]', "packages: []")
        .replace("../../../node_modules", str(ROOT / "node_modules")),
        encoding="utf-8",
    )
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(FIXTURES / "toycalc"))
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "out")],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
    )
    assert build.returncode != 0
    errors = [line for line in build.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == [
        "ERROR   -  The browser imports 'toycalc', which none of its wheels holds: add the folder whose "
        "pyproject.toml packs it to `packages` (mkdocs.yml → plugins → guide)"
    ], build.stderr[-2000:]
