"""The results page and the calculators as a reader in Japanese or Arabic sees them: no English left
in the interface, the run's date in the locale's format and isolated, figures in reading order,
chart text readable at default zoom, a translated file button; screenshots in test-artifacts/."""

from __future__ import annotations

import json
import re

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Page, expect

import calculators
from guidekit import l10n
from guidekit.site import generator_catalogs
from tests.conftest import ARTIFACTS, ROOT, ROOTS
from tests.site.browser import LivePages, hold_runtime

pytestmark = pytest.mark.browser

SCREENS = LivePages.SCREENS  # the shared live pages' desktop window and phone
SAMPLE = ROOT / "results" / "sample-cpu.json"
# Where the interface is generated (the same code in every locale); the prose around it is the
# editors', checked by the page tests.
UI = {"results/": ".guide-results", "memory/": ".guide-calc", "cost/": ".guide-calc"}
# What the browser or an older page showed in English whatever the locale.
KNOWN_LEFTOVERS = (
    "Choose File",
    "No file chosen",
    "entries identical",
    "continued losses",
    "bitwise identical",
    "final trainable parameters",
    "+00:00",
)
MIN_CHART_PX = 12
RENDERER_UNITS = {
    "GB",
    "GB/s",
    "TB",
    "TFLOPS",
}  # guidekit.render._figures and gpuguide.markers.catalog_table add these to figures


def _pack(built_site, locale):
    site, _, _ = built_site
    return json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))


def _english_fragments() -> set[str]:
    """Every UI msgid's runs of three or more words between placeholders: untranslated, one would show."""
    messages = []
    for template in (ROOT / "locales" / "messages.pot", ROOT / "generator/src/guidekit/locales/guidekit.pot"):
        with template.open("rb") as fh:
            messages += list(read_po(fh))
    fragments = set()
    for message in messages:
        for msgid in [message.id] if isinstance(message.id, str) else message.id:
            for part in re.split(r"\{[^}]*\}", msgid or ""):
                part = part.strip(" :;,.()·–—")
                if len(re.findall(r"[A-Za-z]{2,}", part)) >= 3:
                    fragments.add(part)
    return fragments


VISIBLE_TEXT = """(root) => {
    const out = [];
    const walker = document.createTreeWalker(document.querySelector(root) || document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (!node.textContent.trim() || el.closest("script, style, [hidden], [aria-hidden='true']")) continue;
        if (!el.checkVisibility({visibilityProperty: true})) continue;
        out.push(node.textContent.trim());
    }
    return out;
}"""


def _latin_tokens(texts) -> set[str]:
    """Latin words, with their inner dots, slashes and digits ("config.json", "GB/s", "bf16")."""
    return set(re.findall(r"[A-Za-z][A-Za-z0-9_+/-]*(?:\.[A-Za-z0-9_+/-]+)*", "\n".join(texts)))


def _open(page: Page, site_url: str, locale: str, path: str):
    page.goto(site_url + ROOTS[locale] + path)
    if path != "results/":
        name = path.strip("/")
        expect(page.locator(f"#calc-{name} .guide-calc__status")).to_have_attribute(
            "data-state", "ready", timeout=90_000
        )
        _import_sample(page, name)


def _strings(node):
    """Every string (keys too) in parsed JSON."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def latin_allowed(locale: str, pack: dict) -> set[str]:
    """The Latin words a page in `locale` may show: those its own translators wrote (code, product
    names), the catalog's and the model presets' data, the imported file's text, CLDR's unit and
    currency symbols, and the unit symbols the renderer adds. Anything else is English (or Spanish)
    that escaped translation: a hard-coded word, a fallback msgid, a browser's own control text."""
    translated = []
    for po in (ROOT / "locales" / locale / "LC_MESSAGES" / "messages.po", generator_catalogs.catalog_path(locale)):
        with po.open("rb") as fh:
            translated += [m.string for m in read_po(fh) if m.id and m.string]
    data = [
        json.loads((ROOT / "calculators" / "data" / name).read_text(encoding="utf-8"))
        for name in ("catalog.json", "models.json")
    ]
    data += [calculators.describe(name) for name in ("memory", "cost")]  # code labels: q_proj, gate_proj...
    # Every shipped result's text (the results page shows them all; the calculators import the sample).
    shipped = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in (ROOT / "results").glob("*.json")}
    # The results page shortens the revision.
    shown = [*shipped, *((d["environment"]["git_revision"] or "")[:12] for d in shipped.values())]
    sources = [
        *_strings(translated),
        *_strings(data),
        *_strings(list(shipped.values())),
        *shown,
        *_strings(pack["units"]),
        *_strings(pack["numbers"]["currency"]),
    ]
    return _latin_tokens(sources) | RENDERER_UNITS


@pytest.fixture(scope="module")
def allowed(built_site):
    return {locale: latin_allowed(locale, _pack(built_site, locale)) for locale in ("ja", "ar")}


def _import_sample(page: Page, name: str):
    """The import panel too: the picked file's comparison, charts and the chosen file's name."""
    page.locator(f"#calc-{name}-import").set_input_files(str(SAMPLE))
    expect(page.locator(f"#calc-{name} .guide-calc__import-result")).to_have_attribute(
        "data-ok", "true", timeout=60_000
    )


@pytest.fixture(scope="module")
def opened(browser, site_url, live_pages):
    """(locale, screen, page) with the sample imported, for the tests here that only read it. The
    calculators are the shared live pages (a runtime start costs about 8 s of the browser's CPU);
    the results page, which starts nothing, is opened once per locale and screen."""
    pages = {}

    def get(locale: str, screen: str, path: str) -> Page:
        if path != "results/":
            page = live_pages.get(ROOTS[locale], path.strip("/"), screen)
            _import_sample(page, path.strip("/"))
            return page
        if (locale, screen) not in pages:
            page = browser.new_context(**SCREENS[screen]).new_page()
            _open(page, site_url, locale, path)
            pages[locale, screen] = page
        return pages[locale, screen]

    yield get
    for page in pages.values():
        page.context.close()


@pytest.mark.parametrize("path", list(UI))
@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("locale", ("ar", "ja"))
def test_interface_has_no_english_left(opened, allowed, locale, path, screen):
    page = opened(locale, screen, path)
    texts = page.evaluate(VISIBLE_TEXT, UI[path])
    whole = "\n".join(page.evaluate(VISIBLE_TEXT, "body"))
    assert not [w for w in KNOWN_LEFTOVERS if w in whole]
    assert not [f for f in _english_fragments() if f in whole]
    stray = _latin_tokens(texts) - allowed[locale]
    assert not stray, stray
    ARTIFACTS.mkdir(exist_ok=True)
    name = path.strip("/")
    page.screenshot(path=str(ARTIFACTS / f"l10n-{name}-{locale}-{screen}.png"), full_page=True, scale="css")


@pytest.mark.parametrize("screen", list(SCREENS))
def test_spanish_results_page_screenshots(browser, site_url, screen):
    context = browser.new_context(**SCREENS[screen])
    page = context.new_page()
    _open(page, site_url, "es", "results/")
    whole = "\n".join(page.evaluate(VISIBLE_TEXT, ".guide-results"))
    assert not [w for w in KNOWN_LEFTOVERS if w in whole]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"l10n-results-es-{screen}.png"), full_page=True, scale="css")
    context.close()


def test_arabic_date_is_in_arabic_format_and_isolated(page: Page, site_url):
    _open(page, site_url, "ar", "results/")
    stamp = page.locator(".guide-results__file time").first
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", stamp.get_attribute("datetime"))
    shown = stamp.locator("bdi")
    expect(shown).to_have_attribute("dir", "rtl")
    assert shown.evaluate("el => getComputedStyle(el).unicodeBidi") == "isolate"
    # CLDR's Arabic medium date and short time: 01‏/12‏/2026، 3:43 ص
    assert re.match(r"\d{2}\u200f/\d{2}\u200f/\d{4}، \d{1,2}:\d{2} [صم]", shown.inner_text()), shown.inner_text()


# A plan of several terms ("1 day + 3 × 1 hour on demand") is a list, not one figure: a term of one is its
# label alone, with no numeral in Arabic («يوم واحد»), so it is left out.
UNIT_ORDER = """(root) => [...document.querySelectorAll(root + " .guide-num")]
    .filter((el) => /\\d/.test(el.textContent) && /[^\\d\\s.,%+\\-−×·/\\u200e\\u200f\\u061c]/.test(el.textContent))
    .filter((el) => !el.textContent.includes(" + "))
    .map((el) => {
        const text = el.firstChild;
        const digits = text.textContent.search(/\\d/);
        const unit = text.textContent.search(/[^\\d\\s.,+\\-−\\u200e\\u200f\\u061c]/);  // bidi marks are not the unit
        const rect = (start) => { const r = document.createRange(); r.setStart(text, start); r.setEnd(text, start + 1);
                                  return r.getBoundingClientRect(); };
        const [number, sign] = [rect(digits), rect(unit)];
        const style = getComputedStyle(el);
        // Read in the figure's own direction: the number before its unit on one line (left of it
        // left to right, right of it right to left), or on the line above it.
        const rtl = style.direction === "rtl";
        const numberAhead = Math.abs(number.top - sign.top) < number.height / 2
            ? (rtl ? number.left > sign.left : number.left < sign.left) : number.top < sign.top;
        return {text: text.textContent, direction: style.direction, bidi: style.unicodeBidi,
                // An Arabic unit, or CLDR's right-to-left mark before an amount in US$, sets right to left.
                rightToLeft: /[\u0600-\u06ff\u200f]/.test(text.textContent), numberFirst: digits < unit, numberAhead};
    })"""


@pytest.mark.parametrize(
    ("path", "root"),
    [
        ("memory/", ".guide-calc__result"),
        ("cost/", ".guide-calc__result"),
        ("compare/", ".guide-catalog td:not(:nth-child(6))"),
    ],
)  # not the interconnect's name
def test_arabic_figures_read_number_then_unit_in_their_own_direction(page: Page, site_url, path, root):
    """Each figure is isolated in its own direction («21.5 س» and CLDR's «‏96.80 US$» right to left,
    "35.7 GB" left to right) and reads number first in it."""
    hold_runtime(page)  # the figures as built
    page.goto(site_url + "ar/" + path)
    figures = page.evaluate(UNIT_ORDER, root)
    assert figures, "no figure with a unit"
    wrong = [
        f
        for f in figures
        if f["bidi"] != "isolate"
        or f["direction"] != ("rtl" if f["rightToLeft"] else "ltr")
        or not f["numberFirst"]
        or not f["numberAhead"]
    ]
    assert not wrong, wrong


@pytest.mark.parametrize("path", ["results/", "memory/"])
@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("locale", list(ROOTS))
def test_chart_text_is_readable_at_default_zoom(opened, locale, screen, path):
    page = opened(locale, screen, path)
    sizes = page.evaluate("""() => [...document.querySelectorAll('svg.guide-chart text')].map((t) =>
        parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a)""")
    assert sizes and min(sizes) >= MIN_CHART_PX, (min(sizes or [0]), len(sizes))


@pytest.mark.parametrize("locale", list(ROOTS))
def test_the_file_button_speaks_the_page_language(live_pages, built_site, locale):
    t = l10n.Translator(_pack(built_site, locale))
    page = live_pages.get(ROOTS[locale], "memory")
    picker = page.locator("#calc-memory-import")
    button = page.locator("#calc-memory-import-button")
    shown = page.locator("#calc-memory-import-name")
    expect(button).to_have_text(t("Choose a file…"))
    expect(shown).to_have_text(t("No file chosen"))
    # The native control (which says "Choose File" in the browser's language) is out of sight.
    box = picker.bounding_box()
    assert box["width"] <= 1 and box["height"] <= 1
    # ...but it keeps the keyboard: Tab reaches it, and its name is the translated box title and button.
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "calc-memory-import":
            break
    assert page.evaluate("document.activeElement.id") == "calc-memory-import"
    assert button.evaluate("el => getComputedStyle(el).outlineStyle") != "none"  # the focus shows on the button
    label = picker.evaluate(
        "el => el.getAttribute('aria-labelledby').split(' ').map((id) => "
        "document.getElementById(id).textContent.trim()).join(' ')"
    )
    assert label == t("Compare with a pilot result file, or take a model's dimensions from its config.json") + " " + t(
        "Choose a file…"
    )
    picker.set_input_files(str(SAMPLE))
    expect(shown).to_have_text(t("Chosen: {name}", name="sample-cpu.json"))
    expect(shown.locator("bdi")).to_have_text("sample-cpu.json")


@pytest.mark.parametrize("locale", ("ar", "ja"))
def test_a_table_that_fits_shows_no_scroll_cue(opened, locale):
    """The runs table, with its section headings across the table, fits a desktop column: it neither
    scrolls nor shows the fade that says more lies beyond the edge (a heading's shadow had made it
    scroll by 8 px)."""
    page = opened(locale, "desktop", "results/")
    boxes = page.evaluate("""[...document.querySelectorAll('.guide-results .guide-scroll')].map((box) =>
        [box.scrollWidth - box.clientWidth, box.querySelector('table').getBoundingClientRect().width - box.clientWidth,
         Number(getComputedStyle(box, '::after').opacity)])""")
    assert boxes
    for overflow, table_past, cue in boxes:
        if table_past <= 0.5:  # the table itself fits
            assert overflow <= 0 and cue == 0, boxes
