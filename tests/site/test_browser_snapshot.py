"""The calculators' runtime restored from the build's memory snapshot (issue 51 item 6), and started the
plain way when the snapshot cannot be had: the same answer either way."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from guidekit.runtime import snapshot

pytestmark = pytest.mark.browser

FALLBACK = "Calculator snapshot not restored"
ANSWERED = """() => {
    const root = document.getElementById("calc-memory");
    return root.dataset.answer === "current" && root.guideResponse != null && String(root.guideInputs?.seq_len) === "8192";
}"""


def _answer(browser, site_url: str, block_snapshot: bool) -> tuple[str, list[str], list[str]]:
    """The worker's answer for an address's inputs, the snapshot requests and the console's lines."""
    context = browser.new_context(service_workers="block")  # every request meets the route
    asked, notes = [], []
    if block_snapshot:
        context.route(f"**/*{snapshot.SUFFIX}*", lambda route: route.abort())
    page = context.new_page()
    page.on("request", lambda r: asked.append(r.url) if snapshot.SUFFIX in r.url else None)
    page.on("console", lambda m: notes.append(m.text))
    page.goto(site_url + "memory/?seq_len=8192")
    status = page.locator("#calc-memory .guide-calc__status")
    expect(status).to_have_attribute("data-state", "ready", timeout=90_000)
    page.wait_for_function(ANSWERED, timeout=30_000)
    result = page.evaluate("() => JSON.stringify(document.getElementById('calc-memory').guideResponse.result)")
    sentence = page.locator("#calc-memory .guide-calc__live").inner_text()
    context.close()
    return f"{sentence}\n{result}", asked, notes


def test_the_page_goes_live_from_the_snapshot_and_falls_back_without_it(browser, site_url, built_site):
    site = built_site[0]
    html = (site / "memory" / "index.html").read_text(encoding="utf-8")
    named = re.search(r'data-snapshot="([^"]+)"', html)
    assert named and named.group(1).endswith(snapshot.SUFFIX), "the build made no snapshot (is Node.js installed?)"
    assert list((site / "assets" / "calc").glob(f"*/runtime-*{snapshot.SUFFIX}"))

    restored, asked, notes = _answer(browser, site_url, block_snapshot=False)
    assert asked and not any(FALLBACK in note for note in notes), notes
    started, asked, notes = _answer(browser, site_url, block_snapshot=True)
    assert asked and any(FALLBACK in note for note in notes), notes
    assert restored == started  # the same answer from either start
    assert "GB" in restored


def test_without_node_the_build_says_so_and_makes_none(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot.shutil, "which", lambda name: None)
    made, line, failed = snapshot.make_snapshot(tmp_path, [], ["guidekit.render.worker"], tmp_path)
    assert made is None and not failed and "Node.js is not installed" in line
