"""Check result files against the result contract (`pilot.result`), worded as the site words them
(`calcui.results.english`), so the rented machine and the build agree on what is valid and why."""

from __future__ import annotations

from pathlib import Path

from .result import parse


def problems(path: Path) -> list[str]:
    """Readable problems of one result file (size, encoding, JSON, schema); [] when it is valid."""
    from calcui.results import english  # the wording layer; the contract itself is the leaf above

    _, found = parse(path.read_bytes())
    return [english(p) for p in found]
