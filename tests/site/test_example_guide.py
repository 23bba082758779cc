"""The second guide, `examples/heat-pump`, as its author builds it: the generator's wheel and the example
installed by pip in a clean virtual environment (no checkout on the path), built under --strict, then
read in every locale in Chromium: the answer in the page before any script, live, offline after one
visit, no console error and nothing from another origin, Hebrew right to left (issue 50 item 6)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from guidekit.l10n import Translator
from guidekit.site.locale_pack import locale_pack
from tests.conftest import ARTIFACTS, ROOT, _once_per_run, serve_static
from tests.site.browser import PHONE, Recorder, hold_runtime
from tests.site.test_browser_offline import _controlled, _wait_for_runtime_cached

pytestmark = pytest.mark.browser

EXAMPLE = ROOT / "examples" / "heat-pump"
LOCALES = {"es": "", "de": "de/", "he": "he/"}
# The default answer (140 m², average insulation, 20 °C inside, -10 °C outside), as each locale writes it.
DEFAULT_LOAD = {"es": "6,3\u00a0kW", "de": "6,3\u00a0kW", "he": "6.3\u00a0kW"}
STATUS = "#calc-heat-pump .guide-calc__status"


def _run(*args, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, " ".join(map(str, args)) + "\n" + result.stdout[-3000:] + result.stderr[-3000:]
    return result


def _build_example(folder: Path, wheel: Path) -> list[str]:
    """A fresh venv with guidekit's wheel and the example installed, and the example's build."""
    venv = folder / "venv"
    _run(sys.executable, "-m", "venv", str(venv))
    python = str(venv / "bin" / "python")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    # From a copy: pip builds in the tree it is given, and would leave build/ in the example.
    source = shutil.copytree(EXAMPLE, folder / "example", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    _run(python, "-m", "pip", "install", "-q", f"{wheel}[site]", str(source), env=env)
    # -I: neither this checkout nor the working folder on the path; guidekit comes from the venv.
    where = _run(python, "-I", "-c", "import guidekit, heatpump; print(guidekit.__file__, heatpump.__file__)", env=env)
    assert all(path.startswith(str(venv)) for path in where.stdout.split()), where.stdout
    site = folder / "site"
    build = _run(python, "-I", "-m", "mkdocs", "build", "--strict", "-d", str(site), cwd=EXAMPLE, env=env)
    return [str(site), build.stderr]


@pytest.fixture(scope="session")
def example_built(tmp_path_factory, worker_id, guidekit_wheel) -> Path:
    def build(folder: Path) -> list[str]:
        return _build_example(folder, guidekit_wheel)

    return Path(_once_per_run(tmp_path_factory, worker_id, "example", build)[0])


@pytest.fixture(scope="module")
def example_url(example_built):
    with serve_static(example_built) as base:
        yield base


def test_the_examples_browser_wheels_hold_none_of_the_gpu_guide(example_built):
    names = [n for wheel in example_built.glob("assets/calc/*/*.whl") for n in zipfile.ZipFile(wheel).namelist()]
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"guidekit", "heatpump"}, tops
    # What the installed package carries beside its code reached the site: the runtime, sw.js, the theme.
    assert (example_built / "sw.js").is_file() and (example_built / "assets/javascripts/calculator.js").is_file()


def test_the_generators_strings_come_from_the_installed_package(example_built):
    """The example's catalogs translate only its own strings; "Result" reads in Hebrew all the same."""
    hebrew = (EXAMPLE / "locales" / "he" / "LC_MESSAGES" / "messages.po").read_text(encoding="utf-8")
    assert 'msgid "Result"' not in hebrew
    pack = json.loads((example_built / "assets" / "calc" / "pack-he.json").read_text(encoding="utf-8"))
    assert pack["messages"]["Result"] == Translator(locale_pack("he", EXAMPLE / "locales"))("Result") != "Result"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_answer_is_in_the_page_without_script(browser: Browser, example_url, locale):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(example_url + LOCALES[locale])
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if locale == "he" else "ltr")
    expect(page.locator("#calc-heat-pump .guide-metric--headline dd")).to_have_text(DEFAULT_LOAD[locale])
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_on_a_phone_the_page_fits_its_width(browser: Browser, example_url, locale):
    """The page as built (the runtime held back: layout only), at a phone's width, screenshot kept."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    hold_runtime(page)
    page.goto(example_url + LOCALES[locale])
    expect(page.locator("#calc-heat-pump .guide-metric--headline dd")).to_have_text(DEFAULT_LOAD[locale])
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"example-heat-pump-{locale}-phone.png"), full_page=True)
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_live_silent_and_right_to_left(browser: Browser, example_built, example_url, locale):
    context = browser.new_context(viewport={"width": 1350, "height": 900})
    page = context.new_page()
    rec = Recorder.attach(page)
    page.goto(example_url + LOCALES[locale])
    expect(page.locator(STATUS)).to_have_attribute("data-state", "ready", timeout=90_000)
    field = page.locator("#calc-heat-pump-design_outdoor")
    expect(field).to_have_attribute("dir", "ltr")  # "-20" stays "-20" in Hebrew, not "20-"
    field.fill("-20")
    expect(page.locator("#calc-heat-pump .guide-metric--headline dd")).to_contain_text("8", timeout=30_000)
    response = page.evaluate("document.getElementById('calc-heat-pump').guideResponse")
    assert response["result"]["design_load_kw"] == pytest.approx(8.4)  # 140 m² x 1.5 W/(m²·K) x 40 K
    # Each figure in the answer is one isolated left-to-right run (LRI … PDI), so that inside a Hebrew
    # sentence "-20 °C" is not drawn "C° 20-".
    verdict = page.locator("#calc-heat-pump .guide-verdict").first.inner_text()
    assert re.search("\u2066-20[ \u00a0]°C\u2069", verdict), verdict
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"example-heat-pump-{locale}-desktop.png"), full_page=True)
    # A rule of the guide's own, in the reader's language.
    page.locator("#calc-heat-pump-indoor").fill("10")
    field.fill("12")
    pack = json.loads((example_built / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))
    rule = pack["messages"]["The indoor temperature must be above the design outdoor temperature."]
    expect(page.locator("#calc-heat-pump-indoor-error")).to_have_text(rule, timeout=30_000)
    assert rec.real_errors() == [] and rec.foreign_requests(example_url) == []
    context.close()


def test_it_works_offline_after_one_visit(browser: Browser, example_url):
    context = browser.new_context(service_workers="allow")
    page = context.new_page()
    page.goto(example_url + "he/")
    page.wait_for_selector(f'{STATUS}[data-state="ready"]', timeout=90_000)
    _controlled(page)
    _wait_for_runtime_cached(page)
    context.set_offline(True)
    page.goto(example_url + "he/?design_outdoor=-20")
    expect(page.locator(STATUS)).to_have_attribute("data-state", "ready", timeout=90_000)
    live = "() => document.getElementById('calc-heat-pump').guideResponse?.inputs.design_outdoor === -20"
    page.wait_for_function(live, timeout=60_000)
    page.goto(example_url + "de/method/")  # a page never visited, cached on install
    expect(page.locator("article h1")).to_be_visible()
    context.close()
