"""The browser runtime the site ships: Pyodide's files, copied once for all locales; the site's own wheels;
and the name of Material's search worker, looked up in the theme's files."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

import guidekit

# The Pyodide release the generator is tested with: the site's package.json pins it (npm `pyodide`).
PYODIDE_VERSION = "314.0.7"

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


def check_pyodide(source: Path) -> None:
    """The runtime's files are there, of the release this generator was tested with; or one line saying the
    exact npm command that installs it."""
    install = f"npm install --save-exact pyodide@{PYODIDE_VERSION}"
    missing = [name for name in PYODIDE_FILES if not (source / name).is_file()]
    if missing:
        raise PluginError(
            f"Pyodide runtime not found in {source} (missing {', '.join(missing)}). Run `{install}` "
            "(or `npm ci` where package.json pins it)."
        )
    try:
        found = json.loads((source / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        found = "an unknown release"
    if found != PYODIDE_VERSION:
        raise PluginError(
            f"Pyodide {found} in {source}, but guidekit is tested with {PYODIDE_VERSION}: run `{install}`."
        )


def copy_pyodide(source: Path, site_dir: Path) -> Path:
    target = site_dir / "assets" / "pyodide"
    check_pyodide(source)
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copy2(source / name, target / name)
    return target


# What a wheel is never built from: version control, environments, caches anywhere; and at the project's top,
# its build outputs and test artifacts (a package may well be named `site` or `build`).
_NEVER = shutil.ignore_patterns(
    ".git", ".venv", "venv", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache"
)
_TOP_ONLY = shutil.ignore_patterns("node_modules", "site", "build", "dist", ".tmp", "test-artifacts")


def _not_sources(project: Path):
    def ignore(folder: str, names: list[str]) -> set[str]:
        return _NEVER(folder, names) | (_TOP_ONLY(folder, names) if Path(folder) == project else set())

    return ignore


def build_wheels(projects: list[Path], out_dir: Path) -> list[Path]:
    """Pure-Python wheels of `projects` (this guide's carries its calculators and import panels), which Pyodide
    installs as they are. `pyodide build` needs a download to cross-build; pip needs none."""
    if not projects:
        return []
    import subprocess
    import sys
    import tempfile

    out_dir.mkdir(parents=True, exist_ok=True)
    # setuptools builds inside the source tree (build/, *.egg-info) and never deletes from it: a module
    # removed since the last build would still ship, and two builds at once (a test run's workers, `mkdocs
    # serve` beside `make site`) would write the same files. Each build works on its own copy of the sources.
    with tempfile.TemporaryDirectory(prefix="guide-wheel-") as scratch:
        copies = [
            shutil.copytree(project, Path(scratch) / str(i), ignore=_not_sources(project))
            for i, project in enumerate(projects)
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


def generator_wheel(out_dir: Path) -> Path:
    """The generator's browser layers (`BROWSER_FILES`) as a pure-Python wheel, packed from the installed
    package itself, editable or not: no source checkout, no pip. Byte-identical for identical sources."""
    package = Path(guidekit.__file__).parent
    version = guidekit.__version__
    dist = f"guidekit-{version}.dist-info"
    files = sorted(
        (path.relative_to(package.parent).as_posix(), path.read_bytes())
        for path in package.rglob("*.py")
        if "__pycache__" not in path.parts and path.relative_to(package.parent).as_posix().startswith(BROWSER_FILES)
    )
    files += [
        (f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: guidekit\nVersion: {version}\n".encode()),
        (f"{dist}/WHEEL", b"Wheel-Version: 1.0\nGenerator: guidekit\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join(
        f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}\n"
        for name, data in files
    )
    files.append((f"{dist}/RECORD", (record + f"{dist}/RECORD,,\n").encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"guidekit-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED  # a ZipInfo's own type wins over the archive's default
            out.writestr(info, data)
    return wheel


def worker_packages(modules: list[str], importers: list[str] = ()) -> list[str]:
    """The top-level packages whose modules are compiled for the browser: the generator's, each calculator
    module's (imported at start) and each import panel's (imported on the first file)."""
    return sorted({"guidekit", *(m.split(".")[0] for m in (*modules, *importers))})


def browser_files(modules: list[str], extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What `browser_only` keeps: the generator's browser layers, the top-level package or module of each
    calculator module the worker imports at start, and `extra` (the files the import panels declare)."""
    tops = sorted({m.split(".")[0] for m in modules})
    return (*BROWSER_FILES, *(f"{top}/" for top in tops), *(f"{top}.py" for top in tops), *extra)


def unprovided(wheels: list[Path], modules: list[str]) -> list[str]:
    """Of the modules the browser imports (dotted names), those no wheel holds: each would stop the
    calculators in the reader's browser with ModuleNotFoundError while the build, which imports them from
    its own Python, succeeded."""
    names = {name for wheel in wheels for name in zipfile.ZipFile(wheel).namelist()}
    missing = []
    for module in modules:
        path = module.replace(".", "/")
        if f"{path}.py" not in names and f"{path}/__init__.py" not in names:
            missing.append(module)
    return missing


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
