"""Bytecode for the browser's Python, compiled at build time by the Pyodide the site ships.

Without it, each reader's browser compiles the calculators' source on every start, a third of the
time the worker spends between Pyodide being up and the first answer. The `.pyc` files must come from
Pyodide's own interpreter (its CPython version sets the format and the `cpython-3XX` tag), so the
build runs that interpreter under Node, which `npm ci` already brought for Pyodide itself.

Each pyc lies beside its module (`guidekit/render/worker.pyc`, not in `__pycache__/`): the browser imports the
wheel straight from the archive (zipimport), which looks for `<module>.pyc` there and prefers it to the
source. They are "unchecked-hash" pycs (PEP 552): Python uses them without comparing the source's
timestamp, which an archive does not keep.

`add_bytecode` is plain Python and runs inside Pyodide; `compile_wheels` drives it from the build.
Starting Pyodide under Node for it takes about 2.6 s of every build, so a compiled wheel is kept in a
cache folder under the name of what made it (the wheel's files, the packages, this module, Pyodide's
version) and reused while none of those changes: `make dev`'s rebuilds and the test suite's own
builds compile once.
"""

from __future__ import annotations

import base64
import hashlib
import os
import py_compile
import shutil
import tempfile
import zipfile
from pathlib import Path

NODE_SCRIPT = """
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [pyodideDir, moduleFile, packages, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
py.runPython(readFileSync(moduleFile, "utf8"));
for (const wheel of wheels) {
  py.FS.writeFile("/tmp/wheel.zip", readFileSync(wheel));
  const added = py.runPython(`add_bytecode("/tmp/wheel.zip", ${JSON.stringify(packages.split(" "))})`);
  writeFileSync(wheel, py.FS.readFile("/tmp/wheel.zip"));
  console.log(`${wheel}: ${added} modules compiled`);
}
"""


def add_bytecode(wheel: str, packages: list[str]) -> int:
    """Compile every module of `packages` (top-level names) in the wheel at `wheel` with this
    interpreter, and add the pycs to the wheel and its RECORD. Returns how many were compiled."""
    with zipfile.ZipFile(wheel) as original:
        members = [(info, original.read(info)) for info in original.infolist()]
    record = next(info.filename for info, _ in members if info.filename.endswith(".dist-info/RECORD"))
    added = []
    with tempfile.TemporaryDirectory() as tmp:
        for info, data in members:
            top = info.filename.split("/", 1)[0]
            if top in packages and info.filename.endswith(".py"):
                source = os.path.join(tmp, info.filename)
                os.makedirs(os.path.dirname(source), exist_ok=True)
                with open(source, "wb") as f:
                    f.write(data)
                target = source + "c"  # beside its source, where zipimport looks
                py_compile.compile(
                    source,
                    cfile=target,
                    dfile=info.filename,
                    doraise=True,
                    invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
                )
                with open(target, "rb") as f:
                    added.append((os.path.relpath(target, tmp).replace(os.sep, "/"), f.read()))
    listed = [
        line
        for info, data in members
        if info.filename == record
        for line in data.decode().splitlines()
        if not line.startswith(f"{record},")
    ]
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            if info.filename != record:
                out.writestr(info, data)
        for name, data in added:
            out.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            listed.append(f"{name},sha256={digest},{len(data)}")
        out.writestr(record, "\n".join([*listed, f"{record},,"]) + "\n")
    return len(added)


# Compiled wheels kept per cache folder: a few recent ones, for switching branches back and forth.
CACHE_KEPT = 8


def user_cache() -> Path:
    """The user's cache folder for compiled wheels (XDG's; `make` points it inside the project), shared
    by every build on the machine, the test suite's small sites included."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "guidekit" / "bytecode"


def cache_key(wheel: Path, packages: list[str], pyodide_dir: Path) -> str:
    """What the compiled wheel depends on: the wheel's member names and bytes (not the zip's dates,
    which change with every `pip wheel`), the packages compiled, this module, and Pyodide's release."""
    digest = hashlib.sha256()
    digest.update(Path(__file__).read_bytes())
    digest.update(" ".join(packages).encode())
    release = Path(pyodide_dir) / "package.json"
    digest.update(release.read_bytes() if release.is_file() else str(Path(pyodide_dir).resolve()).encode())
    with zipfile.ZipFile(wheel) as z:
        for info in sorted(z.infolist(), key=lambda i: i.filename):
            digest.update(info.filename.encode() + b"\0" + hashlib.sha256(z.read(info)).digest())
    return digest.hexdigest()[:32]


def compile_wheels(wheels: list[Path], packages: list[str], pyodide_dir: Path, cache: Path | None = None) -> str:
    """Add Pyodide's bytecode for `packages` to each wheel, in place; returns what was done, a line per
    wheel. With `cache`, a wheel compiled before from the same inputs is taken from there instead.
    RuntimeError, with Node's own words, when that cannot be done."""
    kept = {wheel: cache / f"{cache_key(wheel, packages, pyodide_dir)}.whl" for wheel in wheels} if cache else {}
    report = []
    todo = []
    for wheel in wheels:
        if wheel in kept and kept[wheel].is_file():
            shutil.copyfile(kept[wheel], wheel)
            os.utime(kept[wheel])  # recently used: kept by the pruning below
            report.append(f"{wheel}: bytecode from the cache ({kept[wheel].name})")
        else:
            todo.append(wheel)
    if todo:
        report.append(_compile(todo, packages, pyodide_dir))
        for wheel in todo:
            if wheel in kept:
                _keep(wheel, kept[wheel])
    return "\n".join(report)


def _keep(wheel: Path, target: Path) -> None:
    """Copy into the cache under its final name at once (a concurrent build reads whole files only),
    and drop all but the CACHE_KEPT most recently used."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.part")
    shutil.copyfile(wheel, partial)
    os.replace(partial, target)
    kept = sorted(target.parent.glob("*.whl"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[CACHE_KEPT:]:
        old.unlink(missing_ok=True)


def _compile(wheels: list[Path], packages: list[str], pyodide_dir: Path) -> str:
    """Node and Pyodide add the bytecode to each wheel; returns Node's report."""
    import subprocess

    node = shutil.which("node")
    if node is None:
        raise RuntimeError("Node.js is needed to compile the calculators for Pyodide (it comes with npm; see README)")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "compile.mjs"
        script.write_text(NODE_SCRIPT, encoding="utf-8")
        run = subprocess.run(
            [node, str(script), str(Path(pyodide_dir).resolve()), __file__, " ".join(packages), *map(str, wheels)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    if run.returncode != 0:
        raise RuntimeError(f"Compiling the calculators for Pyodide failed:\n{run.stderr.strip()[-2000:]}")
    return run.stdout.strip()
