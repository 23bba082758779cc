"""The calculators in a real browser, every locale: pre-rendered answer, live answers identical
to CPython's, localized errors, URL state carried across languages, nothing from outside."""

from __future__ import annotations

import json
import math
import random
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError, Page, expect

import calculators
from guidekit import render
from guidekit.render.worker import page_response
from tests.conftest import ARTIFACTS, LOCALES, ROOTS
from tests.site.browser import Recorder, axe_violations, hold_runtime, wake_materials_script

pytestmark = pytest.mark.browser

PAGES = {"memory": "memory/", "cost": "cost/"}
# The inputs the generated sets vary: visible fields whose random values stay meaningful
# (dimensions of a preset model would mostly produce divisibility errors instead of results).
VARIED = {
    "memory": (
        "model",
        "method",
        "weights_dtype",
        "autocast",
        "optimizer",
        "seq_len",
        "micro_batch",
        "gradient_checkpointing",
        "parallelism",
        "gpus",
        "lora_rank",
        "margin",
    ),
    "cost": (
        "gpu",
        "cards",
        "term",
        "workload",
        "tokens",
        "epochs",
        "utilization",
        "scaling_efficiency",
        "failures_per_100h",
        "method",
        "parallelism",
        "options",
    ),
}


def _pack(built_site, locale):
    site, _, _ = built_site
    return json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))


def _ready(page: Page, name: str):
    expect(page.locator(f"#calc-{name} .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)


def _sample(name: str, rng: random.Random) -> dict:
    """Random valid-looking values for a few declared inputs, as the form would send them."""
    inputs = {i["name"]: i for i in calculators.describe(name)["inputs"]}
    chosen = {}
    for field in rng.sample(VARIED[name], 3):
        inp = inputs[field]
        if inp["kind"] == "choice":
            chosen[field] = rng.choice([c["value"] for c in inp["choices"]])
        elif inp["kind"] == "multichoice":
            values = [c["value"] for c in inp["choices"]]
            picked = set(rng.sample(values, rng.randint(0, len(values))))
            chosen[field] = [v for v in values if v in picked]  # the form lists them in this order
        elif inp["kind"] == "bool":
            chosen[field] = rng.choice(["true", "false"])
        else:
            low, high = inp["min"], min(inp["max"], (inp["min"] or 0) * 1000 + 1000)
            if inp["kind"] == "int":
                chosen[field] = str(rng.randint(int(low), int(high)))
            else:
                chosen[field] = repr(round(rng.uniform(low, high), 3))
    return chosen


def _set_field(page: Page, name: str, field: str, value) -> bool:
    """Set a field as a reader would; False when the form has it greyed out (`only_when`)."""
    box = page.locator(f'#calc-{name} [data-field="{field}"]')
    kind = box.get_attribute("class")
    if box.locator("input, select").first.is_disabled():
        return False
    if "guide-field--multichoice" in kind:
        for checkbox in box.locator("input[type=checkbox]").all():
            _check(page, name, checkbox, checkbox.get_attribute("value") in value)
    elif "guide-field--bool" in kind:
        _check(page, name, box.locator("input"), value == "true")
    elif "guide-field--choice" in kind:
        box.locator("select").select_option(value)
    else:
        # Typed as a reader of this locale types it ("12,345" in Spanish, where "12.345" is 12345).
        box.locator("input").fill(
            value.replace(".", page.locator(f"#calc-{name} .guide-calc__form").get_attribute("data-decimal"))
        )
    return True


def _check(page: Page, name: str, checkbox, checked: bool):
    """Tick or clear a box as a reader would. The answer to the field set just before may land during
    the click and move the form (the sticky headline changes height), so Playwright's click can miss;
    then it is tried once more with the answer in."""
    try:
        checkbox.set_checked(checked)
    except PlaywrightError as exc:
        if "did not change its state" not in str(exc):
            raise
        expect(page.locator(f"#calc-{name} .guide-calc__status")).to_have_attribute("data-state", "ready")
        checkbox.set_checked(checked)


def _wait_for(page: Page, name: str, expected: dict) -> tuple[dict, dict]:
    """The response to the inputs the page sent once they include `expected`."""
    page.wait_for_function(
        """([name, expected]) => {
            const root = document.getElementById(`calc-${name}`);
            const state = root.querySelector('.guide-calc__status').dataset.state;
            if (state !== 'ready' || !root.guideInputs || !root.guideResponse) return false;
            return Object.entries(expected).every(([k, v]) => JSON.stringify(root.guideInputs[k]) === JSON.stringify(v));
        }""",
        arg=[name, expected],
        timeout=30_000,
    )
    return page.evaluate(
        "name => { const r = document.getElementById(`calc-${name}`); return [r.guideInputs, r.guideResponse]; }", name
    )


def _assert_finite(value):
    if isinstance(value, float):
        assert math.isfinite(value)
    elif isinstance(value, dict):
        for v in value.values():
            _assert_finite(v)
    elif isinstance(value, list):
        for v in value:
            _assert_finite(v)


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("locale", LOCALES)
def test_answer_is_in_the_html_without_scripts(browser, site_url, built_site, locale, name):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + ROOTS[locale] + PAGES[name])
    expected = render.render(name, {}, _pack(built_site, locale))["summary"]
    expect(page.locator(f"#calc-{name} .guide-calc__live")).to_have_text(expected)
    headline = page.locator(f"#calc-{name} .guide-metric--headline dd")
    assert headline.inner_text().strip() in expected
    context.close()


# For each figure: its dir, text, and where its number and its unit (the text after the number) start on
# screen, measured with a Range on the figure's text as the reader sees it laid out.
_FIGURE_ORDER_JS = """sel => [...document.querySelectorAll(sel)].map(el => {
  const node = el.firstChild, text = node.textContent, m = text.match(/^(\\D*)([\\d.,]+)(\\s*\\S.*)?$/);
  if (!m || !m[3] || !m[3].trim()) return null;
  const box = (start, end) => { const r = document.createRange(); r.setStart(node, start); r.setEnd(node, end);
    const b = r.getClientRects()[0]; return {x: b.left + b.width / 2, top: b.top, height: b.height}; };
  const numStart = m[1].length, numEnd = numStart + m[2].length;
  const unitStart = numEnd + m[3].length - m[3].trimStart().length;
  return {dir: el.getAttribute("dir"), text, number: box(numStart, numEnd), unit: box(unitStart, text.length)};
}).filter(Boolean)"""


@pytest.mark.parametrize(
    ("path", "selector"),
    [
        ("cost/", "#calc-cost .guide-num"),
        ("memory/", "#calc-memory .guide-num"),
        ("compare/", ".guide-catalog .guide-num"),
    ],
)
def test_arabic_figures_read_number_first_in_the_prose_gb(page: Page, site_url, path, selector):
    """Right to left the number sits to the right of an Arabic unit («23.7 س» reads 23.7 first); a Latin unit
    stays left to right after its number, as the prose writes «24 GB»; CLDR's «غ.ب» is gone."""
    hold_runtime(page)
    page.goto(site_url + "ar/" + path)
    figures = page.evaluate(_FIGURE_ORDER_JS, selector)
    assert figures and not any("غ.ب" in f["text"] for f in figures)
    for f in figures:
        rtl = any("\u0600" <= ch <= "\u06ff" or ch == "\u200f" for ch in f["text"])  # Arabic, or CLDR's RLM (US$)
        assert f["dir"] == ("rtl" if rtl else "ltr"), f
        number, unit = f["number"], f["unit"]
        if (
            abs(number["top"] - unit["top"]) > number["height"] / 2
        ):  # a narrow cell wrapped it: number on the line above
            assert number["top"] < unit["top"], f
        else:
            assert (number["x"] > unit["x"]) if rtl else (number["x"] < unit["x"]), f
    assert any(f["text"].endswith(" GB") for f in figures)
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(selector).first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"ar-figures-{path.strip('/')}.png"))


# CPython and Pyodide agree on 1,000 random input sets (tests/calculators/test_pyodide_parity.py, in Node);
# here one smoke per calculator checks the page's glue around that Python: the form as sent, the worker's
# answer as shown, the headline, in a left-to-right and a right-to-left locale (the cost page's plural
# forms come from the Arabic pack's CLDR rule inside Pyodide). On the shared live pages: the log
# checked at the end is everything the page requested and logged since it opened.
@pytest.mark.parametrize(("locale", "name"), [("es", "memory"), ("ar", "cost")])
def test_live_answers_equal_cpython(live_pages, site_url, built_site, locale, name):
    page = live_pages.get(ROOTS[locale], name)
    if name == "cost":  # Arabic's "more than 8 cards" form, chosen by the plural rule in Pyodide
        _set_field(page, name, "cards", "16")
        sent, _ = _wait_for(page, name, {"cards": "16"})
        assert "أكثر من 8 بطاقات" in render.render(name, sent, _pack(built_site, locale))["html"]
        expect(page.locator(f"#calc-{name} .guide-calc__result")).to_contain_text("أكثر من 8 بطاقات")
    rng = random.Random(f"{locale}-{name}")
    for _ in range(20):
        chosen = {field: value for field, value in _sample(name, rng).items() if _set_field(page, name, field, value)}
        sent, response = _wait_for(page, name, chosen)
        assert response == json.loads(json.dumps(page_response(calculators.compute(name, sent)))), chosen
        _assert_finite(response)
        shown = page.locator(f"#calc-{name} .guide-calc__live").inner_text()
        rendered = render.render(name, sent, _pack(built_site, locale))
        assert shown == rendered["summary"]
        # The sticky headline is the verdict's short form (guidekit.calc.display.verdict).
        assert page.locator(f"#calc-{name} .guide-calc__headline").inner_text() == rendered["headline"]
    log = live_pages.log(page)
    assert log.foreign_requests(site_url) == []
    assert log.real_errors() == []


@pytest.mark.parametrize("locale", LOCALES)
def test_invalid_input_shows_localized_error_and_no_number(live_pages, built_site, locale):
    page = live_pages.get(ROOTS[locale], "memory")
    _set_field(page, "memory", "micro_batch", "-3")
    _wait_for(page, "memory", {"micro_batch": "-3"})
    expected = render.render("memory", {"micro_batch": "-3"}, _pack(built_site, locale))["errors"]
    error = page.locator("#calc-memory-micro_batch-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(expected[0]["message"])
    expect(page.locator("#calc-memory-micro_batch")).to_have_attribute("aria-invalid", "true")
    result = page.locator("#calc-memory .guide-calc__result")
    expect(result).to_have_attribute("data-ok", "false")
    expect(result.locator(".guide-num")).to_have_count(0)


@pytest.mark.parametrize("locale", LOCALES)
def test_url_keeps_inputs_and_language_switch_carries_them(live_pages, site_url, locale):
    page = live_pages.get(ROOTS[locale], "memory")
    _set_field(page, "memory", "micro_batch", "8")
    _set_field(page, "memory", "optimizer", "sgd_momentum")
    _wait_for(page, "memory", {"micro_batch": "8", "optimizer": "sgd_momentum"})
    query = parse_qs(urlparse(page.url).query)
    assert query["micro_batch"] == ["8"] and query["optimizer"] == ["sgd_momentum"]

    # A shared link restores the inputs and recomputes them.
    shared = page.context.new_page()
    try:
        shared.goto(page.url)
        expect(shared.locator("#calc-memory-micro_batch")).to_have_value("8")
        _, response = _wait_for(shared, "memory", {"micro_batch": "8", "optimizer": "sgd_momentum"})
        assert response["inputs"]["micro_batch"] == 8 and response["inputs"]["optimizer"] == "sgd_momentum"

        # The language switcher leads to the same calculator with the same inputs, in the form before
        # the runtime starts (held: the recomputation of an address's inputs is checked above).
        hold_runtime(shared)
        other = next(loc for loc in LOCALES if loc != locale)
        href = shared.locator(f'.md-select__link[hreflang="{other}"]').get_attribute("href")
        shared.goto(shared.evaluate("h => new URL(h, location.href).href", href))
        assert shared.url.split("?", 1)[0] == site_url + ROOTS[other] + "memory/"
        expect(shared.locator("html")).to_have_attribute("lang", other)
        expect(shared.locator("#calc-memory-micro_batch")).to_have_value("8")
        expect(shared.locator("#calc-memory-optimizer")).to_have_value("sgd_momentum")
    finally:
        shared.close()


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("locale", LOCALES)
def test_calculator_page_is_accessible(live_pages, site_url, locale, name):
    """axe on a phone once the reader has changed an input, so the answer is the worker's and
    Material's script has woken, and nothing logged an error or left the origin on the way: since the
    shared page was opened, its start and every test that used it included (test_browser_locales
    checks every page as built, on both devices)."""
    page = live_pages.get(ROOTS[locale], name, "phone")
    field = "cards" if name == "cost" else "micro_batch"
    _set_field(page, name, field, "3")
    _wait_for(page, name, {field: "3"})
    wake_materials_script(page)
    assert axe_violations(page) == []
    log = live_pages.log(page)
    assert log.real_errors() == []
    assert log.foreign_requests(site_url) == []


def test_keyboard_alone_changes_an_answer(live_pages):
    page = live_pages.get(ROOTS["es"], "memory")
    page.locator("#calc-memory-micro_batch").focus()
    page.keyboard.press("ArrowUp")  # number inputs step with the arrow keys
    _, response = _wait_for(page, "memory", {"micro_batch": "5"})
    assert response["inputs"]["micro_batch"] == 5
    live = page.locator("#calc-memory .guide-calc__live")
    expect(live).to_have_attribute("aria-live", "polite")


def test_guide_pages_load_no_pyodide(page: Page, site_url):
    rec = Recorder.attach(page)
    for path in ("", "compare/", "faq/", "ja/", "ar/glossary/"):
        page.goto(site_url + path)
        page.wait_for_load_state("networkidle")
    loaded = [u for u in rec.requests if "pyodide" in u or "calculator" in u or u.endswith(".whl")]
    assert loaded == []


def test_dimensions_follow_the_model_choice(live_pages):
    page = live_pages.get(ROOTS["es"], "memory")
    layers = page.locator("#calc-memory-layers")
    expect(layers).to_be_disabled()  # a preset supplies the dimensions
    _set_field(page, "memory", "model", "custom")
    expect(layers).to_be_enabled()
    layers.fill("40")
    _, response = _wait_for(page, "memory", {"model": "custom", "layers": "40"})
    assert response["inputs"]["layers"] == 40


@pytest.mark.parametrize("locale", LOCALES)
def test_answer_beside_the_form_on_wide_screens_after_it_on_phones(browser, site_url, locale):
    """1350 px: the answer starts level with the form, beside it (on the reading-order side), and
    stays in view while the form scrolls. 412 px: the answer follows the form, as before."""
    for name in PAGES:
        wide = browser.new_context(viewport={"width": 1350, "height": 940})
        hold_runtime(wide)
        page = wide.new_page()
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        form, result = (
            page.locator(f"#calc-{name} .guide-calc__form"),
            page.locator(f"#calc-{name} .guide-calc__output"),
        )
        f, r = form.bounding_box(), result.bounding_box()
        assert abs(r["y"] - f["y"]) < 40, (f, r)
        side = r["x"] >= f["x"] + f["width"] if locale != "ar" else r["x"] + r["width"] <= f["x"]
        assert side, (locale, f, r)
        page.mouse.wheel(0, 1200)
        page.wait_for_timeout(300)
        top = result.bounding_box()["y"]
        assert 0 <= top < 200, f"answer scrolled out of view: {top}"
        page.screenshot(path=str(ARTIFACTS / f"calc-{name}-{locale}-1350.png"))
        wide.close()

        phone = browser.new_context(viewport={"width": 412, "height": 823})
        hold_runtime(phone)
        page = phone.new_page()
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        f = page.locator(f"#calc-{name} .guide-calc__form").bounding_box()
        r = page.locator(f"#calc-{name} .guide-calc__output").bounding_box()
        assert r["y"] >= f["y"] + f["height"], (f, r)
        expect(page.locator(f"#calc-{name} .guide-calc__headline")).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / f"calc-{name}-{locale}-412.png"), full_page=True)
        phone.close()


def _overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("width", [412, 1350])
@pytest.mark.parametrize("locale", LOCALES)
def test_chart_labels_never_overlap_bars_or_values(browser, site_url, locale, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    hold_runtime(context)
    page = context.new_page()
    for name in PAGES:
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        for chart in page.locator(f"#calc-{name} svg.guide-chart").all():
            boxes = chart.evaluate(
                """svg => [...svg.querySelectorAll('text, rect')].map((el) => {
                    const r = el.getBoundingClientRect();
                    return {tag: el.tagName, text: el.textContent, x: r.x, y: r.y, width: r.width, height: r.height};
                })"""
            )
            assert boxes
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    if a["width"] and b["width"] and a["height"] and b["height"]:
                        assert not _overlaps(a, b), (locale, width, a, b)
    context.close()


def _field_error(page: Page, field: str):
    return page.locator(f"#calc-memory-{field}-error")


def test_a_bad_url_value_in_a_greyed_out_field_is_never_reported(page: Page, site_url):
    """`?layers=abc` with a preset: the preset supplies the layers, so nothing can be wrong there."""
    page.goto(site_url + "memory/?layers=abc&micro_batch=8")
    _ready(page, "memory")
    _, response = _wait_for(page, "memory", {"layers": "abc", "micro_batch": "8"})
    assert response["ok"] and response["inputs"]["micro_batch"] == 8
    layers = page.locator("#calc-memory-layers")
    expect(layers).to_be_disabled()
    expect(layers).to_have_value(str(response["inputs"]["layers"]))  # the preset's, not "abc"
    expect(_field_error(page, "layers")).to_be_hidden()
    expect(layers).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("#calc-memory .guide-calc__result")).to_have_attribute("data-ok", "true")
    query = parse_qs(urlparse(page.url).query)
    assert "layers" not in query and query["micro_batch"] == ["8"]


@pytest.mark.parametrize("locale", LOCALES)
def test_not_a_number_stays_not_a_number_until_the_reader_fixes_it(page: Page, site_url, built_site, locale):
    page.goto(site_url + ROOTS[locale] + "memory/?model=custom&layers=abc")
    _ready(page, "memory")
    _wait_for(page, "memory", {"model": "custom", "layers": "abc"})
    expected = render.render("memory", {"model": "custom", "layers": "abc"}, _pack(built_site, locale))["errors"]
    assert [e["field"] for e in expected] == ["layers"]
    error = _field_error(page, "layers")
    expect(error).to_have_text(expected[0]["message"])  # "Enter a number", not "required"
    expect(page.locator("#calc-memory-layers")).to_be_enabled()
    # Another edit recomputes with the URL's value still standing for the untouched field.
    _set_field(page, "memory", "micro_batch", "2")
    _wait_for(page, "memory", {"micro_batch": "2", "layers": "abc"})
    expect(error).to_have_text(expected[0]["message"])
    _set_field(page, "memory", "layers", "40")
    _, response = _wait_for(page, "memory", {"layers": "40"})
    assert response["ok"] and response["inputs"]["layers"] == 40
    expect(error).to_be_hidden()


# Spellings of true that Python's reading accepts, one per box that is clear by default, in one address.
URL_BOOLEANS = {"tied_embeddings": "yes", "qkv_bias": "1", "fused_projections": "TRUE"}


def test_a_url_boolean_is_read_as_python_reads_it(page: Page, site_url):
    page.goto(site_url + "memory/?model=custom&" + "&".join(f"{k}={v}" for k, v in URL_BOOLEANS.items()))
    _ready(page, "memory")
    _, response = _wait_for(page, "memory", URL_BOOLEANS)
    assert response["ok"]
    query = parse_qs(urlparse(page.url).query)
    for field in URL_BOOLEANS:
        assert response["inputs"][field] is True, field
        expect(page.locator(f"#calc-memory-{field}")).to_be_checked()
        assert query[field] == ["true"], field


def test_an_unknown_url_choice_is_reported_not_dropped(page: Page, site_url, built_site):
    page.goto(site_url + "memory/?lora_targets=q,zz")
    _ready(page, "memory")
    _wait_for(page, "memory", {"lora_targets": "q,zz"})
    expected = render.render("memory", {"lora_targets": "q,zz"}, _pack(built_site, "es"))["errors"]
    expect(_field_error(page, "lora_targets")).to_have_text(expected[0]["message"])
    expect(page.locator("#calc-memory .guide-calc__result")).to_have_attribute("data-ok", "false")


@pytest.mark.parametrize("name", PAGES)
def test_the_runtime_starts_once_the_page_has_been_painted(page: Page, site_url, name):
    """One worker, started once the parsed page has had its first frame laid out and painted: its
    download and compile must not stretch that layout (Lighthouse counted it as blocking time)."""
    page.add_init_script("""(() => {
        document.addEventListener("DOMContentLoaded", () => requestAnimationFrame(() => { window.__framed = true; }));
        const Native = window.Worker;
        window.__workers = [];
        window.Worker = function (url, options) {
            window.__workers.push({ url: String(url), framed: window.__framed === true });
            return new Native(url, options);
        };
    })();""")
    page.goto(site_url + PAGES[name])
    _ready(page, name)
    workers = [w for w in page.evaluate("window.__workers") if "calculator-worker" in w["url"]]
    assert workers == [{"url": workers[0]["url"], "framed": True}], workers
    _set_field(page, name, "cards" if name == "cost" else "micro_batch", "3")
    _wait_for(page, name, {"cards" if name == "cost" else "micro_batch": "3"})  # that one worker answers


@pytest.mark.parametrize("locale", LOCALES)
def test_table_headers_read_in_a_few_lines_on_phones(browser, site_url, locale):
    """412 px: a header reads in four lines at most. The answers' tables scroll sideways rather than
    squeeze a column until its header falls apart, as Japanese did one character per line
    ("カ/ー/ド/枚/数", nine lines)."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    hold_runtime(context)
    page = context.new_page()
    for name in PAGES:
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        lines = page.locator(f"#calc-{name} table.guide-table th").evaluate_all(
            """ths => ths.map((th) => {
                const range = document.createRange();
                range.selectNodeContents(th);
                return [th.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size];
            })"""
        )
        assert lines, name
        assert all(count <= 4 for _, count in lines), (locale, name, [l for l in lines if l[1] > 4])
    context.close()


def test_arabic_amounts_draw_us_dollar_as_written(page: Page, site_url):
    """In a right-to-left amount «US$» is drawn U, S, $ from the left, not "$US" (CLDR's text alone
    gave the "$" the figure's direction)."""
    hold_runtime(page)
    page.goto(site_url + "ar/cost/")
    drawn = page.evaluate("""() => [...document.querySelectorAll('.guide-calc__result .guide-num')]
        .filter((el) => el.textContent.includes('US$')).map((el) => {
            const text = el.firstChild, at = text.textContent.indexOf('US$');
            const left = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                                  return r.getBoundingClientRect().left; };
            return [text.textContent, left(at), left(at + 1), left(at + 2)];
        })""")
    assert len(drawn) > 10
    assert all(u < s < dollar for _, u, s, dollar in drawn), [d for d in drawn if not d[1] < d[2] < d[3]][:3]


@pytest.mark.parametrize("locale", LOCALES)
def test_each_figure_lines_up_with_its_label(browser, site_url, locale):
    """A figure tile's value starts where its label starts, on the reading side. Material indents
    every `dd` by 1.875em through a `[dir] .md-typeset dd` rule, which outranked the tiles' own reset
    and pushed each value 49 px in from its label."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    hold_runtime(context)
    page = context.new_page()
    for name in PAGES:
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        edges = page.locator(f"#calc-{name} .guide-metric").evaluate_all(
            """tiles => tiles.map((tile) => {
                const side = getComputedStyle(tile).direction === "rtl" ? "right" : "left";
                const [label, value] = [tile.querySelector("dt"), tile.querySelector("dd")];
                return [label.textContent, Math.abs(label.getBoundingClientRect()[side] - value.getBoundingClientRect()[side])];
            })"""
        )
        assert edges, name
        assert all(gap < 1 for _, gap in edges), (locale, name, [e for e in edges if e[1] >= 1])
    context.close()


@pytest.mark.parametrize(("locale", "screen"), [("ar", "phone"), ("es", "desktop")])
def test_eight_cards_that_do_not_fit_offer_the_sharding_that_does_in_one_tap(live_pages, locale, screen):
    """Issue 51 item 3: a full fine-tune on 8 cards with the default "one GPU": the answer names the
    least sharding that fits these cards, and its button puts it in the form and answers for it."""
    page = live_pages.get(ROOTS[locale], "cost", screen)
    _set_field(page, "cost", "method", "full")
    _set_field(page, "cost", "gpu", "h100-sxm-80gb")
    _set_field(page, "cost", "cards", "8")
    _, response = _wait_for(page, "cost", {"method": "full", "gpu": "h100-sxm-80gb", "cards": "8"})
    near = response["result"]["nearest_fit"]
    assert not response["result"]["fits_memory"] and near["change"] == "parallelism"
    fix = page.locator("#calc-cost .guide-calc__result button.guide-calc__apply")
    expect(fix).to_have_count(1)
    fix.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    fix.locator("xpath=ancestor::section[1]").screenshot(path=str(ARTIFACTS / f"sharding-fix-{locale}-{screen}.png"))
    fix.click()
    try:
        expect(page.locator("#calc-cost-parallelism")).to_have_value(near["parallelism"], timeout=5_000)
    except AssertionError:
        # A late answer moved the form under the tap (the sticky headline changes height, as in `_check`):
        # the reader taps again, once the page is ready.
        expect(page.locator("#calc-cost .guide-calc__status")).to_have_attribute("data-state", "ready")
        fix.click()
    _, response = _wait_for(page, "cost", {"parallelism": near["parallelism"], "cards": "8"})
    assert response["result"]["fits_memory"] and response["result"]["cards"] == 8
    expect(page.locator("#calc-cost-parallelism")).to_have_value(near["parallelism"])
