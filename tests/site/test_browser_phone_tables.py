"""The calculators' result tables on a phone (issue 33): the deciding columns first after the name, the
name column fixed while the rest scrolls sideways, and a cue at the edge where more of the table lies
(the left in Arabic), gone once the table is scrolled to that end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page

from guidekit import l10n
from tests.conftest import LOCALES, ROOTS
from tests.site.browser import PHONE, hold_runtime

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/h1-shots")
# Per page: each answer table that decides something, by its title, and the headers (English msgids)
# that must come first: its name column, then what decides.
DECIDING = {
    "cost": {
        "Cheapest configuration of each GPU": ["GPU", "Per successful output", "Cards"],
        "Card counts of this GPU that fit": ["Cards", "Per successful output"],
    },
    "memory": {"Which GPUs fit": ["GPU", "Fits with the reserve", "Cards needed", "Free memory"]},
}

# Where the table box stands: how far it overflows, how far it is scrolled (from its start edge, either
# direction), the two cues' opacities, and whether the first body row's name cell is inside the box and
# on top at its centre (not covered by the cells scrolled under it).
STATE = """box => {
    const cell = box.querySelector("tbody tr > :first-child");
    const b = box.getBoundingClientRect(), c = cell.getBoundingClientRect();
    const x = (c.left + c.right) / 2, y = (c.top + c.bottom) / 2;
    return {
        overflow: box.scrollWidth - box.clientWidth,
        scrolled: Math.abs(box.scrollLeft),
        end_cue: Number(getComputedStyle(box, "::after").opacity),
        start_cue: Number(getComputedStyle(cell, "::after").opacity),
        name_inside: c.left >= b.left - 0.5 && c.right <= b.right + 0.5 && c.width > 0,
        name_on_top: cell.contains(document.elementFromPoint(x, y)),
    };
}"""


def _translator(built_site, locale) -> l10n.Translator:
    site, _, _ = built_site
    return l10n.Translator(json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8")))


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    hold_runtime(context)  # the answers' tables as built
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", sorted(DECIDING))
def test_tables_keep_their_names_and_cue_the_scroll(phone: Page, site_url, built_site, locale, name):
    t = _translator(built_site, locale)
    phone.goto(site_url + ROOTS[locale] + name + "/")
    SHOTS.mkdir(exist_ok=True)
    for title, first in DECIDING[name].items():
        box = phone.locator(f"#calc-{name} .guide-scroll").filter(has=phone.locator("caption", has_text=t(title)))
        headers = box.locator("thead th").all_inner_texts()
        assert [h.strip() for h in headers[: len(first)]] == [t(label) for label in first], (locale, title, headers)

        box.scroll_into_view_if_needed()
        start = box.evaluate(STATE)
        assert start["scrolled"] == 0 and start["start_cue"] == 0, (locale, title, start)
        if start["overflow"] <= 1:  # it fits: no cue, nothing to scroll
            assert start["end_cue"] == 0, (locale, title, start)
            continue
        assert start["end_cue"] == 1, (locale, title, start)

        # To the far end: scrollLeft runs negative in a right-to-left box, and the browser clamps it.
        box.evaluate(
            "box => { box.scrollLeft = (getComputedStyle(box).direction === 'rtl' ? -1 : 1) * box.scrollWidth; }"
        )
        for _ in range(40):  # the scroll-driven cues follow within a frame or two, later on a loaded machine
            end = box.evaluate(STATE)
            if end["end_cue"] == 0 and end["start_cue"] == 1:
                break
            phone.wait_for_timeout(50)
        assert end["scrolled"] >= end["overflow"] - 1, (locale, title, end)
        assert end["name_inside"] and end["name_on_top"], (locale, title, end)
        assert end["end_cue"] == 0 and end["start_cue"] == 1, (locale, title, end)
        box.screenshot(path=str(SHOTS / f"{locale}-{name}-{DECIDING[name][title][0].lower()}-end.png"))


@pytest.mark.parametrize("locale", ["es", "ar"])
def test_the_cost_answer_overflows_a_phone(phone: Page, site_url, built_site, locale):
    """The cheapest-configuration table is wider than a phone, so the test above does scroll it (and a
    page that squeezed it to fit would show its cue never)."""
    t = _translator(built_site, locale)
    phone.goto(site_url + ROOTS[locale] + "cost/")
    box = phone.locator("#calc-cost .guide-scroll").filter(
        has=phone.locator("caption", has_text=t("Cheapest configuration of each GPU"))
    )
    assert box.evaluate(STATE)["overflow"] > 100
    box.scroll_into_view_if_needed()
    box.screenshot(path=str(SHOTS / f"{locale}-cost-gpu-start.png"))
