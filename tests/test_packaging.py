"""The distribution's declarations point at files that exist."""

from __future__ import annotations

import shutil
import tomllib
import zipfile

import pytest

from guidekit.runtime.assets import build_wheels
from tests.conftest import ROOT


def _folder(package: str):
    """Where a package's files lie: the generator's under generator/src, this guide's at the root."""
    return ROOT / "generator" / "src" / package if package == "guidekit" else ROOT / package


def test_every_package_data_pattern_matches_a_file():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]
    dead = [
        f"{package}: {pattern}"
        for package, patterns in package_data.items()
        for pattern in patterns
        if not any(path.is_file() for path in _folder(package).glob(pattern))
    ]
    assert not dead


@pytest.mark.slow  # pip builds a wheel
def test_the_browser_wheel_holds_no_module_left_from_an_earlier_build(tmp_path):
    """setuptools keeps build/lib between builds; a module deleted since must not ship to the browser."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md", "calculators", "generator", "gpuguide", "pilot"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, project / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, project / name)
    stale = project / "build" / "lib" / "gpuguide" / "removed_module.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("RENAMED = True\n", encoding="utf-8")
    wheel = build_wheels([project], tmp_path / "wheel")[0]
    names = zipfile.ZipFile(wheel).namelist()
    assert "gpuguide/__init__.py" in names and "gpuguide/removed_module.py" not in names
