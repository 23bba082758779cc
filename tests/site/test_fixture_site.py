"""A small fixture site: a third calculator from a fixture package (embedded, pre-computed and live
in the browser with no change to the plugin, the worker or the templates; only the fixture site's
config names it), and a page that exists only in Spanish (the reader's banner)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from guidekit.l10n import Translator
from guidekit.site.locale_pack import locale_pack
from tests.conftest import ROOT, _once_per_run, serve_static

pytestmark = pytest.mark.browser

FIXTURES = ROOT / "tests" / "fixtures"


def _build_toy(target: Path) -> list[str]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(FIXTURES / "toycalc"))
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(target)],
        cwd=FIXTURES / "toysite",
        env=env,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    return [str(target)]


@pytest.fixture(scope="session")
def toy_built(tmp_path_factory, worker_id) -> Path:
    """The toy site, built once per run: its tests run in three locales' groups, so in either worker."""
    return Path(_once_per_run(tmp_path_factory, worker_id, "toysite", _build_toy)[0])


@pytest.fixture(scope="module")
def toy_site(toy_built):
    with serve_static(toy_built) as base:
        yield toy_built, base


def test_the_toys_browser_wheels_hold_none_of_this_guides_code(toy_built):
    """Another guide's readers download the generator's browser layers and its own calculator, no GPU code."""
    names = [n for wheel in toy_built.glob("assets/calc/*/*.whl") for n in zipfile.ZipFile(wheel).namelist()]
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"guidekit", "toycalc"}, tops
    assert not [n for n in names if n.startswith(("guidekit/site/", "guidekit/i18n/", "guidekit/runtime/"))]


def test_toy_is_prerendered(toy_site):
    site, _ = toy_site
    html = (site / "index.html").read_text(encoding="utf-8")
    assert 'data-guide-calc="toy"' in html
    assert ">10</bdi>" in html  # 2.5 × 4, computed at build time
    assert 'data-modules="toycalc"' in html  # the generator imports no calculators of its own
    assert "guide-calc__units" not in html and "US dollars" not in html  # no footnote of this guide's


def test_toy_runs_live_in_the_browser(page: Page, toy_site):
    _, base = toy_site
    page.goto(base + "ar/")
    expect(page.locator("#calc-toy .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)
    page.locator("#calc-toy-width").fill("3")
    page.locator("#calc-toy-shape").select_option("triangle")
    expect(page.locator("#calc-toy .guide-metric--headline dd")).to_have_text("6", timeout=30_000)
    response = page.evaluate("document.getElementById('calc-toy').guideResponse")
    assert response["result"]["area"] == 6.0


@pytest.mark.parametrize("locale", ["ja", "ar"])
def test_fallback_page_tells_the_reader(page: Page, toy_site, locale):
    _, base = toy_site
    title = Translator(locale_pack(locale, ROOT / "locales"))("Not translated yet")
    assert title != "Not translated yet", "the banner's title is not translated"
    page.goto(base + f"{locale}/untranslated/")
    banner = page.locator(".guide-translation")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-translation-state", "fallback")
    expect(banner.locator(".admonition-title")).to_have_text(title)
    link = banner.locator("a")
    expect(link).to_have_attribute("hreflang", "es")
    link.click()
    assert page.url == base + "untranslated/"
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator(".guide-translation")).to_have_count(0)
