"""The browser wheel carries bytecode compiled by the Pyodide the site ships (guidebuild.runtime.bytecode)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import shutil
import subprocess
import zipfile

import pytest

from guidebuild.runtime import bytecode
from tests.conftest import ROOT

NODE_READY = shutil.which("node") is not None and (ROOT / "node_modules" / "pyodide").is_dir()


@pytest.fixture
def wheel(project_wheel):
    return project_wheel  # shared by the session: the tests that add bytecode work on a copy


def _record(z: zipfile.ZipFile) -> dict[str, str]:
    name = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    return {line.split(",", 1)[0]: line.split(",", 1)[1] for line in z.read(name).decode().splitlines()}


def test_each_module_of_the_packages_gets_an_unchecked_pyc_listed_in_record(wheel, tmp_path):
    copy = tmp_path / wheel.name
    shutil.copy(wheel, copy)
    count = bytecode.add_bytecode(str(copy), ["calcui"])
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(copy) as after:
        sources = [n for n in before.namelist() if n.startswith("calcui/") and n.endswith(".py")]
        assert count == len(sources) > 10
        for source in sources:
            pyc = source + "c"  # beside its source, where zipimport looks
            data = after.read(pyc)
            assert int.from_bytes(data[4:8], "little") == 0b01  # PEP 552: hash-based, source not checked
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert _record(after)[pyc] == f"sha256={digest},{len(data)}"
        # Nothing else changed, and only the packages named were compiled.
        assert all(after.read(n) == before.read(n) for n in before.namelist() if not n.endswith("RECORD"))
        assert not [n for n in after.namelist() if n.endswith(".pyc") and not n.startswith("calcui/")]
        assert set(_record(before)) < set(_record(after))


@pytest.mark.slow
@pytest.mark.skipif(not NODE_READY, reason="needs Node and node_modules/pyodide (make setup)")
def test_pyodide_imports_the_compiled_modules_not_their_source(wheel, tmp_path):
    copy = tmp_path / wheel.name
    shutil.copy(wheel, copy)
    report = bytecode.compile_wheels([copy], ["calculators", "calcui"], ROOT / "node_modules" / "pyodide")
    assert "modules compiled" in report
    with zipfile.ZipFile(copy) as z:
        pyc = z.read("calcui/worker.pyc")
        members = [(info, z.read(info)) for info in z.infolist()]
    # Pyodide's CPython made it, not this one: the magic number names the interpreter's version.
    assert pyc[:4] != importlib.util.MAGIC_NUMBER
    # A line added to a module's source after the build: imported from the archive as the browser
    # worker does (on sys.path, zipimport), the import runs the build's bytecode, so the line is not seen.
    with zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in members:
            z.writestr(info, data + b"\nEDITED = True\n" if info.filename == "calcui/worker.py" else data)
    script = tmp_path / "probe.mjs"
    script.write_text(
        f"""
import {{ readFileSync }} from "node:fs";
import {{ loadPyodide }} from "{(ROOT / "node_modules" / "pyodide" / "pyodide.mjs").as_uri()}";
const py = await loadPyodide();
py.FS.writeFile("/home/pyodide/site-0.whl", new Uint8Array(readFileSync("{copy}")));
py.runPython("import sys; sys.path.insert(0, '/home/pyodide/site-0.whl')");
console.log(py.runPython("import calcui.worker; hasattr(calcui.worker, 'EDITED')"));
""",
        encoding="utf-8",
    )
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "false"


def test_without_node_the_build_says_what_is_missing(monkeypatch, wheel):
    monkeypatch.setattr(bytecode.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="Node.js is needed"):
        bytecode.compile_wheels([wheel], ["calcui"], ROOT / "node_modules" / "pyodide")
