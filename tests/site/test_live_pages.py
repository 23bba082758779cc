"""The shared live pages (tests/site/browser.py: LivePages) come back as a freshly opened page would be:
the tests that share them assume the defaults, so a leftover from the test before would pass or fail them
for the wrong reason."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import calcui
import calculators
from tests.conftest import ROOTS
from tests.site.test_browser_calculators import _pack, _set_field, _wait_for

pytestmark = pytest.mark.browser


def test_a_shared_page_comes_back_at_the_defaults(live_pages, built_site):
    page = live_pages.get(ROOTS["ar"], "memory")
    root = page.locator("#calc-memory")
    as_built = page.locator("#calc-memory-micro_batch").get_attribute("value")
    folds = page.evaluate("() => [...document.querySelectorAll('details')].map((d) => d.open)")
    # What a test may leave behind: a refused value with its error, a changed choice, an open fold.
    _set_field(page, "memory", "micro_batch", "-3")
    _set_field(page, "memory", "optimizer", "sgd_momentum")
    _wait_for(page, "memory", {"micro_batch": "-3", "optimizer": "sgd_momentum"})
    expect(page.locator("#calc-memory-micro_batch-error")).to_be_visible()
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = !d.open; })")

    again = live_pages.get(ROOTS["ar"], "memory")
    assert again is page  # shared, not reopened
    assert "?" not in page.url
    expect(page.locator("#calc-memory-micro_batch")).to_have_value(as_built)
    expect(page.locator("#calc-memory-micro_batch-error")).to_be_hidden()
    expect(page.locator("#calc-memory-micro_batch")).not_to_have_attribute("aria-invalid", "true")
    assert page.evaluate("() => [...document.querySelectorAll('details')].map((d) => d.open)") == folds
    # The answer shown is the live worker's for the defaults, as a reader opening the page would get.
    expect(root).to_have_attribute("data-answer", "current")
    expected = calcui.render("memory", {}, _pack(built_site, "ar"))
    expect(root.locator(".guide-calc__headline")).to_have_text(expected["headline"])
    response = page.evaluate("() => document.getElementById('calc-memory').guideResponse")
    assert response["inputs"] == calculators.compute("memory", {})["inputs"]
