"""Pilot result files in `results/`: validated at build time, rendered where a page says
`<!-- pilot-results -->`. Validation and rendering are gpuguide.results', the same code the browser runs
when a reader picks a file on a calculator page."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gpuguide import results
from guidekit.site.sources_guard import one_line as _safe


def _read(path: Path) -> tuple[bytes | None, str | None]:
    """The file's bytes, or why not: size and kind are checked before reading (a symlink to
    /dev/zero or a folder named x.json must not be read), and never more than the limit is read."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file (a folder, device or pipe): remove it or rename it"
        if info.st_size > results.MAX_BYTES:
            return None, f"larger than a result file can be ({info.st_size} bytes; at most {results.MAX_BYTES})"
        with open(path, "rb") as f:
            data = f.read(results.MAX_BYTES + 1)  # a file that grew since stat is refused by parse
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    return data, None


def load_runs(results_dir: Path, root: Path) -> list[tuple[str, dict]]:
    """Every `*.json` under `results_dir`, parsed and validated; one clear line per problem, no page
    written, when any file fails."""
    runs, lines = [], []
    for path in sorted(results_dir.rglob("*.json")):  # subfolders too, e.g. results/gpu/ from gpu_pilot.sh
        name = _safe(path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path))
        raw, why = _read(path)
        if why:
            lines.append(f"{name}: {why}")
            continue
        data, problems = results.parse(raw)
        for problem in problems:
            lines.append(f"{name}: {_safe(results.english(problem))}")
        if not problems:
            runs.append((path.relative_to(results_dir).as_posix(), data))
    if lines:
        raise ValueError("Invalid pilot result files:\n" + "\n".join(lines))
    return runs
