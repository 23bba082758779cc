"""Issue 33 item 7: the form asks in the order a reader decides, every fieldset shows something besides its
fold, the reader's prices say they are prices, and the sticky headline has a short form."""

import pytest

import calculators
from calculators import cost, memory
from guidekit import l10n, render
from guidekit.site.locale_pack import locale_pack
from guidekit.site.markers.calculator_embed import _groups
from tests.renderer.test_render import LOCALES_DIR

LOCALES = ("es", "ja", "ar")


def _titles(name):
    return [g["title"] for g in _groups(calculators.describe(name)["inputs"])]


def test_cost_asks_model_and_method_first_then_the_run_then_the_rental():
    titles = _titles("cost")
    assert titles[:6] == [memory.G_MODEL, memory.G_METHOD, cost.G_WORK, memory.G_RUN, memory.G_PAR, cost.G_RENT]
    # The reader's own prices sit beside the card and term they price (issue 51 item 7), one fold per GPU;
    # what refines the estimate follows.
    assert set(titles[6:12]) == {cost.G_PRICES}
    assert titles[12:] == [cost.G_SPEED, cost.G_IDLE, cost.G_MEM, cost.G_MEASURED]
    assert calculators.describe("cost")["inputs"][0]["name"] == "model"


def test_memory_asks_model_first_with_the_config_import_beside_it():
    assert _titles("memory") == [memory.G_MODEL, memory.G_METHOD, memory.G_RUN, memory.G_PAR]
    assert calculators.describe("memory")["inputs"][0]["name"] == "model"


def test_cost_shows_the_run_it_prices():
    run = next(g for g in _groups(calculators.describe("cost")["inputs"]) if g["title"] == memory.G_RUN)
    assert [i["name"] for i in run["inputs"]] == ["seq_len", "micro_batch"]


@pytest.mark.parametrize("name", ["memory", "cost"])
def test_no_fieldset_holds_only_more_options(name):
    """A group whose inputs are all advanced is folded whole under its own title (calculator.html),
    never a fieldset whose only content is "More options"; the only ones are the card lists."""
    folded = [
        (g["title"], tuple(g["params"].items()))
        for g in _groups(calculators.describe(name)["inputs"])
        if not g["inputs"]
    ]
    assert all(title in (cost.G_MEASURED, cost.G_PRICES) for title, _ in folded), folded


def test_each_price_fieldset_names_prices_currency_and_card():
    prices = [g for g in _groups(calculators.describe("cost")["inputs"]) if g["title"] == cost.G_PRICES]
    assert [g["params"]["gpu"] for g in prices] == [g["name"] for g in calculators._data.gpus()]
    assert all(len(g["advanced"]) == 6 and all(i["unit"] == "usd_per_hour" for i in g["advanced"]) for g in prices)
    assert "US$" in cost.G_PRICES and "{gpu}" in cost.G_PRICES


def test_each_price_table_lists_by_the_hour_first_with_the_catalog_price_beside_each_field():
    """Issue 51 item 7: one compact table per card, hourly then terms, with the catalog's price (or "not
    offered" where the catalog lists none) beside the reader's field, which starts empty."""
    described = calculators.describe("cost")
    assert described["tables"][cost.G_PRICES]["absent"] == "not offered"
    pricing = calculators._data.catalog()["pricing"]
    for group in (g for g in _groups(described["inputs"]) if g["title"] == cost.G_PRICES):
        rows = group["advanced"]
        assert [r["label"] for r in rows[:2]] == ["1 hour on demand", "1 hour on spot"]
        assert all(r["default"] is None and r["optional"] for r in rows)
        gid = rows[0]["name"].removeprefix("price_").removesuffix("_hourly")
        assert rows[0]["reference"] == pricing["on_demand_usd_per_card_hour"].get(gid)
        assert rows[1]["reference"] == pricing["spot_usd_per_card_hour"].get(gid)
        assert [r["reference"] for r in rows[2:]] == list(pricing["usd_per_card_hour"][gid].values())


def test_master_copy_help_names_the_stacks_that_keep_one_and_those_that_do_not():
    help_ = next(i for i in memory.INPUTS if i.name == "master_weights").help
    for stack in ("DeepSpeed", "FSDP", "Hugging Face Trainer", "PyTorch AMP", "Weights as loaded"):
        assert stack in help_, stack


def _headline_and_summary(name, inputs, locale):
    out = render.render(name, inputs, locale_pack(locale, LOCALES_DIR))
    assert out["ok"], out["errors"]
    return out["headline"], out["summary"]


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize(
    "name, inputs",
    [
        ("cost", {}),  # the cheapest is the reader's choice
        ("cost", {"gpu": "a100-sxm-80gb", "cards": 8}),  # another is cheaper
        ("memory", {}),  # fits
        ("memory", {"method": "full", "gpu": "rtx-4090-24gb"}),  # does not fit; alternatives listed
    ],
)
def test_the_headline_is_the_verdicts_first_clause(name, inputs, locale):
    headline, summary = _headline_and_summary(name, inputs, locale)
    assert headline and len(headline) < len(summary), (headline, summary)
    # The same card and figures open both: the headline says what the sentence says first.
    first_figure = headline.split("\u2066", 2)[1].split("\u2069")[0]
    assert first_figure in summary


def test_the_short_cost_headline_is_the_cheapest_and_its_price():
    response = calculators.compute("cost", {})
    block = next(b for b in response["result"]["display"] if b["kind"] == "verdict")
    assert block["short"]["msg"] == "Cheapest: {config}, {price} per successful output."
    assert set(block["short"]["params"]) == {"config", "price"}


def test_japanese_alternatives_are_joined_by_a_full_width_slash():
    """The 2026-12-05 review (Y4): 「{first}または{second}」 glued Latin type names to kana; the house style joins
    alternatives with ／, with no space around it."""
    from gpuguide.results._messages import type_names

    t = l10n.Translator(locale_pack("ja", LOCALES_DIR))
    text = type_names("number,string", t)
    assert text.count("／") == 1 and " ／" not in text and "／ " not in text and "または" not in text, text
