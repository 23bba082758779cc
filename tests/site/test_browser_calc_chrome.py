"""Issue 33, what sits around the calculator's answer on a phone: Material's back-to-top button never
covers the sticky headline (item 5)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import LOCALES
from tests.site.browser import PHONE, hold_runtime, wake_materials_script
from tests.site.test_browser_calculators import PAGES, ROOTS

pytestmark = pytest.mark.browser


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", list(PAGES))
def test_back_to_top_never_covers_the_sticky_headline_on_a_phone(browser, site_url, locale, name):
    context = browser.new_context(**PHONE)
    hold_runtime(context)  # the page's chrome, not its answer
    page: Page = context.new_page()
    try:
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        wake_materials_script(page)
        headline = page.locator(f"#calc-{name} .guide-calc__headline")
        # Down into the form (the headline now sticks under the header), then a little up: what makes
        # Material show its button.
        page.evaluate(f"window.scrollTo(0, document.querySelector('#calc-{name} .guide-calc__form').offsetTop + 600)")
        page.wait_for_timeout(300)
        page.evaluate("window.scrollBy(0, -120)")
        page.wait_for_timeout(600)
        expect(headline).to_be_visible()
        head = headline.bounding_box()
        assert head and 0 <= head["y"] < 823, head
        top = page.locator(".md-top")
        # Material did react: the button is no longer marked hidden by its script.
        expect(top).not_to_have_attribute("hidden", "")
        box = top.bounding_box() if top.is_visible() else None
        opacity = float(top.evaluate("e => getComputedStyle(e).opacity")) if box else 0.0
        assert not box or opacity == 0 or not _overlap(head, box), (head, box)
    finally:
        context.close()
