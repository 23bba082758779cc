"""Pilot result files in `results/`: validated at build time, rendered where a page says
`<!-- pilot-results -->`. Validation and rendering are calcui's, the same code the browser runs
when a reader picks a file on a calculator page."""

from __future__ import annotations

from pathlib import Path

from calcui import Translator, results
from mkdocs.exceptions import PluginError


def load_runs(results_dir: Path, root: Path) -> list[tuple[str, dict]]:
    """Every `*.json` under `results_dir`, parsed and validated; one clear line per problem, no page
    written, when any file fails."""
    runs, lines = [], []
    english = Translator({"locale": "en", "messages": {}})
    for path in sorted(results_dir.rglob("*.json")):  # subfolders too, e.g. results/gpu/ from gpu_pilot.sh
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        data, problems = results.parse(path.read_bytes())
        for problem in problems:
            lines.append(f"{name}: {results.problem_message(problem, english)}")
        if not problems:
            runs.append((path.relative_to(results_dir).as_posix(), data))
    if lines:
        raise PluginError("Invalid pilot result files:\n" + "\n".join(lines))
    return runs
