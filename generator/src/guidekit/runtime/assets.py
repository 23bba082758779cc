"""The browser runtime the site ships: Pyodide's files, copied once for all locales; the site's own wheels;
and the name of Material's search worker, looked up in the theme's files."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

# What the browser's Python reads of the generator: its standard-library layers. `browser_only` keeps these,
# the calculator modules' packages, and what their import panels declare (`BROWSER_FILES` of each
# calculator's IMPORTER module), and drops the rest.
BROWSER_FILES = ("guidekit/__init__.py", "guidekit/l10n/", "guidekit/calc/", "guidekit/render/")

# What a browser fetches to start Pyodide (npm `pyodide`); the rest of the npm package is typings,
# source maps and consoles that the site does not need.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


SEARCH_WORKERS = "assets/javascripts/workers/search.*.min.js"
BUNDLES = "assets/javascripts/bundle.*.min.js"


def _hashed(theme_dirs: list[str], pattern: str) -> str:
    """One of Material's scripts, relative to the site root, as the theme ships it: its file name carries
    a content hash that changes with each Material release, so it is found, never written down."""
    found = sorted(
        {path.relative_to(folder).as_posix() for folder in map(Path, theme_dirs) for path in folder.glob(pattern)}
    )
    if len(found) != 1:
        raise PluginError(
            f"Expected one {pattern} in the theme folders {theme_dirs}, found {found or 'none'}: "
            "is mkdocs-material installed as pyproject.toml pins it?"
        )
    return found[0]


def material_search_worker(theme_dirs: list[str]) -> str:
    return _hashed(theme_dirs, SEARCH_WORKERS)


def material_bundle(theme_dirs: list[str]) -> str:
    """The bundle guide-page.js loads on the first interaction, in place of Material's own <script>."""
    return _hashed(theme_dirs, BUNDLES)


def copy_pyodide(source: Path, site_dir: Path) -> Path:
    target = site_dir / "assets" / "pyodide"
    missing = [name for name in PYODIDE_FILES if not (source / name).is_file()]
    if missing:
        raise PluginError(f"Pyodide runtime not found in {source} (missing {', '.join(missing)}). Run 'npm ci' first.")
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copy2(source / name, target / name)
    return target


# What a wheel is never built from: version control, environments, caches, build outputs, test artifacts.
_NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "site",
    "build",
    "dist",
    "*.egg-info",
    ".tmp",
    "test-artifacts",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
)


def build_wheels(projects: list[Path], out_dir: Path) -> list[Path]:
    """Pure-Python wheels of `projects` (this one carries the generator and the calculators), which Pyodide
    installs as they are. `pyodide build` needs a download to cross-build; pip needs none."""
    import subprocess
    import sys
    import tempfile

    out_dir.mkdir(parents=True, exist_ok=True)
    # setuptools builds inside the source tree (build/, *.egg-info) and never deletes from it: a module
    # removed since the last build would still ship, and two builds at once (a test run's workers, `mkdocs
    # serve` beside `make site`) would write the same files. Each build works on its own copy of the sources.
    with tempfile.TemporaryDirectory(prefix="guide-wheel-") as scratch:
        copies = [
            shutil.copytree(project, Path(scratch) / str(i), ignore=_NOT_SOURCES) for i, project in enumerate(projects)
        ]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
                str(out_dir),
                *map(str, copies),
            ],
            capture_output=True,
            text=True,
        )
    wheels = sorted(out_dir.glob("*.whl"))
    impure = [w.name for w in wheels if not w.name.endswith("-py3-none-any.whl")]
    if result.returncode != 0 or len(wheels) != len(projects) or impure:
        raise PluginError(
            f"Could not build pure-Python wheels of {projects} for Pyodide:\n{result.stderr.strip() or impure}"
        )
    return wheels


def worker_packages(modules: list[str], importers: list[str] = ()) -> list[str]:
    """The top-level packages whose modules are compiled for the browser: the generator's, each calculator
    module's (imported at start) and each import panel's (imported on the first file)."""
    return sorted({"guidekit", *(m.split(".")[0] for m in (*modules, *importers))})


def browser_files(modules: list[str], extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What `browser_only` keeps: the generator's browser layers, the top-level package or module of each
    calculator module the worker imports at start, and `extra` (the files the import panels declare)."""
    tops = sorted({m.split(".")[0] for m in modules})
    return (*BROWSER_FILES, *(f"{top}/" for top in tops), *(f"{top}.py" for top in tops), *extra)


def browser_only(wheel: Path, keep: tuple[str, ...]) -> int:
    """Rewrite `wheel` in place with only its files whose path starts with one of `keep`, its metadata,
    and their RECORD lines; returns how many files were dropped.

    This project's wheel also packs the build (`guidekit.site`, `guidekit.i18n`) and the pilot, which no browser runs: a
    quarter of its bytes, fetched on every reader's first visit."""

    def kept(name: str) -> bool:
        return name.split("/", 1)[0].endswith(".dist-info") or name.startswith(keep)

    with zipfile.ZipFile(wheel) as original:
        members = [(info, original.read(info)) for info in original.infolist()]
    record = next(info.filename for info, _ in members if info.filename.endswith(".dist-info/RECORD"))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            if info.filename == record:
                data = "".join(
                    line for line in data.decode().splitlines(keepends=True) if kept(line.split(",", 1)[0])
                ).encode()
            if kept(info.filename):
                out.writestr(info, data)
    return sum(not kept(info.filename) for info, _ in members)
