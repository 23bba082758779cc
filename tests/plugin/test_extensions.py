"""Build extensions (guidekit.site.extensions): the guide's own markers and checks, named in mkdocs.yml,
refused by name when they cannot load or their options are wrong."""

from __future__ import annotations

import sys
import types

import pytest

from guidekit.site import extensions, markers
from tests.conftest import ROOT

GUIDE = {
    "results_dir": "results",
    "accuracy_file": "benchmarks/results/memory_accuracy.json",
    "traced_file": "benchmarks/results/memory_traced.json",
}


def test_this_guides_extension_loads_its_state_and_registers_its_markers():
    states, warnings = extensions.start({"gpuguide.site": GUIDE}, ROOT)
    state = states["gpuguide.site"]
    assert [name for name, _ in state.runs] == sorted(p.name for p in (ROOT / "results").glob("*.json"))
    assert warnings == []  # the shipped catalog sits inside the public band
    assert {"catalog-table", "pilot-results", "memory-accuracy", "memory-traced", "public-prices"} <= {
        m.name for m in markers.table()
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # a misspelt results folder would otherwise read as "no runs", a missing matrix as an empty table
        ({"results_dir": "resluts"}, r"option 'results_dir': the folder '.*/resluts' does not exist\. .*gpu-pilot run"),
        ({"accuracy_file": "x.json"}, r"option 'accuracy_file': .*python -m benchmarks\.memory_accuracy`"),
        ({"traced_file": "x.json"}, r"option 'traced_file': .*memory_accuracy --traced`"),
        ({"result_dir": "results"}, r"unknown option 'result_dir'; expected results_dir, accuracy_file, traced_file"),
    ],
)
def test_a_bad_option_of_this_guides_extension_is_refused_by_name(options, message):
    with pytest.raises(ValueError, match=r"^extension 'gpuguide\.site': " + message):
        extensions.start({"gpuguide.site": {**GUIDE, **options}}, ROOT)


def test_an_extension_that_does_not_import_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"^extension 'no_such_extension': no module of that name"):
        extensions.start({"no_such_extension": {}}, tmp_path)


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ('DATA = {}\nTERMS = DATA["terms"]\n', "KeyError: 'terms'"),  # attack finding 16: a catalog missing a key
        ("import json\njson.loads('{')\n", "JSONDecodeError: Expecting property name enclosed in double quotes"),
        ("import missing_dependency_of_it\n", "ModuleNotFoundError: No module named 'missing_dependency_of_it'"),
    ],
)
def test_an_extension_whose_import_fails_is_one_line_naming_where(tmp_path, monkeypatch, code, error):
    (tmp_path / "broken_ext.py").write_text(code, encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(ValueError) as caught:
        extensions.start({"broken_ext": {}}, tmp_path)
    message = str(caught.value)
    assert message.startswith(f"extension 'broken_ext': importing it failed with {error}") and "\n" not in message
    assert "broken_ext.py:" in message
    sys.modules.pop("broken_ext", None)


def test_an_extension_beside_mkdocs_yml_is_found_and_options_need_a_configure(tmp_path, monkeypatch):
    (tmp_path / "tables_ext.py").write_text("def check(state):\n    return ['look']\n", encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert extensions.start({"tables_ext": {}}, tmp_path) == ({"tables_ext": None}, ["look"])
    with pytest.raises(ValueError, match=r"^extension 'tables_ext': takes no options \(got size\)"):
        extensions.start({"tables_ext": {"size": 1}}, tmp_path)


def test_a_failing_check_stops_the_build_with_its_message(monkeypatch):
    module = types.ModuleType("failing_ext")
    module.check = lambda state: (_ for _ in ()).throw(ValueError("prices.json: expected an object"))
    monkeypatch.setitem(sys.modules, "failing_ext", module)
    with pytest.raises(ValueError, match=r"^extension 'failing_ext': prices\.json: expected an object$"):
        extensions.start({"failing_ext": {}}, ROOT)


def test_a_marker_name_is_checked():
    with pytest.raises(ValueError, match="lowercase letters, digits and hyphens"):
        markers.register(markers.block("Bad Name", lambda match, ctx: ""))
