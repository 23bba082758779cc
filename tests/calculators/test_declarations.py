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


def test_register_refuses_a_unit_outside_the_display_contract():
    import types

    from calculators import Input, register
    from guidekit.calc.display import UNITS

    bad = types.SimpleNamespace(
        NAME="furlongs",
        TITLE="Furlongs",
        run=lambda values: {},
        INPUTS=(Input("distance", "float", 1.0, "Distance", unit="furlong", min=0, max=9),),
    )
    with pytest.raises(ValueError, match=r"furlongs: unknown unit on distance \('furlong'\)"):
        register(bad)
    assert "furlongs" not in calculators.names() and "furlong" not in UNITS


def test_every_unit_has_one_localized_form_and_one_input_label():
    """The page's formatter, the form's unit labels and the command line all follow guidekit.calc.display."""
    from guidekit.calc.display import UNITS
    from guidekit.render._figures import FORMATS
    from guidekit.site.markers.calculator_embed import UNIT_LABELS

    assert list(FORMATS) == list(UNITS)
    assert set(UNIT_LABELS) == set(UNITS) | {""}
