"""The distribution's declarations point at files that exist."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_every_package_data_pattern_matches_a_file():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    dead = [f"{package}: {pattern}" for package, patterns in package_data.items() for pattern in patterns
            if not any(path.is_file() for path in (ROOT / package).glob(pattern))]
    assert not dead
