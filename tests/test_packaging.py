"""The two distributions' declarations (this guide's, the generator's) point at files that exist, and the
generator's browser wheel is packed from the installed package alone."""

from __future__ import annotations

import re
import shutil
import tomllib
import zipfile

import pytest
from mkdocs.exceptions import PluginError

import guidekit
from guidekit.runtime.assets import PYODIDE_FILES, PYODIDE_VERSION, build_wheels, check_pyodide, generator_wheel
from tests.conftest import ROOT

# Each distribution's project folder and where its packages lie in it.
DISTRIBUTIONS = {"guide": (ROOT, ROOT), "generator": (ROOT / "generator", ROOT / "generator" / "src")}


def _config(distribution: str) -> dict:
    return tomllib.loads((DISTRIBUTIONS[distribution][0] / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_every_package_data_pattern_matches_a_file(distribution):
    package_data = _config(distribution)["tool"]["setuptools"]["package-data"]
    packages = DISTRIBUTIONS[distribution][1]
    dead = [
        f"{package}: {pattern}"
        for package, patterns in package_data.items()
        for pattern in patterns
        if not any(path.is_file() for path in (packages / package).glob(pattern))
    ]
    assert not dead


def test_every_file_the_generator_reads_beside_its_code_is_package_data():
    """A non-editable install carries what the build reads at run time: the theme, sw.js (a bug once)."""
    package = ROOT / "generator" / "src" / "guidekit"
    patterns = _config("generator")["tool"]["setuptools"]["package-data"]["guidekit"]
    declared = {path for pattern in patterns for path in package.glob(pattern) if path.is_file()}
    others = {p for p in package.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")}
    assert others - declared == set()


def test_the_generators_version_is_its_distributions():
    assert guidekit.__version__ == _config("generator")["project"]["version"]
    assert f"guidekit=={guidekit.__version__}" in _config("guide")["project"]["dependencies"]


def test_the_generators_browser_wheel_holds_its_browser_layers_only_and_is_reproducible(tmp_path):
    first, again = generator_wheel(tmp_path / "a"), generator_wheel(tmp_path / "b")
    assert first.read_bytes() == again.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    assert {n.split("/")[1] for n in names if n.startswith("guidekit/") and n.count("/") > 1} == {
        "calc",
        "l10n",
        "render",
    }
    assert "guidekit/render/worker.py" in names and f"guidekit-{guidekit.__version__}.dist-info/RECORD" in names


def test_a_pyodide_of_another_release_is_refused_with_the_npm_command(tmp_path):
    for name in PYODIDE_FILES:
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "package.json").write_text('{"version": "0.1.0"}', encoding="utf-8")
    with pytest.raises(PluginError, match=rf"npm install --save-exact pyodide@{re.escape(PYODIDE_VERSION)}"):
        check_pyodide(tmp_path)
    check_pyodide(ROOT / "node_modules" / "pyodide")  # the one package.json pins


@pytest.mark.slow  # pip builds a wheel
def test_the_browser_wheel_holds_no_module_left_from_an_earlier_build(tmp_path):
    """setuptools keeps build/lib between builds; a module deleted since must not ship to the browser."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md", "calculators", "gpuguide", "pilot"):
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
