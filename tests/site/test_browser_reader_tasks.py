"""Issue 33's five reader tasks, as readers do them, on a phone and on a desktop, in every locale.

Each task asserts what the reader must see first: the answer's sentence (the short headline kept in
view on a phone, the whole verdict atop the result on a desktop) with its figure, inside the first
screenful of the calculator, and equal to what CPython renders for the same inputs in that locale.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlparse

import pytest
from playwright.sync_api import Page, expect

from guidekit import l10n, render
from guidekit.render._render import input_labels
from tests.conftest import LOCALES
from tests.site.browser import PHONE
from tests.site.test_browser_calculators import ROOTS, _pack, _set_field, _wait_for

pytestmark = pytest.mark.browser

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "hf-configs"


def unbroken(text: str) -> str:
    """A figure or a card's name as a sentence shows it: its spaces no-break (guidekit.render)."""
    return text.replace(" ", "\u00a0")


def _query(page: Page) -> dict:
    return dict(parse_qsl(urlparse(page.url).query))


def _answer_first(page: Page, name: str, width: str, pack: dict, shots: Path, task: str, locale: str) -> dict:
    """The answer the reader sees first, checked against CPython for the inputs the address holds."""
    expected = render.render(name, _query(page), pack)
    # Instantly: the theme scrolls smoothly, and a box read mid-scroll is wherever the animation was.
    top = f"document.querySelector('#calc-{name}').scrollIntoView({{block: 'start', behavior: 'instant'}})"
    page.evaluate(top)
    if width == "phone":  # the short headline, kept in view above the form
        shown, text = page.locator(f"#calc-{name} .guide-calc__headline"), expected["headline"]
    else:  # the whole verdict, atop the result beside the form
        shown, text = page.locator(f"#calc-{name} .guide-verdict"), expected["summary"]
    expect(shown).to_have_text(text)
    page.evaluate(top)  # again once the answer is in: content that changed since moves the calculator
    # On a desktop the result is a column that scrolls on its own, and an earlier task on this shared page
    # may have left it scrolled down: the verdict is at its top.
    shown.evaluate("(el) => el.scrollIntoView({block: 'nearest', behavior: 'instant'})")
    box, height = shown.bounding_box(), page.viewport_size["height"]
    page.screenshot(path=str(shots / f"{task}-{locale}-{width}.png"))
    assert box and box["height"] > 0 and 0 <= box["y"] and box["y"] + box["height"] <= height, (box, height)
    return expected


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reader-tasks")


WIDTHS = ["phone", "desktop"]


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("width", WIDTHS)
def test_does_my_run_fit(live_pages, built_site, shots, locale, width):
    """An 8,192-token LoRA run that one H100 cannot hold: the verdict says so, with the GB it needs."""
    page = live_pages.get(ROOTS[locale], "memory", width)
    _set_field(page, "memory", "seq_len", "8192")
    _wait_for(page, "memory", {"seq_len": "8192"})
    pack = _pack(built_site, locale)
    expected = _answer_first(page, "memory", width, pack, shots, "fit", locale)
    needed = unbroken(l10n.NumberFormat(pack).unit("gb", expected["response"]["result"]["per_gpu_bytes"] / 1e9))
    assert needed in expected["headline"] and needed in expected["summary"]
    expect(page.locator("#calc-memory .guide-verdict")).to_have_attribute("data-status", "bad")


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("width", WIDTHS)
def test_my_own_config_json(live_pages, built_site, shots, locale, width):
    """The reader's config.json, picked beside the model choice: the form takes its shape and the
    verdict is the answer for that model."""
    page = live_pages.get(ROOTS[locale], "memory", width)
    page.evaluate("""() => { window.__result = null;
        document.getElementById('calc-memory').addEventListener('guide:imported', () =>
          document.getElementById('calc-memory').addEventListener('guide:result', (e) => { window.__result = e.detail; },
          {once: true}), {once: true}); }""")
    page.locator("#calc-memory-import").set_input_files(str(CONFIGS / "llama-tiny.json"))
    page.wait_for_function("() => window.__result !== null", timeout=60_000)
    expect(page.locator("#calc-memory-model")).to_have_value("custom")
    assert _query(page)["model"] == "custom"
    _answer_first(page, "memory", width, _pack(built_site, locale), shots, "config", locale)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("width", WIDTHS)
def test_what_will_this_job_cost(live_pages, built_site, shots, locale, width):
    """A 2-billion-token LoRA job: the headline names the cheapest card and its cost per result."""
    page = live_pages.get(ROOTS[locale], "cost", width)
    _set_field(page, "cost", "method", "lora")
    _set_field(page, "cost", "tokens", "2000000000")
    _wait_for(page, "cost", {"method": "lora", "tokens": "2000000000"})
    pack = _pack(built_site, locale)
    expected = _answer_first(page, "cost", width, pack, shots, "cost", locale)
    cheapest = expected["response"]["result"]["best_by_gpu"][0]
    assert unbroken(cheapest["name"]) in expected["headline"]
    assert unbroken(l10n.NumberFormat(pack).money(cheapest["best_usd_per_output"])) in expected["headline"]


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("width", WIDTHS)
def test_a_value_out_of_range_is_shown_where_the_reader_looks(live_pages, built_site, shots, locale, width):
    """A reserve of 95 % (the rule is at most 90 %), typed: the answer says the input is wrong instead
    of showing a figure, and the field itself carries the localized message. (A refused value from a
    shared link: test_browser_hardening's number tests and test_browser_errors_and_links.)"""
    page = live_pages.get(ROOTS[locale], "memory", width)
    _set_field(page, "memory", "margin", "0.95")
    _wait_for(page, "memory", {"margin": "0.95"})
    pack = _pack(built_site, locale)
    expected = render.render("memory", {"margin": "0.95"}, pack)
    assert not expected["response"]["ok"]
    label = l10n.Translator(pack)(input_labels("memory")["margin"])
    assert label in expected["headline"]  # the headline kept in view names the field to fix
    page.evaluate("document.querySelector('#calc-memory').scrollIntoView({block: 'start'})")
    headline = page.locator("#calc-memory .guide-calc__headline")
    expect(headline).to_have_text(expected["headline"])
    error = page.locator("#calc-memory-margin-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(expected["errors"][0]["message"])
    page.screenshot(path=str(shots / f"invalid-{locale}-{width}.png"))


def test_a_mixture_of_experts_under_qlora_says_why_its_figure_is_large(live_pages, built_site, shots):
    """Issue 51 reader task 2, ja desktop: Mixtral 8x7B, QLoRA, sequence 4096, micro-batch 2 on one H100:
    the figure first, and beside it the line that says the grouped experts stay in bf16."""
    page = live_pages.get(ROOTS["ja"], "memory", "desktop")
    for field, value in (("model", "mixtral-8x7b"), ("method", "qlora"), ("seq_len", "4096"), ("micro_batch", "2")):
        _set_field(page, "memory", field, value)
    _wait_for(page, "memory", {"model": "mixtral-8x7b", "method": "qlora", "seq_len": "4096", "micro_batch": "2"})
    pack = _pack(built_site, "ja")
    expected = _answer_first(page, "memory", "desktop", pack, shots, "moe-qlora", "ja")
    needed = unbroken(l10n.NumberFormat(pack).unit("gb", expected["response"]["result"]["per_gpu_bytes"] / 1e9))
    assert needed in expected["summary"]
    why = page.locator("#calc-memory .guide-block--notes").filter(has_text=l10n.Translator(pack)("Why this figure"))
    expect(why).to_have_count(1)
    expect(why).to_contain_text("bitsandbytes")
    why.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "moe-qlora-why-ja-desktop.png"))


def test_a_shared_link_opens_the_same_job_and_answer_in_another_language(browser, live_pages, built_site, shots):
    """Issue 51 reader task 5, ja phone → ar: a reader shares the address of a job; a fresh browser opens
    it, then switches to Arabic. The same inputs, the same answer, in each language's words."""
    page = live_pages.get(ROOTS["ja"], "cost", "phone")
    job = {"method": "lora", "tokens": "300000000", "runs": "3", "deadline_hours": "48", "capacity": "spot"}
    for field, value in job.items():
        _set_field(page, "cost", field, value)
    _, shared = _wait_for(page, "cost", {"method": "lora", "capacity": "spot"})
    link = page.evaluate("location.href")
    context = browser.new_context(**PHONE)
    try:
        fresh = context.new_page()
        fresh.goto(link)
        _, opened = _wait_for(fresh, "cost", {"method": "lora", "capacity": "spot"})
        assert opened["result"]["usd_per_output"] == shared["result"]["usd_per_output"]
        assert (
            opened["result"]["gpu"] == shared["result"]["gpu"] and opened["result"]["plan"] == shared["result"]["plan"]
        )
        # The language menu's link to the Arabic page carries the inputs.
        arabic = fresh.locator('.md-select__link[hreflang="ar"]').first.get_attribute("href")
        assert "capacity=spot" in arabic and "deadline_hours=48" in arabic
        fresh.goto(arabic)
        _, switched = _wait_for(fresh, "cost", {"method": "lora", "capacity": "spot"})
        assert switched["result"]["usd_per_output"] == shared["result"]["usd_per_output"]
        expected = _answer_first(fresh, "cost", "phone", _pack(built_site, "ar"), shots, "shared-link", "ar")
        assert expected["response"]["result"]["usd_per_output"] == shared["result"]["usd_per_output"]
    finally:
        context.close()


def test_own_prices_with_terms_not_offered_price_an_eight_card_run(live_pages, built_site, shots):
    """Issue 51 reader task 3, ar phone: the reader's own H100 prices (1.99 US$/h on demand, 1.60 US$/h for a
    month, no other term: 0 in the card's price table), Llama 3.1 8B full fine-tune on 8 cards, 1 B tokens ×
    2 epochs. The sharding that fits is one tap; the cheapest plan holds only the offered terms, and the answer
    says what a slower run does to the booking."""
    page = live_pages.get(ROOTS["ar"], "cost", "phone")
    job = {"gpu": "h100-sxm-80gb", "method": "full", "cards": "8", "tokens": "1000000000", "epochs": "2"}
    for field, value in job.items():
        _set_field(page, "cost", field, value)
    prices = {"hourly": "1.99", "1m": "1.6", "spot": "0", "1d": "0", "1w": "0", "3m": "0"}
    fold = page.locator("#calc-cost details.guide-calc__fold").filter(
        has=page.locator('[data-field="price_h100-sxm-80gb_hourly"]')
    )
    fold.locator("summary").click()
    table = fold.locator("table.guide-calc__table")
    expect(table).to_be_visible()
    for term, value in prices.items():
        _set_field(page, "cost", f"price_h100-sxm-80gb_{term}", value)
    # Leaving the last field commits it (a change event, computed at once) before the answer is read: left
    # for the fix's click to do, its answer replaced the button mid-click on a loaded machine.
    page.locator('#calc-cost [data-field="price_h100-sxm-80gb_3m"] input').blur()
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "own-prices-table-ar-phone.png"))
    _, response = _wait_for(page, "cost", {"price_h100-sxm-80gb_3m": "0", "price_h100-sxm-80gb_hourly": "1.99"})
    # One GPU on each of 8 cards cannot hold a full fine-tune: the answer offers the sharding that fits.
    fix = page.locator('#calc-cost .guide-calc__result button[data-inputs*="parallelism"]')
    expect(fix).to_have_count(1)
    fix.click()
    _, response = _wait_for(page, "cost", {"parallelism": response["result"]["nearest_fit"]["parallelism"]})
    result = response["result"]
    assert result["fits_memory"] and result["cards"] == 8 and result["gpu"] == "h100-sxm-80gb"
    assert {entry[0] for entry in result["plan"]} <= {"hourly", "1m"}  # the offered terms only
    assert result["prices_edited"] == ["h100-sxm-80gb"]
    pack = _pack(built_site, "ar")
    expected = _answer_first(page, "cost", "phone", pack, shots, "own-prices", "ar")
    assert expected["response"]["result"]["usd_per_output"] == result["usd_per_output"]
    # What a slower run does: the low-end note, in Arabic, under the answer.
    t = l10n.Translator(pack)
    said = t("At the low end of the throughput range this booking covers the job with {hours} to spare.")
    low_end = page.locator("#calc-cost .guide-calc__result li").filter(has_text=said.split("{")[0].strip())
    expect(low_end).to_have_count(1)


def test_the_memory_answer_takes_its_job_to_the_cost_page(live_pages, built_site, shots):
    """Issue 51 reader task 1, es phone: Qwen3 8B, LoRA, sequence 8192, micro-batch 4: does it fit one RTX
    4090? The answer names the smallest and the cheapest setup that fit; then the same job's cheapest card
    and term for 300 M tokens × 3 epochs, from the memory answer's own link, without retyping the job."""
    page = live_pages.get(ROOTS["es"], "memory", "phone")
    job = {"model": "qwen3-8b", "method": "lora", "seq_len": "8192", "micro_batch": "4", "gpu": "rtx-4090-24gb"}
    for field, value in job.items():
        _set_field(page, "memory", field, value)
    _, memory = _wait_for(page, "memory", job)
    pack = _pack(built_site, "es")
    expected = _answer_first(page, "memory", "phone", pack, shots, "job-memory", "es")
    result = memory["result"]
    assert not result["answer"]["fits"] and result["cheapest"]["name"] in expected["summary"].replace("\u00a0", " ")
    link = page.locator("#calc-memory .guide-calc__carry a")
    expect(link).to_have_text(l10n.Translator(pack)("Cost this job"))
    href = link.evaluate("a => a.href")
    carried = dict(parse_qsl(urlparse(href).query))
    # What differs from the cost page's defaults travels (its method and micro-batch are this job's already).
    assert {k: carried[k] for k in ("model", "seq_len", "gpu")} == {k: job[k] for k in ("model", "seq_len", "gpu")}
    costs = page.context.new_page()
    try:
        costs.goto(href)
        for field, value in (("tokens", "300000000"), ("epochs", "3")):
            _set_field(costs, "cost", field, value)
        _, answer = _wait_for(costs, "cost", {**job, "tokens": "300000000", "epochs": "3"})
        assert answer["ok"], answer.get("errors")
        shown = _answer_first(costs, "cost", "phone", pack, shots, "job-cost", "es")
        cheapest = shown["response"]["result"]["best_by_gpu"][0]
        assert unbroken(cheapest["name"]) in shown["headline"]
        assert unbroken(l10n.NumberFormat(pack).money(cheapest["best_usd_per_output"])) in shown["headline"]
        # The cost page's own link takes the job back, with its card count under the memory page's name.
        back = costs.locator("#calc-cost .guide-calc__carry a").evaluate("a => a.href")
        assert dict(parse_qsl(urlparse(back).query))["seq_len"] == "8192" and "/memory/" in back
    finally:
        costs.close()
