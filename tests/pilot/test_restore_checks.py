"""The restore check's findings as data (`restore.checks`) beside the terminal's English sentences:
one structured item per kind of difference, within the schema's limits, the sentences unchanged."""

from __future__ import annotations

import copy
import json

from pilot.checkpoint import compare_fingerprints, state_differences
from tests.conftest import ROOT

WANT = {
    "data_position": {"epoch": "0", "batch": "3"},
    "optimizer": {"state.w.exp_avg": "tensor a", "param_groups[0].lr": "0.1"},
}
GOT = {"data_position": {"epoch": "0", "batch": "0"}, "optimizer": {"param_groups[0].lr": "0.1", "extra": "1"}}


def test_each_kind_of_difference_is_one_item_and_the_sentences_stay():
    assert state_differences(WANT, GOT) == [
        {
            "check": "state",
            "passed": False,
            "component": "data_position",
            "problem": "differ",
            "count": 1,
            "total": 2,
            "first": "batch",
            "expected": "3",
            "got": "0",
        },
        {
            "check": "state",
            "passed": False,
            "component": "optimizer",
            "problem": "missing",
            "count": 1,
            "total": 2,
            "first": "state.w.exp_avg",
        },
        {
            "check": "state",
            "passed": False,
            "component": "optimizer",
            "problem": "unexpected",
            "count": 1,
            "total": 2,
            "first": "extra",
        },
    ]
    assert compare_fingerprints(WANT, GOT) == [
        "data_position not restored: 1 of 2 entries differ (first: batch: expected 3, got 0)",
        "optimizer not restored: 1 of 2 entries missing (first: state.w.exp_avg); 1 unexpected entries (first: extra)",
    ]
    assert state_differences(WANT, WANT) == []


def test_long_keys_and_fingerprints_are_clipped_to_the_schema(validate):
    long = "k" * 5000
    items = state_differences({"model": {long: "a" * 5000}}, {"model": {long: "b" * 5000}})
    data = json.loads((ROOT / "results" / "sample-cpu.json").read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["restore"]["checks"] = items
    validate(data)
