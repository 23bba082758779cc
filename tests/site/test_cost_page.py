"""The cost page: prose figures equal to the calculator's, the planner's answer on phone and desktop in
every locale, and a pinned term compared with the cheapest plan, live in the browser."""

from __future__ import annotations

import json
import re
from html import escape

import pytest
from playwright.sync_api import expect

import calculators
from calculators import throughput, throughput_accuracy
from guidekit import l10n, render
from guidekit.site.markers.prose_figures import prose_localizer
from tests.conftest import ARTIFACTS, LOCALES, ROOTS

FIGURE = re.compile(r'<bdi class="guide-num" data-figure="([\w.-]+)" dir="(?:ltr|rtl)">([^<]*)</bdi>')
SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def _pack(built_site, locale):
    site, _, _ = built_site
    return json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("page_name, expected", [("cost", 41), ("memory", 3), ("compare", 9), ("faq", 4), ("", 5)])
@pytest.mark.parametrize("locale", LOCALES)
def test_prose_figures_are_the_calculators_figures(built_site, locale, page_name, expected):
    site, _, _ = built_site
    html = (site / ROOTS[locale] / page_name / "index.html").read_text(encoding="utf-8")  # "": the home page
    assert "<!-- figure:" not in html
    pack = _pack(built_site, locale)
    loc = prose_localizer(pack)  # the pack's, with time units written out as a sentence takes them
    found = FIGURE.findall(html)
    assert len(found) == expected
    for name, text in found:
        figure = calculators.figure(name)
        assert text == escape(render.figure(figure["value"], figure["unit"], loc)), name


def test_prose_writes_hours_out_where_tables_abbreviate_them(built_site):
    """«15.9 س» is a table's abbreviation; running prose takes the word (the 2026-12-05 Arabic review, #82)."""
    site, _, _ = built_site
    shown = {}
    for locale in LOCALES:
        html = (site / ROOTS[locale] / "cost" / "index.html").read_text(encoding="utf-8")
        shown[locale] = dict(FIGURE.findall(html))["cost.default_hours"]
    assert shown["es"].endswith(" horas") and shown["ja"].endswith(" 時間"), shown
    assert shown["ar"].endswith("ساعة") and not shown["ar"].endswith(" س"), shown
    pack = _pack(built_site, "ar")
    assert l10n.Localizer(pack).fmt.unit("hour", 15.9).endswith(" س")  # the calculators' tables keep the short form


def test_cost_claims_hold_in_the_calculator():
    """What the rewritten page says, checked against the model rather than against the page."""
    premium = calculators.figure("cost.scaling_premium_training")["value"]
    assert premium == pytest.approx(1 / 0.85 - 1, abs=0.01)  # hourly, training time only
    # The sentences: the one-off hours raise the hourly premium above training's; the plan's premium is only quoted.
    assert calculators.figure("cost.scaling_premium_hourly")["value"] > premium
    assert calculators.figure("cost.scaling_premium_plan")["value"] > 0
    on_demand = calculators.catalog()["pricing"]["on_demand_usd_per_card_hour"]
    # The H100 costs more per hour than the A100 and less per output: it finishes sooner.
    assert on_demand["h100-sxm-80gb"] > on_demand["a100-sxm-80gb"]
    assert calculators.figure("cost.h100_per_output")["value"] < calculators.figure("cost.a100_per_output")["value"]
    assert calculators.figure("cost.default_one_week")["value"] > calculators.figure("cost.default_per_output")["value"]


def test_the_pages_throughput_conclusions_hold_in_the_model():
    """The cheapest card the pages name is the calculator's at the expected throughput (the pages say that whether it
    stays the cheapest depends on where each card falls in its range, which the calculator checks), and the compare
    page's H100 sentence quotes the measured speed-up, which sits below the peak ratio (a lower share of a higher peak)."""
    answer = calculators.compute("cost", {})["result"]
    assert answer["best_by_gpu"][0]["name"] == calculators.figure("cost.cheapest_gpu")["value"]
    assert answer["ranking"][0] == answer["best_by_gpu"][0]["gpu"] and isinstance(answer["ranking_holds"], bool)
    measured = calculators.figure("cost.h100_a100_measured_ratio")["value"]
    assert 1 < measured < calculators.figure("cost.h100_a100_peak_ratio")["value"]


ROW = re.compile(r'<tr(?: class="guide-accuracy__shown")?>\s*<th scope="row"><bdi>([^<]*)</bdi></th>(.*?)</tr>', re.S)


@pytest.mark.parametrize("locale", LOCALES)
def test_throughput_table_shows_every_measurement(built_site, locale):
    """The `<!-- throughput-accuracy -->` table: one row per measurement of the data file, in order, with the
    measured and estimated figures and the difference the model gives, formatted for the locale."""
    site, _, _ = built_site
    html = (site / ROOTS[locale] / "cost" / "index.html").read_text(encoding="utf-8")
    assert "<!-- throughput-accuracy -->" not in html
    table = html[html.index('class="md-typeset__scrollwrap guide-accuracy"') :]
    table = table[: table.index("</table>")]
    rows = ROW.findall(table)
    acc = throughput_accuracy.accuracy()
    assert len(rows) == len(acc["rows"]) == len(throughput.data()["measurements"])
    fmt = l10n.NumberFormat(_pack(built_site, locale))
    for (card, cells), r in zip(rows, acc["rows"]):
        numbers = re.findall(r'<bdi class="guide-num">([^<]*)</bdi>', cells)
        assert card == r["gpu_name"]
        assert numbers[:2] == [fmt.number(r["measured"], 0), fmt.number(r["estimate"], 0)], r["id"]
        assert numbers[2].endswith(fmt.percent_of(abs(r["error"]))), r["id"]
        assert f'href="{escape(r["url"])}"' in cells
    assert table.count('class="guide-accuracy__shown"') == sum(r["use"] != "calibration" for r in acc["rows"])


@pytest.mark.parametrize("locale", LOCALES)
def test_public_price_table_shows_every_price_with_its_date_and_source(built_site, locale):
    """The `<!-- public-prices -->` table on the cost page: every row of the data file, its price formatted for
    the locale, its date and its link; the sentence before it says its medians are the calculator's default prices."""
    from gpuguide.markers import public_prices

    site, log, _ = built_site
    html = (site / ROOTS[locale] / "cost" / "index.html").read_text(encoding="utf-8")
    assert "<!-- public-prices -->" not in html
    table = html[html.index('class="md-typeset__scrollwrap guide-prices"') :]
    table = table[: table.index("</table>")]
    fmt = l10n.NumberFormat(_pack(built_site, locale))
    prices = [p for p in public_prices.load() if p.billing == "on-demand"]  # spot and reserved rows set defaults only
    assert table.count('<th scope="row">') == len(prices)
    for p in prices:
        assert f'href="{escape(p.url)}"' in table and f'datetime="{p.date}"' in table
        assert f">{fmt.money(p.usd_per_gpu_hour)}<" in table
    assert html.index('id="public-prices"') < html.index('class="md-typeset__scrollwrap guide-prices"')
    assert "public_prices.json" not in log  # the shipped catalog holds the public medians: no warning


@pytest.mark.browser
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("locale", LOCALES)
def test_cost_page_on_phone_and_desktop(live_pages, built_site, locale, screen):
    page = live_pages.get(ROOTS[locale], "cost", screen)
    page.set_viewport_size(SCREENS[screen])  # the shared page's own size comes back with the next test
    t = l10n.Translator(_pack(built_site, locale))
    headline = page.locator("#calc-cost .guide-metric--headline")
    expect(headline.locator("dt")).to_have_text(t("Cost per successful output"))
    # Nothing wider than the screen except inside the tables' own scrolling boxes.
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"page scrolls sideways by {overflow}px"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"cost-{locale}-{screen}.png"), full_page=False)
    # The throughput table scrolls inside its own box, which the keyboard can reach.
    box = page.locator(".guide-accuracy[role=region]")
    expect(box).to_have_attribute("tabindex", "0")
    width = box.evaluate("e => e.getBoundingClientRect().width")
    assert width <= SCREENS[screen]["width"], f"the throughput table's box is {width}px wide"
    prices = page.locator(".guide-prices[role=region]")
    expect(prices).to_have_attribute("tabindex", "0")
    width = prices.evaluate("e => e.getBoundingClientRect().width")
    assert width <= SCREENS[screen]["width"], f"the public price table's box is {width}px wide"
    for part, selector in (
        ("result", "#calc-cost .guide-calc__result"),
        ("table", "#calc-cost .guide-block--table >> nth=1"),
        ("throughput", ".guide-accuracy[role=region]"),
        ("prices", ".guide-prices[role=region]"),
    ):
        page.locator(selector).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"cost-{part}-{locale}-{screen}.png"))


@pytest.mark.browser
@pytest.mark.parametrize("locale", LOCALES)
def test_pinning_a_term_shows_its_cost_beside_the_cheapest_plan(live_pages, built_site, locale):
    page = live_pages.get(ROOTS[locale], "cost")
    page.locator("#calc-cost-term").select_option("1w")
    page.wait_for_function(
        "() => { const r = document.getElementById('calc-cost');"
        " return r.guideInputs && r.guideInputs.term === '1w' && r.guideResponse; }",
        timeout=30_000,
    )
    response = page.evaluate("document.getElementById('calc-cost').guideResponse")
    expected = calculators.compute("cost", {"term": "1w"})
    assert response["result"]["usd_per_output"] == pytest.approx(expected["result"]["usd_per_output"])
    rendered = render.render("cost", {"term": "1w"}, _pack(built_site, locale))
    t = l10n.Translator(_pack(built_site, locale))
    expect(page.locator("#calc-cost .guide-calc__live")).to_have_text(rendered["summary"])
    expect(
        page.locator("#calc-cost .guide-table th").filter(has_text=t("Cheapest plan, per output")).first
    ).to_be_visible()
    note = t("Pinning the term costs {extra} more per output than the cheapest plan.").split("{extra}")[0].strip()
    expect(page.locator("#calc-cost .guide-notes")).to_contain_text(note)


@pytest.mark.browser
def test_a_slow_answer_does_not_undo_a_newer_change(live_pages):
    """An answer that arrives while the reader is still typing must not write its inputs back over the
    edits no request has carried yet. The reader enters a long job (its request leaves after the
    debounce), then types in another field; the long job's answer arrives mid-typing.

    All in one script, in the page's own order of events: the next field's edit starts in the task
    right after the request left, so the answer (a later message from the worker) cannot come first,
    however fast the machine."""
    page = live_pages.get(ROOTS["es"], "cost")
    seen = page.evaluate("""async () => {
        const root = document.getElementById('calc-cost');
        const tokens = document.getElementById('calc-cost-tokens');
        const runs = document.getElementById('calc-cost-runs');
        const asked = new Promise((done) => root.addEventListener('guide:compute', (e) => done(e.detail.inputs), {once: true}));
        tokens.value = '1e12';  // a long job: the planner's slow path
        tokens.dispatchEvent(new Event('input', {bubbles: true}));
        const request = await asked;
        runs.focus();
        runs.value = '3';
        // Keep typing (each keystroke restarts the debounce, so no newer request leaves) until the
        // long job's answer arrives.
        for (let i = 0; i < 1000 && (root.guideResponse?.inputs?.tokens) !== 1e12; i++) {
            runs.dispatchEvent(new Event('input', {bubbles: true}));
            await new Promise((done) => setTimeout(done, 30));
        }
        return {asked: request.runs, answered: root.guideResponse?.inputs?.runs, kept: runs.value};
    }""")
    # The answer was to the request without the new runs, and it arrived while the field held them.
    assert seen["answered"] is not None and seen["answered"] == float(seen["asked"]) != 3, seen
    assert seen["kept"] == "3", seen
    page.wait_for_function("() => document.getElementById('calc-cost').guideInputs.runs === '3'", timeout=30_000)


@pytest.mark.browser
@pytest.mark.parametrize("locale", LOCALES)
def test_a_throughput_measured_on_another_card_marks_its_row_measured(live_pages, built_site, locale):
    """The reader enters a measured tokens/s for a card other than the chosen one; its row says so, live."""
    field = calculators.cost.measured_field("mi300x-192gb")
    page = live_pages.get(ROOTS[locale], "cost")
    box = page.locator(f"#calc-cost-{field}")
    box.locator("xpath=ancestor::details").locator("summary").click()
    box.fill("4321")
    page.wait_for_function(
        "name => { const r = document.getElementById('calc-cost');"
        " return r.guideResponse && r.guideResponse.inputs && r.guideResponse.inputs[name] === 4321; }",
        arg=field,
        timeout=30_000,
    )
    t = l10n.Translator(_pack(built_site, locale))
    row = page.locator("#calc-cost .guide-table tr").filter(has_text="MI300X").first  # the tables' short names
    expect(row).to_contain_text(t("measured"))
    expect(page.locator("#calc-cost .guide-table tr").filter(has_text="H100 80 GB").first).to_contain_text(
        t("estimated")
    )


@pytest.mark.browser
@pytest.mark.parametrize("locale", LOCALES)
def test_a_deadline_and_spot_capacity_answer_in_the_page(live_pages, built_site, locale):
    """The renter's choices, live on a phone: spot capacity, then a deadline no configuration meets. The
    answer the page shows is the build's own rendering of the same inputs, in the reader's language."""
    page = live_pages.get(ROOTS[locale], "cost", "phone")
    page.set_viewport_size(SCREENS["phone"])
    page.locator("#calc-cost-capacity").select_option("spot")
    page.locator("#calc-cost-deadline_hours").fill("0.5")
    page.wait_for_function(
        "() => { const r = document.getElementById('calc-cost'); const i = r.guideResponse && r.guideResponse.inputs;"
        " return i && i.capacity === 'spot' && i.deadline_hours === 0.5; }",
        timeout=30_000,
    )
    inputs = {"capacity": "spot", "deadline_hours": 0.5}
    rendered = render.render("cost", inputs, _pack(built_site, locale))
    expect(page.locator("#calc-cost .guide-calc__live")).to_have_text(rendered["summary"])
    t = l10n.Translator(_pack(built_site, locale))
    late = t(
        "No configuration finishes within the deadline of {deadline}: the fastest that fits, {config}, takes {hours} "
        "at {price} per successful output."
    )
    result = page.locator("#calc-cost .guide-calc__result")
    expect(result).to_contain_text(late.split("{deadline}")[0].strip())
    expect(result).not_to_contain_text(t("No catalog GPU fits this run in memory."))
    fastest = calculators.compute("cost", inputs)["result"]["fastest"]
    # The fastest card is on spot where the catalog sells it so; a card without a spot price stays on demand.
    spot = fastest["gpu"] in calculators.catalog()["pricing"]["spot_usd_per_card_hour"]
    assert fastest["on_spot"] == spot and fastest["plan"][0][0] == ("spot" if spot else "hourly")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"page scrolls sideways by {overflow}px"
    page.locator("#calc-cost .guide-calc__result").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"cost-deadline-{locale}-phone.png"))
