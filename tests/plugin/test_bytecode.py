"""The browser wheel carries bytecode compiled by the Pyodide the site ships (guidekit.runtime.bytecode)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import shutil
import subprocess
import zipfile

import pytest

from guidekit.runtime import bytecode
from tests.conftest import ROOT

NODE_READY = shutil.which("node") is not None and (ROOT / "node_modules" / "pyodide").is_dir()


@pytest.fixture
def wheel(generator_wheel):
    return generator_wheel  # shared by the session: the tests that add bytecode work on a copy


def _record(z: zipfile.ZipFile) -> dict[str, str]:
    name = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    return {line.split(",", 1)[0]: line.split(",", 1)[1] for line in z.read(name).decode().splitlines()}


def test_each_module_of_the_packages_gets_an_unchecked_pyc_listed_in_record(wheel, tmp_path):
    copy = tmp_path / wheel.name
    shutil.copy(wheel, copy)
    count = bytecode.add_bytecode(str(copy), ["guidekit"])
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(copy) as after:
        sources = [n for n in before.namelist() if n.startswith("guidekit/") and n.endswith(".py")]
        assert count == len(sources) > 10
        for source in sources:
            pyc = source + "c"  # beside its source, where zipimport looks
            data = after.read(pyc)
            assert int.from_bytes(data[4:8], "little") == 0b01  # PEP 552: hash-based, source not checked
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert _record(after)[pyc] == f"sha256={digest},{len(data)}"
        # Nothing else changed, and only the packages named were compiled.
        assert all(after.read(n) == before.read(n) for n in before.namelist() if not n.endswith("RECORD"))
        assert not [n for n in after.namelist() if n.endswith(".pyc") and not n.startswith("guidekit/")]
        assert set(_record(before)) < set(_record(after))


@pytest.mark.slow
@pytest.mark.skipif(not NODE_READY, reason="needs Node and node_modules/pyodide (make setup)")
def test_pyodide_imports_the_compiled_modules_not_their_source(wheel, tmp_path):
    copy = tmp_path / wheel.name
    shutil.copy(wheel, copy)
    report = bytecode.compile_wheels([copy], ["calculators", "guidekit"], ROOT / "node_modules" / "pyodide")
    assert "modules compiled" in report
    with zipfile.ZipFile(copy) as z:
        pyc = z.read("guidekit/render/worker.pyc")
        members = [(info, z.read(info)) for info in z.infolist()]
    # Pyodide's CPython made it, not this one: the magic number names the interpreter's version.
    assert pyc[:4] != importlib.util.MAGIC_NUMBER
    # A line added to a module's source after the build: imported from the archive as the browser
    # worker does (on sys.path, zipimport), the import runs the build's bytecode, so the line is not seen.
    with zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in members:
            z.writestr(
                info,
                data + b"\nEDITED = True\n" if info.filename == "guidekit/render/worker.py" else data,
            )
    script = tmp_path / "probe.mjs"
    script.write_text(
        f"""
import {{ readFileSync }} from "node:fs";
import {{ loadPyodide }} from "{(ROOT / "node_modules" / "pyodide" / "pyodide.mjs").as_uri()}";
const py = await loadPyodide();
py.FS.writeFile("/home/pyodide/site-0.whl", new Uint8Array(readFileSync("{copy}")));
py.runPython("import sys; sys.path.insert(0, '/home/pyodide/site-0.whl')");
console.log(py.runPython("import guidekit.render.worker; hasattr(guidekit.render.worker, 'EDITED')"));
""",
        encoding="utf-8",
    )
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "false"


def test_without_node_the_build_says_what_is_missing(monkeypatch, wheel):
    monkeypatch.setattr(bytecode.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="Node.js is needed"):
        bytecode.compile_wheels([wheel], ["guidekit"], ROOT / "node_modules" / "pyodide")


def _rezipped(source, target, date=(2030, 1, 2, 3, 4, 6), edit: bytes = b""):
    """`source` written again as another `pip wheel` run would: other dates, and `edit` appended to
    guidekit/render/worker.py when given."""
    with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            data = z.read(info) + (edit if info.filename == "guidekit/render/worker.py" else b"")
            out.writestr(zipfile.ZipInfo(info.filename, date_time=date), data)
    return target


@pytest.fixture
def compiles(monkeypatch):
    """Node's part replaced by a marker member, and each call recorded: the cache's logic, without Pyodide."""
    calls = []

    def fake(wheels, packages, pyodide_dir):
        calls.append(list(wheels))
        for wheel in wheels:
            with zipfile.ZipFile(wheel, "a") as z:
                z.writestr("compiled-by-pyodide.txt", " ".join(packages))
        return f"{len(wheels)} compiled"

    monkeypatch.setattr(bytecode, "_compile", fake)
    return calls


def test_a_compiled_wheel_is_reused_until_what_made_it_changes(wheel, tmp_path, compiles):
    cache, pyodide = tmp_path / "cache", ROOT / "node_modules" / "pyodide"
    first = _rezipped(wheel, tmp_path / "first.whl")
    assert bytecode.compile_wheels([first], ["guidekit"], pyodide, cache) == "1 compiled"
    # The same files from another `pip wheel` run (other dates): taken from the cache, as compiled.
    again = _rezipped(wheel, tmp_path / "again.whl", date=(2031, 5, 6, 7, 8, 10))
    assert "bytecode from the cache" in bytecode.compile_wheels([again], ["guidekit"], pyodide, cache)
    assert again.read_bytes() == first.read_bytes() and len(compiles) == 1
    # A module edited, or other packages compiled: compiled afresh.
    edited = _rezipped(wheel, tmp_path / "edited.whl", edit=b"\nEDITED = True\n")
    bytecode.compile_wheels([edited], ["guidekit"], pyodide, cache)
    bytecode.compile_wheels([_rezipped(wheel, tmp_path / "more.whl")], ["guidekit", "calculators"], pyodide, cache)
    assert len(compiles) == 3
    # Without a cache folder nothing is kept or read.
    bytecode.compile_wheels([_rezipped(wheel, tmp_path / "plain.whl")], ["guidekit"], pyodide)
    assert len(compiles) == 4 and len(list(cache.glob("*.whl"))) == 3


def test_the_cache_keeps_the_most_recently_used_wheels(wheel, tmp_path, compiles):
    cache, pyodide = tmp_path / "cache", ROOT / "node_modules" / "pyodide"
    for k in range(bytecode.CACHE_KEPT + 3):
        made = _rezipped(wheel, tmp_path / f"w{k}.whl", edit=f"\nVERSION = {k}\n".encode())
        bytecode.compile_wheels([made], ["guidekit"], pyodide, cache)
    assert len(list(cache.glob("*.whl"))) == bytecode.CACHE_KEPT
    assert not list(cache.glob("*.part"))
