"""`<!-- public-prices -->`: dated public on-demand prices per card, the loader that refuses a bad file in one
line naming it, the table in every locale, and the build's warning on a catalog price far outside the band."""

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
        rows = [p for p in prices if p.gpu == gpu]
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
        (_set("billing", "reserved"), r"prices\[0\]\.billing must be 'on-demand'"),
        (_set("gpu", "a100-pcie-40gb"), r"prices\[0\]\.gpu 'a100-pcie-40gb' is not a data-centre card of the catalog"),
        (
            lambda d: d.update(
                prices=[r for r in d["prices"] if r["gpu"] != "mi300x-192gb"][:]
                + [r for r in d["prices"] if r["gpu"] == "mi300x-192gb"][:2]
            ),
            r"MI300X 192 GB \(mi300x-192gb\) has prices from 2 provider\(s\); the table needs at least 3",
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


def test_the_shipped_catalog_sits_inside_every_public_band():
    assert public_prices.check() == []


@pytest.mark.parametrize(
    ("gpu", "term", "factor", "what"),
    [
        ("h100-sxm-80gb", "1d", 1.6, "h100-sxm-80gb term 1d at $16 per card-hour is 60% above the highest"),
        ("a100-sxm-80gb", None, 0.4, "a100-sxm-80gb on demand at $0.64 per card-hour is 60% below the lowest"),
    ],
)
def test_a_catalog_price_far_outside_the_band_is_named(gpu, term, factor, what):
    low, high = public_prices.band(public_prices.load())[gpu]
    usd = round((high if factor > 1 else low) * factor, 2)
    lines = public_prices.check(catalog=_catalog_with(gpu, term, usd))
    assert len(lines) == 1 and what in lines[0], lines
    assert lines[0].startswith("calculators/data/catalog.json: ") and "public_prices.json" in lines[0]


def test_a_price_at_half_outside_the_band_is_not_flagged():
    low, high = public_prices.band(public_prices.load())["h200-141gb"]
    assert public_prices.check(catalog=_catalog_with("h200-141gb", "3m", high * 1.5)) == []
    assert public_prices.check(catalog=_catalog_with("h200-141gb", "3m", low * 0.5)) == []


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


def test_the_build_warns_on_a_catalog_price_far_outside_the_band(monkeypatch, caplog):
    high = public_prices.band(public_prices.load())["mi300x-192gb"][1]
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.guide")
    _pre_build(monkeypatch, _catalog_with("mi300x-192gb", "1w", high * 3))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "mi300x-192gb term 1w" in warnings[0], warnings


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
    prices = public_prices.load()
    fmt = NumberFormat(pack)
    assert "<!--" not in html
    assert html.count("<tr") == len(prices) + 1  # and the header row
    rows = re.findall(r"<tr>\s*<th scope=\"row\"><bdi>([^<]*)</bdi></th>(.*?)</tr>", html, re.S)
    assert len(rows) == len(prices)
    for p in prices:
        assert any(
            card == CARDS[p.gpu]
            and f"<bdi>{escape(p.provider)}</bdi>" in cells
            and f">{fmt.money(p.usd_per_gpu_hour)}<" in cells
            and f'datetime="{p.date}"' in cells
            and f'href="{escape(p.url)}"' in cells
            for card, cells in rows
        ), p
    for low, high in public_prices.band(prices).values():
        assert fmt.money(low) in html and fmt.money(high) in html


def test_the_table_is_translated(pages):
    english = ("Provider", "Price per card-hour", "Public on-demand list prices", "Lowest to highest", "whole machines")
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
