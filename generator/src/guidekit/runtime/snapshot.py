"""A Pyodide memory snapshot of the calculators' runtime, so a reader's page is live without starting Python.

Starting Pyodide and importing the site's modules takes seconds of a reader's CPU on every visit; restoring
the memory of a runtime that already did both takes a fraction of that (`benchmarks/README.md`). The build
makes the snapshot once, under Node.js with the very Pyodide files and wheels the site ships (`snapshot.mjs`),
and the browser's worker restores it, falling back to a plain start when it cannot (no snapshot, a failed
download, a Pyodide that refuses it). The snapshot API is Pyodide's own but underscored (`_makeSnapshot`,
`_loadSnapshot`): it is tied to the pinned Pyodide, and a snapshot is only ever restored by the build's
own copy of it: the file's name carries a digest of what it is made from (the Pyodide files, the wheels, the
modules and the script). Not of its bytes, which differ from build to build (timestamps of the runtime's
in-memory files, its own random state): the same inputs give the same name, and the same pages.

Without Node.js the build says so and the site starts the plain way.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).with_name("snapshot.mjs")
TIMEOUT_S = 300
SUFFIX = ".pyodide-snapshot"


def _inputs_digest(pyodide_dir: Path, wheels: list[Path], modules: list[str]) -> str:
    from .assets import PYODIDE_FILES

    digest = hashlib.sha256(SCRIPT.read_bytes())
    for path in [*(pyodide_dir / name for name in PYODIDE_FILES), *wheels]:
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(" ".join(modules).encode())
    return digest.hexdigest()[:12]


def make_snapshot(
    pyodide_dir: Path, wheels: list[Path], modules: list[str], out_dir: Path
) -> tuple[Path | None, str, bool]:
    """(the snapshot, named by its digest, in `out_dir`, or None; one line for the build log; whether that
    line is a warning: Node.js failed, rather than was not there)."""
    node = shutil.which("node")
    if node is None:
        return (
            None,
            "No memory snapshot of the calculators' runtime: Node.js is not installed (pages start Pyodide)",
            False,
        )
    raw = out_dir / f"runtime{SUFFIX}"
    command = [node, str(SCRIPT), str(pyodide_dir.resolve()), str(raw), " ".join(modules), *map(str, wheels)]
    try:
        subprocess.run(command, check=True, capture_output=True, text=True, timeout=TIMEOUT_S)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        last = (detail.strip().splitlines() or [""])[-1][:300]
        return None, f"No memory snapshot of the calculators' runtime (pages start Pyodide): {last}", True
    named = raw.rename(out_dir / f"runtime-{_inputs_digest(pyodide_dir, wheels, modules)}{SUFFIX}")
    return named, f"Memory snapshot of the calculators' runtime: {named.stat().st_size / 1e6:.1f} MB", False
