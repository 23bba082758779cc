"""Check result files with the validator the site uses (`calcui.results`, standard library only),
so the rented machine and the build agree on what is valid."""
from __future__ import annotations

from pathlib import Path


def problems(path: Path) -> list[str]:
    """Readable problems of one result file (size, encoding, JSON, schema); [] when it is valid."""
    from calcui.results import parse

    _, found = parse(path.read_bytes())
    return [f"{p['pointer'] or '(root)'}: expected {p['expected']}" for p in found]
