"""`make test` runs the suite in two pytest-xdist workers with `--dist loadgroup`, and relies on its
groups (tests/conftest.py: a locale's browser tests share one worker and its live pages; the tests of a
module-scoped fixture share its one making). pytest-xdist writes each test's group into its node id on
the worker, for the scheduler to read; pytest 9.2 builds node ids another way and drops it, and the
groups then spread silently over the workers (pytest-xdist#1386, hence pytest 9.1 in pyproject.toml)."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("groups-check")
def test_pytest_xdist_keeps_each_tests_group(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("runs in make test's workers (-n 2 --dist loadgroup)")
    assert request.node.nodeid.endswith("@groups-check"), (
        f"pytest-xdist dropped this test's xdist_group ({request.node.nodeid}): see pytest-xdist#1386"
    )
