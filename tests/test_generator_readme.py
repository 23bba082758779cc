"""The generator's README (its "Writing a guide" document) shows code that works as written."""

from __future__ import annotations

import re
import sys
import types

import yaml

from guidekit import calc
from tests.conftest import ROOT

README = (ROOT / "generator" / "README.md").read_text(encoding="utf-8")


def _block(language: str, after: str) -> str:
    return re.search(rf"{re.escape(after)}.*?```{language}\n(.*?)```", README, re.S)[1]


def test_the_calculator_example_registers_and_answers(monkeypatch):
    module = types.ModuleType("heatcalc_readme")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(_block("python", "## Writing a calculator"), "README.md", "exec"), module.__dict__)
    try:
        answer = calc.compute("heat", {"area": "100"})
        assert answer["ok"] and answer["result"]["watts"] == 100 * 20 * 1.5
        assert {e["code"] for e in calc.compute("heat", {"area": "5"})["errors"]} == {"out_of_range"}
    finally:
        monkeypatch.delitem(calc._registry._CALCULATORS, "heat")


def test_the_options_table_names_every_plugin_option():
    from guidekit.site.config import GuideConfig

    documented = set(re.findall(r"^\| `(\w+)` \|", README, re.M))
    assert documented == {name for name, _ in GuideConfig._schema}


def test_the_site_example_is_yaml_with_the_plugins_in_order():
    config = yaml.safe_load(_block("yaml", "## A site"))
    names = [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]]
    assert names == ["search", "i18n", "guide"]
