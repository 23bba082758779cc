"""Declarations are consistent: what the form derives from them must point at real inputs."""

import pytest

import calculators


@pytest.mark.parametrize("name", ["memory", "cost"])
def test_only_when_names_a_declared_choice_and_its_values(name):
    inputs = {i["name"]: i for i in calculators.describe(name)["inputs"]}
    conditional = [i for i in inputs.values() if i["only_when"]]
    assert conditional
    for inp in conditional:
        controller = inputs[inp["only_when"]["field"]]
        assert controller["kind"] == "choice", inp["name"]
        choices = {c["value"] for c in controller["choices"]}
        assert set(inp["only_when"]["values"]) <= choices, inp["name"]


def test_preset_dimensions_are_only_for_custom_models():
    inputs = {i["name"]: i for i in calculators.describe("memory")["inputs"]}
    assert inputs["layers"]["only_when"] == {"field": "model", "values": ["custom"]}
    assert "custom" in {c["value"] for c in inputs["model"]["choices"]}
