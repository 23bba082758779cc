"""Issue 33 item 7 on a phone, every locale: each form opens with the model (its config.json import right
beside it), "More options" looks and sizes like a control, and the sticky headline stays short."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import LOCALES
from tests.site.browser import PHONE, hold_runtime
from tests.site.test_browser_calculators import PAGES, ROOTS

pytestmark = pytest.mark.browser

SHOTS = "/tmp/h4-shots"
TOUCH_PX = 44  # the smallest comfortable touch target (WCAG 2.5.5)

# Lines of text in an element: its content height over its line height.
LINES = """e => { const s = getComputedStyle(e);
  const inner = e.getBoundingClientRect().height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
  return inner / parseFloat(s.lineHeight); }"""
SUMMARY_STYLE = """e => { const s = getComputedStyle(e), r = e.getBoundingClientRect();
  return {height: r.height, border: parseFloat(s.borderTopWidth), style: s.borderTopStyle, color: s.borderTopColor,
          before: getComputedStyle(e, '::before').content}; }"""


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", list(PAGES))
def test_phone_form_opens_with_the_model_and_keeps_the_headline_short(browser, site_url, locale, name):
    context = browser.new_context(**PHONE)
    hold_runtime(context)  # the form and headline as built
    page: Page = context.new_page()
    try:
        page.goto(site_url + ROOTS[locale] + PAGES[name])
        root = page.locator(f"#calc-{name}")
        fields = root.locator(".guide-calc__form [data-field]")
        assert fields.first.get_attribute("data-field") == "model"
        # The config.json import is the model field's next neighbour, not somewhere down the form.
        assert fields.first.evaluate("e => e.nextElementSibling.classList.contains('guide-calc__import')")

        summary = root.locator("details.guide-calc__advanced > summary").first
        style = summary.evaluate(SUMMARY_STYLE)
        assert style["height"] >= TOUCH_PX and style["border"] >= 1 and style["style"] != "none", style
        assert style["color"] not in ("transparent", "rgba(0, 0, 0, 0)") and style["before"] == "none", style
        # No fieldset whose only content is a fold: every one shows a field of its own (or its table's).
        assert (
            root.locator("fieldset.guide-calc__group").evaluate_all(
                "fs => fs.filter(f => !f.querySelector(':scope > [data-field], :scope > .guide-scroll [data-field]')).length"
            )
            == 0
        )

        page.evaluate(f"window.scrollTo(0, document.querySelector('#calc-{name} .guide-calc__form').offsetTop + 400)")
        page.wait_for_timeout(300)
        headline = root.locator(".guide-calc__headline")
        expect(headline).to_be_visible()
        lines = headline.evaluate(LINES)
        page.screenshot(path=f"{SHOTS}/{name}-{locale}-phone.png")
        assert lines <= 2.05, (lines, headline.inner_text())

        summary.scroll_into_view_if_needed()
        summary.click()
        expect(summary.locator("xpath=..")).to_have_attribute("open", "")
        page.evaluate("window.scrollBy(0, -150)")
        page.screenshot(path=f"{SHOTS}/{name}-{locale}-phone-more-open.png")
    finally:
        context.close()
