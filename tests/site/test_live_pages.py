"""The shared live pages (tests/site/browser.py: LivePages) come back as a freshly opened page would be:
the tests that share them assume the defaults, so a leftover from the test before would pass or fail them
for the wrong reason."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import calculators
from guidekit import render
from tests.conftest import ROOT, ROOTS
from tests.site.browser import apply_import
from tests.site.test_browser_calculators import _pack, _set_field, _wait_for

pytestmark = pytest.mark.browser

SAMPLE = ROOT / "results" / "sample-cpu.json"


def test_a_shared_page_comes_back_at_the_defaults(live_pages, built_site):
    page = live_pages.get(ROOTS["ar"], "memory")
    root = page.locator("#calc-memory")
    as_built = page.locator("#calc-memory-micro_batch").get_attribute("value")
    folds = page.evaluate("() => [...document.querySelectorAll('details')].map((d) => d.open)")
    box = page.locator("#calc-memory [data-drop-zone]")
    box_as_built = box.inner_html()
    # A file imported, which fills the form and shows its panel; the window resized.
    page.locator("#calc-memory-import").set_input_files(str(SAMPLE))
    apply_import(page, "memory")
    expect(page.locator("#calc-memory-model")).to_have_value("custom")
    page.set_viewport_size({"width": 390, "height": 844})
    # What a test may leave behind: a refused value with its error, a changed choice, an open fold.
    # (The import comes first: a file's configuration fills the form, so the errors must come after.)
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
    assert box.inner_html() == box_as_built
    assert page.evaluate("() => document.getElementById('calc-memory-import').files.length") == 0
    assert page.viewport_size == {"width": 1280, "height": 800}
    # The answer shown is the live worker's for the defaults, as a reader opening the page would get.
    expect(root).to_have_attribute("data-answer", "current")
    expected = render.render("memory", {}, _pack(built_site, "ar"))
    expect(root.locator(".guide-calc__headline")).to_have_text(expected["headline"])
    # No answer recorded, as on a page just opened: the next one a test reads answers its own change.
    assert page.evaluate("() => document.getElementById('calc-memory').guideResponse") is None
    _set_field(page, "memory", "micro_batch", "3")
    _, response = _wait_for(page, "memory", {"micro_batch": "3"})
    assert response["inputs"] == calculators.compute("memory", {"micro_batch": "3"})["inputs"]
