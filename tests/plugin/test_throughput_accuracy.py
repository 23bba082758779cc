"""`<!-- throughput-accuracy -->`: the speed model against every published measurement, rendered at build
time through the page's partial in every locale, figures as the calculators format them."""

from __future__ import annotations

import re

import pytest
from jinja2 import Environment, FileSystemLoader

import gpuguide.site  # noqa: F401  (registers this guide's markers)
from calculators import throughput_accuracy
from guidekit.l10n import NumberFormat
from guidekit.site import markers
from guidekit.site.locale_pack import locale_pack
from guidekit.site.partials_env import partials_env
from tests.conftest import ROOT, THEME_DIRS

LOCALES = ("es", "ja", "ar")


@pytest.fixture(scope="module")
def pages():
    out = {}
    theme = Environment(loader=FileSystemLoader(THEME_DIRS), extensions=["jinja2.ext.i18n"])
    for locale in LOCALES:
        pack = locale_pack(locale, ROOT / "locales")
        ctx = markers.PageContext(env=partials_env(theme, pack), pack=pack, page="cost.md")
        out[locale] = (pack, markers.embed("<p>x</p>\n<!-- throughput-accuracy -->\n", ctx))
    return out


@pytest.mark.parametrize("locale", LOCALES)
def test_the_marker_renders_every_measurement(pages, locale):
    pack, html = pages[locale]
    acc = throughput_accuracy.accuracy()
    assert "<!--" not in html
    assert html.count("<tr") == len(acc["rows"]) + 1  # and the header row
    fmt = NumberFormat(pack)
    s = acc["summary"]
    caption = re.search(r"<caption>(.*?)</caption>", html, re.S)[1]
    for figure in (
        fmt.number(s["calibration_rows"], 0),
        fmt.percent_of(s["worst_error"]),
        fmt.percent_of(s["worst_loo_error"]),
        fmt.percent_of(acc["target"], 0),
    ):
        assert figure in caption, (figure, caption)
    for share in acc["shares"].values():
        assert fmt.percent_of(share) in html


def test_the_notes_and_headers_are_translated(pages):
    english = ("Fitted share of each card's", "Publication held out", "Shown, not fitted", "On every workload")
    for locale in ("ja", "ar"):
        _, html = pages[locale]
        assert not [text for text in english if text in html], locale


def test_a_workload_out_of_order_is_said(monkeypatch, pages):
    """The sentence follows the comparison: an order that fails is reported, not hidden."""
    from gpuguide.markers import throughput_accuracy as marker

    acc = dict(throughput_accuracy.accuracy())
    acc["summary"] = {**acc["summary"], "orders_hold": False}
    monkeypatch.setattr(marker, "_accuracy", lambda: acc)
    theme = Environment(loader=FileSystemLoader(THEME_DIRS), extensions=["jinja2.ext.i18n"])
    pack = pages["es"][0]
    html = marker.render_table(partials_env(theme, pack), pack)
    assert "no ordenan las tarjetas como las mediciones" in html
