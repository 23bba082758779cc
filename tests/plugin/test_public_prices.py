"""`<!-- public-prices -->`: dated public prices per card, the loader that refuses a bad file in one line naming
it, the table in every locale, the build's warning on a catalog price far from the public median, and the shipped
catalog's defaults, which are those medians (`gpuguide.catalog_prices`)."""

from __future__ import annotations

import copy
import json
import logging
import re
from html import escape
from types import SimpleNamespace

import jinja2
import pytest
from mkdocs.exceptions import PluginError

import calculators
import gpuguide.site  # noqa: F401  (registers this guide's markers)
import guidekit.calc._registry
from gpuguide import catalog_prices
from gpuguide.markers import public_prices
from guidekit.l10n import NumberFormat
from guidekit.runtime import assets
from guidekit.site import markers
from guidekit.site.locale_pack import locale_pack
from guidekit.site.partials_env import partials_env
from guidekit.site.plugin import GuidePlugin
from tests.conftest import LOCALES, ROOT, THEME_DIRS

CARDS = public_prices.datacenter_cards(calculators.catalog())


def shipped_rows() -> list[dict]:
    return json.loads(public_prices.FILE.read_text(encoding="utf-8"))["prices"]


def test_the_shipped_file_names_three_providers_per_card_each_dated_with_its_source():
    prices = public_prices.load()
    assert set(CARDS) == {"a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb", "mi300x-192gb"}
    for gpu in CARDS:
        rows = [p for p in prices if p.gpu == gpu and p.billing == "on-demand"]
        assert len({p.provider for p in rows}) >= 3, gpu
        assert all(p.date and p.url.startswith("https://") and p.source_title for p in rows), gpu
    # Each row quotes what its source states; the per-card price is the quote's, or the machine's over its cards.
    for row in shipped_rows():
        assert row["quote"], row["provider"]
        if row.get("usd_per_instance_hour") and row.get("gpus_per_instance"):
            assert row["usd_per_gpu_hour"] == pytest.approx(
                row["usd_per_instance_hour"] / row["gpus_per_instance"], abs=0.01
            )


def _with(change) -> dict:
    data = {"prices": copy.deepcopy(shipped_rows())}
    change(data)
    return data


def _set(key, value):
    return lambda data: data["prices"][0].update({key: value})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("prices"), r"expected an object with a non-empty list 'prices'"),
        (_set("date", None), r"prices\[0\]\.date is missing or empty"),
        (_set("date", "30/11/2026"), r"prices\[0\]\.date must be YYYY-MM-DD"),
        (_set("date", "2026-13-01"), r"prices\[0\]\.date is not a calendar date"),
        (_set("usd_per_gpu_hour", -2.0), r"prices\[0\]\.usd_per_gpu_hour must be a price .* got -2\.0"),
        (_set("usd_per_gpu_hour", "2.79"), r"prices\[0\]\.usd_per_gpu_hour must be a price .* got '2\.79'"),
        (_set("url", "http://example.org/"), r"prices\[0\]\.url must start with https://"),
        (_set("source_title", " "), r"prices\[0\]\.source_title is missing or empty"),
        (_set("billing", "monthly"), r"prices\[0\]\.billing must be one of 'on-demand', 'spot', 'reserved'"),
        (_set("billing", "reserved"), r"prices\[0\]\.on_demand_usd_per_gpu_hour must be the same provider's"),
        (_set("gpu", "a100-pcie-40gb"), r"prices\[0\]\.gpu 'a100-pcie-40gb' is not a card of the catalog"),
        (
            lambda d: d.update(
                prices=[r for r in d["prices"] if r["gpu"] != "mi300x-192gb"][:]
                + [r for r in d["prices"] if r["gpu"] == "mi300x-192gb"][:2]
            ),
            r"MI300X 192 GB \(mi300x-192gb\) has prices from 2 provider\(s\); the table needs on-demand prices from "
            r"at least 3",
        ),
    ],
)
def test_a_bad_file_is_refused_in_one_line_naming_it(tmp_path, change, message):
    path = tmp_path / "public_prices.json"
    path.write_text(json.dumps(_with(change)), encoding="utf-8")
    with pytest.raises(public_prices.PublicPricesError) as refused:
        public_prices.load(path)
    text = str(refused.value)
    assert text.startswith(f"{path}: ") and "\n" not in text
    assert re.search(message, text), text


def test_a_file_that_is_not_json_is_refused_naming_it(tmp_path):
    path = tmp_path / "public_prices.json"
    path.write_text('{"prices": [', encoding="utf-8")
    with pytest.raises(public_prices.PublicPricesError, match=rf"^{re.escape(str(path))}: not valid JSON"):
        public_prices.load(path)
    with pytest.raises(public_prices.PublicPricesError, match=r"missing\.json: cannot be read"):
        public_prices.load(tmp_path / "missing.json")


def _catalog_with(gpu: str, term: str | None, usd: float) -> dict:
    catalog = copy.deepcopy(calculators.catalog())
    if term is None:
        catalog["pricing"]["on_demand_usd_per_card_hour"][gpu] = usd
    else:
        catalog["pricing"]["usd_per_card_hour"][gpu][term] = usd
    return catalog


def test_the_shipped_catalog_sits_near_every_public_median():
    assert public_prices.check() == []


def test_one_far_listing_moves_the_median_little():
    """The issue's case: a $10/h listing stretched a lowest-to-highest band so far that no price was flagged."""
    medians = public_prices.medians(public_prices.load())
    assert (
        medians["h100-sxm-80gb"] == pytest.approx(3.2)
        and public_prices.band(public_prices.load())["h100-sxm-80gb"][1] == 10
    )
    lines = public_prices.check(catalog=_catalog_with("h100-sxm-80gb", None, 9.0))
    assert len(lines) == 1 and "181% above the median public on-demand price ($3.2 in" in lines[0], lines


@pytest.mark.parametrize(
    ("gpu", "term", "factor", "what"),
    [
        ("h100-sxm-80gb", "1d", 1.6, "h100-sxm-80gb term 1d at $5.12 per card-hour is 60% above the median"),
        ("a100-sxm-80gb", None, 0.4, "a100-sxm-80gb on demand at $1.08 per card-hour is 60% below the median"),
    ],
)
def test_a_catalog_price_far_from_the_median_is_named(gpu, term, factor, what):
    usd = round(public_prices.medians(public_prices.load())[gpu] * factor, 2)
    lines = public_prices.check(catalog=_catalog_with(gpu, term, usd))
    assert len(lines) == 1 and what in lines[0], lines
    assert lines[0].startswith("calculators/data/catalog.json: ") and "public_prices.json" in lines[0]


def test_a_spot_price_far_from_the_spot_median_is_named():
    catalog = copy.deepcopy(calculators.catalog())
    catalog["pricing"]["spot_usd_per_card_hour"]["h200-141gb"] = 0.5
    lines = public_prices.check(catalog=catalog)
    assert len(lines) == 1 and "h200-141gb spot at $0.5 per card-hour is 83% below the median public spot" in lines[0]


def test_a_price_half_from_the_median_is_not_flagged():
    median = public_prices.medians(public_prices.load())["h200-141gb"]
    assert public_prices.check(catalog=_catalog_with("h200-141gb", "3m", median * 1.5)) == []
    assert public_prices.check(catalog=_catalog_with("h200-141gb", "3m", median * 0.5)) == []


def test_the_shipped_defaults_are_the_public_medians():
    """Every card with public prices is priced at their medians, by the module that writes them."""
    prices, catalog = public_prices.load(), calculators.catalog()
    assert catalog_prices.drift(catalog, prices) == []
    pricing = catalog["pricing"]
    medians, spot = public_prices.medians(prices), public_prices.medians(prices, "spot")
    assert set(medians) == {g for g, s in pricing["price_sources"].items() if s.get("public_median")}
    for gpu, median in medians.items():
        assert pricing["on_demand_usd_per_card_hour"][gpu] == round(median, 2)
        assert pricing["spot_usd_per_card_hour"].get(gpu) == (round(spot[gpu], 2) if gpu in spot else None)
        assert pricing["usd_per_card_hour"][gpu]["1d"] == pricing["usd_per_card_hour"][gpu]["1w"] == round(median, 2)
    # Hyperstack publishes 15 % off the A100 and the H100 for a reservation, so a month costs 15 % less.
    assert pricing["usd_per_card_hour"]["h100-sxm-80gb"]["1m"] == round(3.2 * 0.85, 2)
    assert pricing["usd_per_card_hour"]["mi300x-192gb"]["3m"] == pricing["on_demand_usd_per_card_hour"]["mi300x-192gb"]


def test_a_catalog_that_claims_the_median_but_differs_is_named():
    catalog = _catalog_with("mi300x-192gb", None, 2.5)
    lines = catalog_prices.drift(catalog, public_prices.load())
    assert len(lines) == 1 and "mi300x-192gb claims the public median" in lines[0]
    assert "on_demand_usd_per_card_hour" in lines[0] and "--write" in lines[0]
    catalog["pricing"]["price_sources"]["mi300x-192gb"] = {
        "title": "my list",
        "as_of": "2026-12-01",
        "illustrative": False,
    }
    assert catalog_prices.drift(catalog, public_prices.load()) == []  # the owner's own prices


def test_writing_the_defaults_changes_only_the_prices(tmp_path, monkeypatch):
    """--write keeps the rest of the catalog file byte for byte, and a second run changes nothing."""
    shipped = catalog_prices.CATALOG.read_text(encoding="utf-8")
    edited = shipped.replace('"h100-sxm-80gb": 3.2,', '"h100-sxm-80gb": 9.9,', 1)
    assert edited != shipped
    path = tmp_path / "catalog.json"
    path.write_text(edited, encoding="utf-8")
    monkeypatch.setattr(catalog_prices, "CATALOG", path)
    assert catalog_prices.main([]) == 1
    assert catalog_prices.main(["--write"]) == 0
    assert path.read_text(encoding="utf-8") == shipped
    assert catalog_prices.main([]) == 0


def _pre_build(monkeypatch, catalog: dict | None = None):
    """The plugin's once-per-build checks, stopped just before it builds the wheels."""

    class Stop(Exception):
        pass

    def stop(*args, **kwargs):
        raise Stop

    if catalog is not None:
        monkeypatch.setattr(calculators, "catalog", lambda: catalog)
    monkeypatch.setattr(assets, "build_wheels", stop)
    guide = GuidePlugin()
    assert guide.load_config({"extensions": {"gpuguide.site": {}}}) == ([], [])
    i18n = SimpleNamespace(building=False, current_language="es", default_language="es")
    config = SimpleNamespace(
        plugins={"i18n": i18n},
        config_file_path=str(ROOT / "mkdocs.yml"),
        docs_dir=str(ROOT / "docs"),
        theme=SimpleNamespace(
            custom_dir=str(ROOT / "overrides"),
            dirs=[str(ROOT / "overrides")],
            get_env=lambda: jinja2.Environment(extensions=["jinja2.ext.i18n"]),
        ),
    )
    guide.on_config(config)
    with pytest.raises(Stop):
        guide.on_pre_build(config)


def test_the_build_warns_on_a_catalog_price_far_from_the_median(monkeypatch, caplog):
    median = public_prices.medians(public_prices.load())["mi300x-192gb"]
    catalog = _catalog_with("mi300x-192gb", "1w", median * 3)
    catalog["pricing"]["price_sources"]["mi300x-192gb"] = {
        "title": "my list",
        "as_of": "2026-12-01",
        "illustrative": False,
    }
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.guide")
    _pre_build(monkeypatch, catalog)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "mi300x-192gb term 1w" in warnings[0], warnings


def test_the_build_warns_on_a_catalog_that_claims_the_median_but_differs(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.guide")
    _pre_build(monkeypatch, _catalog_with("h100-sxm-80gb", "1w", 3.0))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "h100-sxm-80gb claims the public median" in warnings[0], warnings


def test_the_build_does_not_warn_on_the_shipped_catalog(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.guide")
    _pre_build(monkeypatch)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_bad_file_stops_the_build_naming_it(monkeypatch, tmp_path):
    bad = tmp_path / "public_prices.json"
    bad.write_text('{"prices": []}', encoding="utf-8")
    monkeypatch.setattr(public_prices, "FILE", bad)
    with pytest.raises(PluginError, match=rf"^extension 'gpuguide\.site': {re.escape(str(bad))}: expected an object"):
        _pre_build(monkeypatch)


@pytest.fixture(scope="module")
def pages():
    out = {}
    theme = jinja2.Environment(loader=jinja2.FileSystemLoader(THEME_DIRS), extensions=["jinja2.ext.i18n"])
    for locale in LOCALES:
        pack = locale_pack(locale, ROOT / "locales")
        ctx = markers.PageContext(env=partials_env(theme, pack), pack=pack, page="cost.md")
        out[locale] = (pack, markers.embed("<p>x</p>\n<!-- public-prices -->\n", ctx))
    return out


@pytest.mark.parametrize("locale", LOCALES)
def test_the_marker_renders_every_price_dated_with_its_link(pages, locale):
    pack, html = pages[locale]
    prices = [p for p in public_prices.load() if p.billing == "on-demand"]
    cards = public_prices.catalog_cards(calculators.catalog())
    fmt = NumberFormat(pack)
    assert "<!--" not in html
    assert html.count("<tr") == len(prices) + 1  # and the header row
    rows = re.findall(r"<tr>\s*<th scope=\"row\"><bdi>([^<]*)</bdi></th>(.*?)</tr>", html, re.S)
    assert len(rows) == len(prices)
    for p in prices:
        assert any(
            card == cards[p.gpu]
            and f"<bdi>{escape(p.provider)}</bdi>" in cells
            and f">{fmt.money(p.usd_per_gpu_hour)}<" in cells
            and f'datetime="{p.date}"' in cells
            and f'href="{escape(p.url)}"' in cells
            for card, cells in rows
        ), p
    for low, high in public_prices.band(prices).values():
        assert fmt.money(low) in html and fmt.money(high) in html
    for median in public_prices.medians(prices).values():
        assert fmt.money(median) in html


def test_the_table_is_translated(pages):
    english = (
        "Provider",
        "Price per card-hour",
        "Public on-demand list prices",
        "Lowest to highest",
        "whole machines",
        "default price on demand",
    )
    for locale in ("es", "ja", "ar"):
        _, html = pages[locale]
        assert not [text for text in english if text in html], locale


def test_a_figure_that_refuses_its_inputs_stops_the_build_naming_the_page(monkeypatch):
    """A figure whose own inputs the calculator refuses raises ValueError; the build names the page and the figure."""

    def refused():
        raise ValueError("a prose figure's own inputs are refused: [...]")

    monkeypatch.setitem(guidekit.calc._registry._FIGURES, "test.refused", (refused, "usd"))
    ctx = markers.PageContext(env=None, pack=locale_pack("es", ROOT / "locales"), page="faq.md")
    with pytest.raises(PluginError, match=r"^faq\.md: figure 'test\.refused' .*inputs are refused"):
        markers.embed(markers.inline_slots("Cuesta <!-- figure: test.refused -->."), ctx)


def test_the_prose_premises_on_hourly_prices_hold():
    """docs/*/index.md, compare.md, faq.md and cost.md say the A100 costs less per hour than the H100 and the H200."""
    pricing = calculators.catalog()["pricing"]
    on_demand, sources = pricing["on_demand_usd_per_card_hour"], pricing["price_sources"]
    assert on_demand["a100-sxm-80gb"] < on_demand["h100-sxm-80gb"] < on_demand["h200-141gb"]
    # index.md calls the A100's and the H100's prices public medians; cost.md names the cards with a published
    # reservation discount, and says the short terms cost what on demand costs on every card with public prices.
    assert sources["a100-sxm-80gb"]["public_median"] and sources["h100-sxm-80gb"]["public_median"]
    discounted = {gpu for gpu, s in sources.items() if s.get("term_discount")}
    assert discounted == {"a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb"}
    for gpu, source in sources.items():
        if source.get("public_median"):
            assert pricing["usd_per_card_hour"][gpu]["1w"] == on_demand[gpu]
