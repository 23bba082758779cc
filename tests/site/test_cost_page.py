"""The cost page: prose figures equal to the calculator's, the planner's answer on phone and desktop in
every locale, and a pinned term compared with the cheapest plan, live in the browser."""

from __future__ import annotations

import json
import re
from html import escape

import pytest
from playwright.sync_api import Page, expect

import calcui
import calculators
from tests.conftest import ARTIFACTS, LOCALES

ROOTS = {"es": "", "ja": "ja/", "ar": "ar/"}
FIGURE = re.compile(r'<bdi class="guide-num" data-figure="([\w.-]+)" dir="(?:ltr|rtl)">([^<]*)</bdi>')
SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def _pack(built_site, locale):
    site, _, _ = built_site
    return json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("page_name, expected", [("cost", 18), ("memory", 3)])
@pytest.mark.parametrize("locale", LOCALES)
def test_prose_figures_are_the_calculators_figures(built_site, locale, page_name, expected):
    site, _, _ = built_site
    html = (site / ROOTS[locale] / page_name / "index.html").read_text(encoding="utf-8")
    assert "<!-- figure:" not in html
    pack = _pack(built_site, locale)
    t, fmt = calcui.Translator(pack), calcui.NumberFormat(pack)
    found = FIGURE.findall(html)
    assert len(found) == expected
    for name, text in found:
        figure = calculators.figure(name)
        assert text == escape(calcui.figure(figure["value"], figure["unit"], fmt, t)), name


def test_cost_claims_hold_in_the_calculator():
    """What the rewritten page says, checked against the model rather than against the page."""
    premium = calculators.figure("cost.scaling_premium_training")["value"]
    assert premium == pytest.approx(1 / 0.85 - 1, abs=0.01)  # hourly, training time only
    assert calculators.figure("cost.scaling_premium_plan")["value"] > calculators.figure(
        "cost.scaling_premium_hourly")["value"] > premium
    pricing = calculators.catalog()["pricing"]["usd_per_card_hour"]
    cheapest = calculators.compute("cost", {})["result"]["best_by_gpu"][0]["gpu"]
    assert pricing[cheapest]["1d"] > pricing["a100-sxm-80gb"]["1d"]  # dearer per hour, cheaper per output
    assert calculators.figure("cost.default_one_week")["value"] > calculators.figure("cost.default_per_output")["value"]


@pytest.mark.browser
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("locale", LOCALES)
def test_cost_page_on_phone_and_desktop(browser, site_url, built_site, locale, screen):
    context = browser.new_context(viewport=SCREENS[screen])
    page = context.new_page()
    page.goto(site_url + ROOTS[locale] + "cost/")
    expect(page.locator("#calc-cost .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)
    t = calcui.Translator(_pack(built_site, locale))
    headline = page.locator("#calc-cost .guide-metric--headline")
    expect(headline.locator("dt")).to_have_text(t("Cost per successful output"))
    # Nothing wider than the screen except inside the tables' own scrolling boxes.
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"page scrolls sideways by {overflow}px"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"cost-{locale}-{screen}.png"), full_page=False)
    for part, selector in (("result", "#calc-cost .guide-calc__result"),
                           ("table", "#calc-cost .guide-block--table >> nth=1")):
        page.locator(selector).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"cost-{part}-{locale}-{screen}.png"))
    context.close()


@pytest.mark.browser
@pytest.mark.parametrize("locale", LOCALES)
def test_pinning_a_term_shows_its_cost_beside_the_cheapest_plan(page: Page, site_url, built_site, locale):
    page.goto(site_url + ROOTS[locale] + "cost/")
    expect(page.locator("#calc-cost .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)
    page.locator("#calc-cost-term").select_option("1w")
    page.wait_for_function(
        "() => { const r = document.getElementById('calc-cost');"
        " return r.guideInputs && r.guideInputs.term === '1w' && r.guideResponse; }", timeout=30_000)
    response = page.evaluate("document.getElementById('calc-cost').guideResponse")
    expected = calculators.compute("cost", {"term": "1w"})
    assert response["result"]["usd_per_output"] == pytest.approx(expected["result"]["usd_per_output"])
    rendered = calcui.render("cost", {"term": "1w"}, _pack(built_site, locale))
    t = calcui.Translator(_pack(built_site, locale))
    expect(page.locator("#calc-cost .guide-calc__live")).to_have_text(rendered["summary"])
    expect(page.locator("#calc-cost .guide-table th").filter(has_text=t("Cheapest plan, per output")).first).to_be_visible()
    note = t("Pinning the term costs {extra} more per output than the cheapest plan.").split("{extra}")[0].strip()
    expect(page.locator("#calc-cost .guide-notes")).to_contain_text(note)


@pytest.mark.browser
def test_a_slow_answer_does_not_undo_a_newer_change(page: Page, site_url):
    """An answer that arrives while the reader is still editing must not write its inputs back over
    the new edits (the cost answer takes long enough for this to happen under load)."""
    page.goto(site_url + "cost/")
    expect(page.locator("#calc-cost .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)
    page.locator("#calc-cost-tokens").fill("1e12")  # a long job: the planner's slow path
    expect(page.locator("#calc-cost .guide-calc__status")).to_have_attribute("data-state", "stale")
    kept = page.evaluate("""async () => {
        const root = document.getElementById('calc-cost');
        const term = document.getElementById('calc-cost-term');
        term.value = '1w';
        term.dispatchEvent(new Event('change', {bubbles: true}));
        // Keep editing (each event restarts the debounce) until the answer to the long job arrives.
        for (let i = 0; i < 1000 && (root.guideResponse?.inputs?.tokens) !== 1e12; i++) {
            term.dispatchEvent(new Event('input', {bubbles: true}));
            await new Promise((done) => setTimeout(done, 30));
        }
        return term.value;
    }""")
    assert kept == "1w"
    page.wait_for_function("() => document.getElementById('calc-cost').guideInputs.term === '1w'", timeout=30_000)
