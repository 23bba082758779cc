"""Issue 51 item 7: the cost form's own prices as one compact table per card (the generator's `TableGroup`):
each term's catalog price beside the reader's empty field, "not offered" where the catalog lists none, and a
term's figure kept on one line with its unit."""

from __future__ import annotations

import re

import jinja2
import pytest

import calculators
from guidekit import calc, l10n
from guidekit.calc import Input, TableGroup
from guidekit.site.locale_pack import locale_pack
from guidekit.site.markers.calculator_embed import render_calculator
from guidekit.site.partials_env import figure_glued, partials_env
from tests.conftest import LOCALES, ROOT, THEME_DIRS


@pytest.fixture(scope="module")
def forms():
    theme = jinja2.Environment(loader=jinja2.FileSystemLoader(THEME_DIRS), extensions=["jinja2.ext.i18n"])
    out = {}
    for locale in LOCALES:
        pack = locale_pack(locale, ROOT / "locales")
        out[locale] = (pack, render_calculator("cost", partials_env(theme, pack), pack))
    return out


@pytest.mark.parametrize("locale", LOCALES)
def test_each_card_has_a_table_of_its_terms_with_the_catalog_price_beside_an_empty_field(forms, locale):
    pack, html = forms[locale]
    t, fmt = l10n.Translator(pack), l10n.NumberFormat(pack)
    tables = re.findall(r'<table class="guide-calc__table">(.*?)</table>', html, re.S)
    gpus = calculators._data.gpus()
    assert len(tables) == len(gpus)
    pricing = calculators._data.catalog()["pricing"]
    for gpu, table in zip(gpus, tables, strict=True):
        rows = re.findall(r"<tr>\s*<th scope=\"row\">(.*?)</th>\s*<td[^>]*>(.*?)</td>.*?<input ([^>]*)>", table, re.S)
        assert len(rows) == 6
        catalog = [
            pricing["on_demand_usd_per_card_hour"].get(gpu["id"]),
            pricing["spot_usd_per_card_hour"].get(gpu["id"]),
            *pricing["usd_per_card_hour"][gpu["id"]].values(),
        ]
        for (_, shown, field), price in zip(rows, catalog, strict=True):
            assert 'value=""' in field  # empty: the catalog's price
            if price is None:
                assert shown == t("not offered")
            else:
                assert fmt.number(price, max_frac=4, min_frac=0 if float(price).is_integer() else 2) in shown
        assert t("Your price") in table and t("Catalog") in table
        # A label's figure keeps its unit: "1 hour on demand" never breaks after the 1.
        assert not any(re.search(r"\d ", re.sub(r"<[^>]+>", "", label)) for label, _, _ in rows)
    # The MI300X has no spot price in the catalog: its row says so instead of a figure.
    assert "mi300x-192gb" not in pricing["spot_usd_per_card_hour"]
    # The table sits in the site's focusable scroll box, named after the card's prices.
    boxes = re.findall(
        r'<div class="guide-scroll" tabindex="0" role="region" aria-label="([^"]*)">\s*<table class="guide-calc__table">',
        html,
    )
    assert len(boxes) == len(gpus) and all(gpu["name"] in label for gpu, label in zip(gpus, boxes, strict=True))


def test_a_figure_keeps_its_unit_and_the_text_stays_escaped():
    assert figure_glued("1 hour on demand") == "1\u00a0hour on demand"
    assert figure_glued("3 أشهر") == "3\u00a0أشهر"
    assert figure_glued("a <b> 2 x") == "a &lt;b&gt; 2\u00a0x"


def test_only_an_optional_number_field_may_start_empty():
    Input("ok", "float", None, "Price", optional=True, reference=2.5)
    with pytest.raises(ValueError, match="only an optional number field"):
        Input("required", "float", None, "Price")
    with pytest.raises(ValueError, match="only an optional number field"):
        Input("choice", "choice", None, "Term", optional=True)
    described = calc.describe("cost")
    assert described["tables"] and all(
        set(t) == {"label", "reference", "field", "absent"} for t in described["tables"].values()
    )
    assert TableGroup("a", "b", "c", "d").describe() == {"label": "a", "reference": "b", "field": "c", "absent": "d"}
