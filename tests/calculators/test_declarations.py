"""Declarations are consistent: what the form derives from them must point at real inputs."""

import pytest

import calculators
from tests.conftest import locale_packs


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
    """The page's formatter, the form's unit labels and the command line all read one declaration per unit:
    the framework's common ones, and this guide's own (money, plans, tokens), registered by its package."""
    from guidekit.calc.display import UNITS
    from guidekit.l10n import Localizer
    from guidekit.site.markers.calculator_embed import unit_label

    loc = Localizer(locale_packs()["es"])
    samples = {"text": "Yes", "bool": True, "plan": [[2, "1 day"]], "raw": "x"}
    for code, unit in UNITS.items():
        assert isinstance(unit.format(samples.get(code, 1234.5), loc), str) and unit.format(samples.get(code, 0), loc)
        assert isinstance(unit_label(code), str)
    assert {"usd", "plan", "tokens_per_s"} <= set(UNITS)


def test_a_unit_is_declared_once():
    from guidekit.calc import Unit, register_unit

    with pytest.raises(ValueError, match="unit 'usd' is already declared otherwise"):
        register_unit("usd", Unit("EUR"))
