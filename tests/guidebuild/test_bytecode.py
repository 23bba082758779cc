"""The browser wheel carries bytecode compiled by the Pyodide the site ships (guidebuild.bytecode)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import shutil
import subprocess
import sys
import zipfile

import pytest

from guidebuild import bytecode
from guidebuild.assets import build_wheels
from tests.conftest import ROOT

NODE_READY = shutil.which("node") is not None and (ROOT / "node_modules" / "pyodide").is_dir()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return build_wheels([ROOT], tmp_path_factory.mktemp("wheel"))[0]


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
        tag = sys.implementation.cache_tag
        for source in sources:
            pyc = importlib.util.cache_from_source(source)
            data = after.read(pyc)
            assert pyc.endswith(f".{tag}.pyc")
            assert int.from_bytes(data[4:8], "little") == 0b01   # PEP 552: hash-based, source not checked
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
        assert "calcui/__pycache__/worker.cpython-314.pyc" in z.namelist()   # Pyodide's CPython, not this one
    # Unpacked as the browser worker does, with a line added to a module's source afterwards: the
    # import runs the build's bytecode, so the line is not seen.
    script = tmp_path / "probe.mjs"
    script.write_text(f"""
import {{ readFileSync }} from "node:fs";
import {{ loadPyodide }} from "{(ROOT / 'node_modules' / 'pyodide' / 'pyodide.mjs').as_uri()}";
const py = await loadPyodide();
const sp = py.runPython("import site; site.getsitepackages()[0]");
py.unpackArchive(new Uint8Array(readFileSync("{copy}")), "wheel", {{ extractDir: sp }});
py.runPython(`open(f"{{site.getsitepackages()[0]}}/calcui/worker.py", "a").write("\\\\nEDITED = True\\\\n")`);
console.log(py.runPython("import calcui.worker; hasattr(calcui.worker, 'EDITED')"));
""", encoding="utf-8")
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "false"


def test_without_node_the_build_says_what_is_missing(monkeypatch, wheel):
    monkeypatch.setattr(bytecode.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="Node.js is needed"):
        bytecode.compile_wheels([wheel], ["calcui"], ROOT / "node_modules" / "pyodide")
