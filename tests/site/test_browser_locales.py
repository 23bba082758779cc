"""Every locale in a real browser: language, direction, navigation, switcher, search, origin, a11y."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import ARTIFACTS, LOCALES, ROOTS
from tests.site.browser import PHONE, Recorder, axe_violations, hold_runtime, wake_materials_script

pytestmark = pytest.mark.browser

DIRECTION = {"es": "ltr", "ja": "ltr", "ar": "rtl"}
SITE_NAME = {
    "es": "Guía de GPU para ajuste fino",
    "ja": "ファインチューニング用 GPU ガイド",
    "ar": "دليل اختيار GPU للضبط الدقيق",
}
# A word each locale's guide uses, and the script its navigation is written in.
QUERY = {"es": "memoria", "ja": "メモリ", "ar": "ذاكرة"}
SCRIPT = {"es": r"[a-záéíóúñ]", "ja": r"[\u3040-\u30ff\u4e00-\u9fff]", "ar": r"[\u0600-\u06ff]"}


@pytest.mark.parametrize("locale", LOCALES)
def test_home_page_in_locale(page: Page, site_url: str, locale: str):
    rec = Recorder.attach(page)
    page.goto(site_url + ROOTS[locale])

    html = page.locator("html")
    expect(html).to_have_attribute("lang", locale)
    expect(html).to_have_attribute("dir", DIRECTION[locale])
    expect(page.locator(".md-header__topic").first).to_contain_text(SITE_NAME[locale])

    nav_texts = page.locator("nav.md-nav--primary .md-nav__link").all_inner_texts()
    assert nav_texts, "no navigation"
    for text in nav_texts:
        assert re.search(SCRIPT[locale], text.strip(), re.IGNORECASE), f"nav item not in {locale}: {text!r}"

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"home-{locale}.png"), full_page=True)

    assert not axe_violations(page), axe_violations(page)
    assert rec.foreign_requests(site_url) == []
    assert rec.real_errors() == []


@pytest.mark.parametrize("locale", LOCALES)
def test_language_switcher_keeps_the_page(page: Page, site_url: str, locale: str):
    page.goto(site_url + ROOTS[locale] + "compare/")
    for other in LOCALES:
        link = page.locator(f'.md-select__link[hreflang="{other}"]')
        expect(link).to_have_count(1)
        href = link.get_attribute("href")
        target = page.evaluate("h => new URL(h, location.href).href", href)
        assert target == site_url + ROOTS[other] + "compare/", (other, target)


@pytest.mark.parametrize("locale", LOCALES)
def test_search_returns_only_this_locale(page: Page, site_url: str, locale: str):
    rec = Recorder.attach(page)
    page.goto(site_url + ROOTS[locale])
    search = page.locator("input.md-search__input")
    search.click()
    search.fill(QUERY[locale])
    # fill() inserts text without key events (as an IME commit would); Material searches on keyup.
    search.press("End")
    results = page.locator(".md-search-result__item a")
    expect(results.first).to_be_visible(timeout=15000)
    hrefs = [
        page.evaluate("h => new URL(h, location.href).href", h)
        for h in results.evaluate_all("els => els.map(e => e.getAttribute('href'))")
    ]
    assert hrefs
    for href in hrefs:
        path = href[len(site_url) :]
        first = path.split("/", 1)[0]
        if locale == "es":
            assert first not in ("ja", "ar"), href
        else:
            assert path.startswith(ROOTS[locale]), href
    assert rec.foreign_requests(site_url) == []
    assert rec.real_errors() == []


ALL_PAGES = ("", "compare/", "memory/", "cost/", "pilot/", "results/", "faq/", "glossary/")
CALCULATOR_PAGES = ("memory/", "cost/")


@pytest.mark.parametrize("device", ["phone", "desktop"])
@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_is_accessible_and_silent(browser, site_url: str, locale: str, device):
    """axe (every impact) and no console error on every page of the locale, served at another origin
    and path than the build was made for, on a desktop and on a phone as it reports itself (touch, no
    hover). The phone is checked again once the reader's first touch has woken Material's script,
    which takes code blocks out of the tab order on a device without hover. The calculator pages are
    checked as built, their runtime held: the same pages once live, in every locale, are
    test_browser_calculators.py's test_calculator_page_is_accessible, which also asks for silence."""
    screen = PHONE if device == "phone" else {"viewport": {"width": 1350, "height": 940}}
    context = browser.new_context(**screen, service_workers="allow")
    found = {}
    for path in ALL_PAGES:
        page = context.new_page()
        rec = Recorder.attach(page)
        if path in CALCULATOR_PAGES:
            hold_runtime(page)  # its request then stays open: the page never goes network-idle
        page.goto(site_url + ROOTS[locale] + path, wait_until="load" if path in CALCULATOR_PAGES else "networkidle")
        problems = axe_violations(page)
        if device == "phone":
            wake_materials_script(page)
            problems += [f"after the first touch: {v}" for v in axe_violations(page)]
        problems += rec.real_errors() + rec.foreign_requests(site_url)
        if problems:
            found[path] = problems
        page.close()
    context.close()
    assert found == {}


@pytest.mark.parametrize("locale", LOCALES)
def test_materials_script_waits_for_the_readers_scroll_on_a_phone(browser, site_url, locale):
    """A phone's browser scrolls a right-to-left page sideways while it settles the layout: before,
    that woke Material's bundle at load on every Arabic page (Lighthouse: TBT 1.1 s, performance 76)."""
    context = browser.new_context(**PHONE, service_workers="block")
    page = context.new_page()
    hold_runtime(page)  # the bundle's loading is the page's own script's doing, not the calculator's
    page.goto(site_url + ROOTS[locale] + "memory/", wait_until="load")
    bundle = page.locator('script[src*="/bundle."]')
    # The layout's sideways scroll comes at load or not, by timing: it is sent here, every time.
    page.evaluate("window.dispatchEvent(new Event('scroll'))")
    page.wait_for_timeout(500)
    expect(bundle).to_have_count(0)
    page.evaluate("window.scrollBy(0, 400)")  # the reader's scroll
    expect(bundle).to_have_count(1)
    context.close()
