"""The cost page's prose on a phone, in every locale: each computed figure is laid out on a line together
with the words next to it in its sentence, on the side the locale reads from, and no paragraph or list
item starts with punctuation (a marker that starts a Markdown line once became a block of its own)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.conftest import ARTIFACTS, LOCALES, ROOTS
from tests.site.browser import hold_runtime

pytestmark = pytest.mark.browser

PHONE = {"width": 412, "height": 823}
# One sentence per kind of place a marker stands in the Markdown: the start of a line in a paragraph, the
# continuation of a list item, and after a comma.
SHOTS = {
    "plan": 'p:has(bdi[data-figure="cost.default_gpu"])',
    "list": 'li:has(bdi[data-figure="cost.default.bandwidth_share"])',
    "cheapest": 'p:has(bdi[data-figure="cost.cheapest_gpu"])',
}

# For each figure: its text, the block it sits in, and the nearest non-space character on each side in
# reading order (outside the figure), whether that character shares a line with the figure, and on which
# side of the figure it is drawn. A strong character of the page's own script must be drawn before the
# figure (to its right in Arabic) and one after it after (to its left).
LAYOUT = """() => {
  const rtl = document.documentElement.dir === 'rtl';
  const own = rtl ? /[\\u0600-\\u06ff]/ : /[\\p{L}]/u;
  const foreign = rtl ? null : /[\\u0600-\\u06ff]/;
  const overlap = (a, b) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > Math.min(a.height, b.height) / 2;
  return [...document.querySelectorAll('article bdi[data-figure]')].map(fig => {
    const block = fig.closest('p, li, td, th, dd, dt');
    const rects = [...fig.getClientRects()];
    const out = {name: fig.dataset.figure, text: fig.textContent.trim(), block: block ? block.tagName : null,
                 neighbours: []};
    if (!block || !rects.length) return out;
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    const chars = [];  // [node, offset, before the figure?]
    for (let node; (node = walker.nextNode());) {
      if (fig.contains(node) || node.parentElement.closest('bdi[data-figure]')) continue;
      const before = !!(fig.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_PRECEDING);
      [...node.data].forEach((c, i) => { if (c.trim()) chars.push([node, i, before, c]); });
    }
    const picks = [chars.filter(c => c[2]).pop(), chars.find(c => !c[2])].filter(Boolean);
    for (const [node, i, before, c] of picks) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getBoundingClientRect();
      const line = rects.find(f => overlap(f, r));
      let side = null;
      if (line && own.test(c) && !(foreign && foreign.test(c))) {
        const mid = (r.left + r.right) / 2;
        const drawnBefore = rtl ? mid > line.right - 1 : mid < line.left + 1;
        side = drawnBefore === before ? 'ok' : 'wrong';
      }
      out.neighbours.push({char: c, before, sameLine: !!line, side});
    }
    return out;
  });
}"""

STARTS = """() => [...document.querySelectorAll('article p, article li')]
  .map(e => e.innerText.trim()).filter(t => /^[.,;:!?)\\]»、。，．；：！？）،؛؟]/.test(t))"""


@pytest.mark.parametrize("locale", LOCALES)
def test_cost_page_figures_read_inside_their_sentences_on_a_phone(browser, site_url, locale):
    context = browser.new_context(viewport=PHONE)
    hold_runtime(context)  # the page's prose, not its calculator
    page: Page = context.new_page()
    page.goto(site_url + ROOTS[locale] + "cost/")
    page.evaluate("document.fonts.ready.then(() => true)")
    figures = page.evaluate(LAYOUT)
    assert len(figures) == 41  # tests/site/test_cost_page.py counts them against the calculators
    problems = []
    for fig in figures:
        where = f"{fig['name']} ({fig['text']!r})"
        if not fig["text"]:
            problems.append(f"{where} is empty")
        if fig["block"] not in ("P", "LI", "TD", "TH", "DD", "DT"):
            problems.append(f"{where} is not in a paragraph, list item or cell but in {fig['block']}")
            continue
        if not any(n["sameLine"] for n in fig["neighbours"]):
            problems.append(f"{where} shares no line with the words beside it: {fig['neighbours']}")
        problems += [
            f"{where}: {n['char']!r} ({'before' if n['before'] else 'after'} it) is drawn on the wrong side"
            for n in fig["neighbours"]
            if n["side"] == "wrong"
        ]
    assert problems == []
    assert page.evaluate(STARTS) == []
    ARTIFACTS.mkdir(exist_ok=True)
    for name, selector in SHOTS.items():
        block = page.locator(f"article {selector}").first
        # Tables above it are laid out only as they near the screen (content-visibility): let them settle first.
        block.scroll_into_view_if_needed()
        page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        block.screenshot(path=str(ARTIFACTS / f"prose-figures-{name}-{locale}.png"))
    context.close()
