"""Bytecode for the browser's Python, compiled at build time by the Pyodide the site ships.

Without it, each reader's browser compiles the calculators' source on every start, a third of the
time the worker spends between Pyodide being up and the first answer. The `.pyc` files must come from
Pyodide's own interpreter (its CPython version sets the format and the `cpython-3XX` tag), so the
build runs that interpreter under Node, which `npm ci` already brought for Pyodide itself.

Each pyc lies beside its module (`calcui/worker.pyc`, not in `__pycache__/`): the browser imports the
wheel straight from the archive (zipimport), which looks for `<module>.pyc` there and prefers it to the
source. They are "unchecked-hash" pycs (PEP 552): Python uses them without comparing the source's
timestamp, which an archive does not keep.

`add_bytecode` is plain Python and runs inside Pyodide; `compile_wheels` drives it from the build.
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


def compile_wheels(wheels: list[Path], packages: list[str], pyodide_dir: Path) -> str:
    """Add Pyodide's bytecode for `packages` to each wheel, in place; returns Node's report.
    RuntimeError, with Node's own words, when that cannot be done."""
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
