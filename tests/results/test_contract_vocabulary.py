"""Each word the result contract defines, worded by the site and written by the pilot: one set.

The schema's enums are the contract; the pilot writes their values and gpuguide.results labels them. A value
added on one side only would be written unlabelled, or labelled and refused."""

from __future__ import annotations

from gpuguide.results import _estimate, _flags, _html
from pilot import report
from pilot.result import load_schema

SCHEMA = load_schema()
PARTIAL = SCHEMA["properties"]["outcome"]["properties"]["partial"]["anyOf"][0]["properties"]


def test_partial_reasons():
    assert set(report.PARTIAL_REASONS) == set(PARTIAL["reason"]["enum"]) == set(_html.PARTIAL_REASONS)


def test_stages():
    assert set(report.STAGES) == set(PARTIAL["stage"]["enum"])


def test_scale_strategies():
    assert set(_estimate.STRATEGIES) == set(SCHEMA["$defs"]["scale_run"]["properties"]["strategy"]["enum"])


def test_flag_codes():
    assert set(_flags.LABELS) == set(SCHEMA["$defs"]["flag"]["properties"]["code"]["enum"])
