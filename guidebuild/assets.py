"""The browser runtime the site ships: Pyodide's files, copied once for all locales."""

from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.exceptions import PluginError

# What a browser fetches to start Pyodide (npm `pyodide`); the rest of the npm package is typings,
# source maps and consoles that the site does not need.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def copy_pyodide(source: Path, site_dir: Path) -> Path:
    target = site_dir / "assets" / "pyodide"
    missing = [name for name in PYODIDE_FILES if not (source / name).is_file()]
    if missing:
        raise PluginError(
            f"Pyodide runtime not found in {source} (missing {', '.join(missing)}). Run 'npm ci' first."
        )
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copy2(source / name, target / name)
    return target


def build_wheel(project_root: Path, out_dir: Path) -> Path:
    """The project's pure-Python wheel (calculators + calcui inside), which Pyodide installs as is.

    `pyodide build` needs a download to cross-build; a py3-none-any wheel from pip needs none.
    """
    import subprocess
    import sys

    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.whl"):
        old.unlink()
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out_dir), str(project_root)],
        capture_output=True, text=True,
    )
    wheels = sorted(out_dir.glob("*-py3-none-any.whl"))
    if result.returncode != 0 or not wheels:
        raise PluginError(f"Could not build the calculators wheel for Pyodide:\n{result.stderr.strip()}")
    return wheels[0]
