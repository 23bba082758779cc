"""The site's Content-Security-Policy in a real browser, served as `make serve` serves it: the
calculator's worker gets the policy from its response headers (a <meta> does not reach a worker),
so code running there can neither eval nor reach another origin; the page runs no inline script."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import serve_static
from tests.site.browser import Recorder

pytestmark = pytest.mark.browser

# What a script that got into the worker (or the page) would try; each returns how it ended. It runs
# in a task of its own: DevTools lets code it evaluates directly use eval whatever the policy says.
EVAL = """() => new Promise((resolve) => setTimeout(() => {
    const tried = {};
    try { tried.eval = String(eval("6 * 7")); } catch (e) { tried.eval = e.name; }
    try { tried.function = String(new Function("return 6 * 7")()); } catch (e) { tried.function = e.name; }
    resolve(tried);
}))"""
FETCH = """async (url) => {
    try { return (await fetch(url, {mode: "no-cors"})).type; } catch (e) { return e.name; }
}"""


def _calculator_worker(page: Page, url: str):
    page.goto(url)
    expect(page.locator("#calc-memory .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)
    [worker] = [w for w in page.workers if w.url.endswith("/calculator-worker.js")]
    return worker


def test_the_worker_may_not_eval_or_reach_another_origin(page: Page, site_url, built_site):
    rec = Recorder.attach(page)
    worker = _calculator_worker(page, site_url + "memory/")
    # Pyodide started under the policy (it needs only 'wasm-unsafe-eval'), with nothing refused.
    assert rec.real_errors() == []
    assert worker.evaluate(EVAL) == {"eval": "EvalError", "function": "EvalError"}
    with serve_static(built_site[0]) as other:  # another port: another origin
        assert worker.evaluate(FETCH, other + "assets/stylesheets/guide.css") == "TypeError"
        # The same request to the site's own origin goes through: the refusal is the policy's.
        assert worker.evaluate(FETCH, site_url + "assets/stylesheets/guide.css") == "basic"


def test_the_page_runs_no_inline_script(page: Page, site_url):
    rec = Recorder.attach(page)
    page.goto(site_url + "compare/")
    # The page's start-up file ran (Material's helpers, the "js" class) though no inline script may.
    expect(page.locator("html")).to_have_class("js")
    assert page.evaluate("typeof __md_get") == "function"
    # Nothing the build wrote was refused.
    assert rec.real_errors() == []
    assert page.evaluate(EVAL) == {"eval": "EvalError", "function": "EvalError"}
    # A script injected into the page after the build does not run either.
    page.evaluate("""() => {
        const s = document.createElement("script");
        s.textContent = "window.injected = true";
        document.body.append(s);
    }""")
    assert page.evaluate("window.injected === undefined")
    assert any("inline script" in e for e in rec.errors), rec.errors


def test_materials_snippets_run_from_the_file(page: Page, site_url):
    """Material's inline snippets now run from guide-page.js: the tab the reader chose last
    (content.tabs.link, kept by Material under the site's scope) opens again, and so does a tab the
    URL's fragment names. The first tab is the one open by default."""
    page.goto(site_url)
    qlora = page.locator(".tabbed-set").first.get_by_label("QLoRA", exact=True)
    expect(qlora).not_to_be_checked()
    page.evaluate("""() => localStorage.setItem(__md_scope.pathname + ".__tabs", JSON.stringify(["QLoRA"]))""")
    page.reload()
    expect(qlora).to_be_checked()
    page.evaluate("() => localStorage.clear()")
    lora = page.locator(".tabbed-set").first.get_by_label("LoRA", exact=True)
    page.goto(site_url + "#" + lora.get_attribute("id"))
    page.reload()
    expect(lora).to_be_checked()
