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
