"""The calculators tell the truth whatever happens around them, in a real browser: a URL fragment
naming one of their inputs, a worker that dies, hangs or cannot load its WebAssembly, and address keys
that are hostile, repeated or not numbers at all."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

import calculators
from guidekit import l10n, render
from tests.conftest import ARTIFACTS, LOCALES, ROOTS
from tests.site.browser import Recorder, axe_violations

pytestmark = pytest.mark.browser

# The form as the reader sees it, read the way the calculators' boundary takes it (test code: not the
# page's own reader, which is what is under test).
FORM_AS_SHOWN = """name => {
  const values = {};
  for (const field of document.querySelectorAll(`#calc-${name} [data-field]`)) {
    const boxes = [...field.querySelectorAll('input[type="checkbox"]')];
    if (field.classList.contains("guide-field--multichoice")) values[field.dataset.field] = boxes.filter((b) => b.checked).map((b) => b.value);
    else if (field.classList.contains("guide-field--bool")) values[field.dataset.field] = boxes[0].checked ? "true" : "false";
    else values[field.dataset.field] = field.querySelector("input, select").value;
  }
  return values;
}"""
# The answer the page shows once live and settled: no request on its way.
SETTLED = """name => {
  const root = document.getElementById(`calc-${name}`);
  return root.querySelector(".guide-calc__status").dataset.state === "ready" && root.dataset.answer === "current";
}"""


def _ascii(form: dict, name: str, pack: dict) -> dict:
    """The number fields as the calculators read them: a field shows "4.096" or "0,1" in Spanish."""
    fmt = l10n.NumberFormat(pack)
    numbers = {i["name"] for i in calculators.describe(name)["inputs"] if i["kind"] in ("int", "float")}
    return {k: v.replace(fmt.group, "").replace(fmt.decimal, ".") if k in numbers else v for k, v in form.items()}


def _pack(built_site, locale="es") -> dict:
    site, _, _ = built_site
    return json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))


def _status(page: Page, name: str = "memory"):
    return page.locator(f"#calc-{name} .guide-calc__status")


def _calculator_worker(workers: list):
    """The calculator's worker (Material's bundle may start its search worker beside it)."""
    return [w for w in workers if "calculator-worker" in w.url][-1]


def _query(page: Page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query, keep_blank_values=True).items()}


def _check_agreement(page: Page, name: str, pack: dict, control: str) -> dict:
    """The headline is the answer for the form as shown, and the address asks for the same inputs."""
    form = _ascii(page.evaluate(FORM_AS_SHOWN, name), name, pack)
    root = page.locator(f"#calc-{name}")
    assert root.get_attribute("data-answer") == "current", control
    headline = root.locator(".guide-calc__headline").inner_text()  # the verdict's short form
    assert headline == render.render(name, form, pack)["headline"], (control, form)
    assert root.locator(".guide-calc__live").inner_text() == render.render(name, form, pack)["summary"], control
    address = _query(page)
    assert calculators.compute(name, address)["inputs"] == calculators.compute(name, form)["inputs"], (control, address)
    if calculators.compute(name, form)["inputs"] == calculators.compute(name, {})["inputs"]:  # nothing changed
        assert headline == render.render(name, {}, pack)["headline"] and address == {}, (control, address)
    return form


@pytest.mark.parametrize("name", ["memory", "cost"])
def test_every_input_named_by_the_fragment_leaves_form_headline_and_address_agreeing(
    browser, site_url, built_site, name
):
    """`/memory/#calc-memory-gradient_checkpointing` unticked the box before the calculator read its
    defaults (Material's tab snippet set `checked` on whatever the fragment named): the headline showed
    the defaults' answer as live while the form asked for another, and the address left the box out.

    Each of the page's boxes and radio buttons is named once: what the snippet sets is `checked`, which
    no other control has (a field or a list named by the fragment is left as it was; the first control
    named is a field, to show it). A calculator that finds its form as the build rendered it asks the
    runtime nothing, so going live changes none of what is checked: those pages are checked as soon as
    the calculator has read its form (and the first of them once live as well); a page whose form
    differs is checked once the live answer for it has come."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    url = site_url + f"{name}/"
    page.goto(url)
    ids = page.locator(f"#calc-{name}").evaluate(
        """root => [root.querySelector('input:not([type=checkbox]):not([type=radio])[id]'),
                    ...root.querySelectorAll('input[type=checkbox][id], input[type=radio][id]')].map((e) => e.id)"""
    )
    assert len(ids) > 8, ids
    pack = _pack(built_site)
    status = _status(page, name)
    for n, control in enumerate(ids):
        page.goto("about:blank")  # a new document each time: a fragment alone would not reload the page
        page.goto(f"{url}#{control}")
        expect(status).not_to_have_attribute("data-state", "static")  # the calculator has read its form
        if n == 0 or status.get_attribute("data-state") != "loading":  # "stale": a live answer is asked for
            page.wait_for_function(SETTLED, arg=name, timeout=90_000)
        _check_agreement(page, name, pack, control)
    context.close()


def test_a_control_changed_by_another_script_is_computed_not_taken_for_a_default(page: Page, site_url, built_site):
    """The calculator's defaults are the ones the build rendered, whatever another script (or the
    browser's form restoration) did to the controls before it ran: a box unticked that early is an
    input like any other, computed once live and written to the address."""
    page.add_init_script("""document.addEventListener("readystatechange", () => {
        // "interactive" comes before the deferred scripts run, calculator.js among them.
        if (document.readyState === "interactive") document.getElementById("calc-memory-gradient_checkpointing").checked = false;
    });""")
    page.goto(site_url + "memory/")
    page.wait_for_function(SETTLED, arg="memory", timeout=90_000)
    form = _check_agreement(page, "memory", _pack(built_site), "gradient_checkpointing")
    assert form["gradient_checkpointing"] == "false"
    assert _query(page) == {"gradient_checkpointing": "false"}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_worker_that_hangs_is_noticed_within_seconds_and_a_restart_brings_the_answer(live_pages, built_site, locale):
    page = live_pages.get(ROOTS[locale], "memory")  # a shared live page: the restart leaves it live again
    new_workers = []

    def started(worker):
        new_workers.append(worker)

    page.on("worker", started)
    root, status = page.locator("#calc-memory"), _status(page)
    # The worker's thread busy for good, as a stuck computation would leave it: nothing in the
    # shipped code can do this, so the test does it from outside.
    hung = _calculator_worker(page.workers)
    hung.evaluate("() => { setTimeout(() => { for (;;) {} }, 0); }")
    shown = root.locator(".guide-calc__live").inner_text()
    # A field in a closed fold, set in the answer that stops (as a shared link sets "More options"):
    # the restart sends it again, so it comes into view (attack finding 6: the fields to fix stayed folded).
    folded = root.locator("details:has(#calc-memory-extra_temp_gb)")
    expect(folded).not_to_have_attribute("open", "")
    page.locator("#calc-memory-extra_temp_gb").evaluate(
        "e => { e.value = '2'; e.dispatchEvent(new Event('input', { bubbles: true })); }"
    )
    page.locator("#calc-memory-micro_batch").fill("7")
    hung_at = time.monotonic()
    expect(status).to_have_attribute("data-state", "stopped", timeout=20_000)
    print(f"stopped state after {time.monotonic() - hung_at:.1f} s")
    text = root.locator(".guide-calc__status-text")
    expect(text).to_have_text(text.get_attribute("data-stopped"))
    # The answer it left unfinished stays, marked out of date for the eye and for screen readers.
    expect(root).to_have_attribute("data-answer", "stale")
    headline, note = root.locator(".guide-calc__headline"), root.locator(".guide-calc__stale")
    expect(note).to_be_visible()
    expect(root.locator(".guide-calc__output")).to_have_attribute("aria-describedby", note.get_attribute("id"))
    assert page.locator("#calc-memory .guide-calc__live").inner_text() == shown
    label = headline.evaluate("h => getComputedStyle(h, '::before').content")
    assert label == json.dumps(headline.get_attribute("data-stale-label"), ensure_ascii=False), label
    restart = root.locator(".guide-calc__restart")
    expect(restart).to_be_visible()
    assert axe_violations(page) == []
    ARTIFACTS.mkdir(exist_ok=True)
    root.locator(".guide-calc__output").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"calc-stopped-{locale}-desktop.png"))
    page.set_viewport_size({"width": 412, "height": 823})
    page.locator("#calc-memory-micro_batch").scroll_into_view_if_needed()
    expect(headline).to_be_visible()  # on a phone the headline, kept in view, carries the mark
    page.screenshot(path=str(ARTIFACTS / f"calc-stopped-{locale}-412.png"))
    restart.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"calc-stopped-{locale}-412-restart.png"))

    folded.evaluate("d => { d.open = false; }")  # as a reader who folded it again would leave it
    restart.click()  # a fresh worker, which answers the form as it stands
    expect(folded).to_have_attribute("open", "")
    page.wait_for_function(SETTLED, arg="memory", timeout=90_000)
    page.remove_listener("worker", started)
    assert len([w for w in new_workers if "calculator-worker" in w.url]) == 1  # one restart, one new worker
    assert _calculator_worker(page.workers) is not hung
    sent = page.evaluate("() => document.getElementById('calc-memory').guideInputs")
    assert sent["micro_batch"] == "7"
    assert headline.inner_text() == render.render("memory", sent, _pack(built_site, locale))["headline"]
    expect(note).to_be_hidden()
    expect(restart).to_be_hidden()
    expect(root.locator(".guide-calc__output")).not_to_have_attribute("aria-describedby", note.get_attribute("id"))


@pytest.mark.parametrize("end", ["close", "error"])
def test_a_worker_that_dies_is_noticed_and_a_file_being_read_is_answered(live_pages, tmp_path, end):
    """`close`: the worker ends without a word (as when the browser ends it), found out by the file
    sent to it; `error`: an exception it did not catch, reported by the browser at once."""
    page = live_pages.get(ROOTS["es"], "memory")  # shared: the restart below leaves it live again
    status, panel = _status(page), page.locator("#calc-memory .guide-calc__import-result")
    worker = _calculator_worker(page.workers)
    if end == "close":
        worker.evaluate("() => { setTimeout(() => self.close(), 0); }")
    else:
        worker.evaluate("() => { setTimeout(() => { throw new Error('boom'); }, 0); }")
        expect(status).to_have_attribute("data-state", "stopped", timeout=5_000)  # with no request waiting
    result = tmp_path / "result.json"
    result.write_text("{}", encoding="utf-8")
    page.locator("#calc-memory-import").set_input_files(str(result))
    expect(panel).to_have_text(panel.get_attribute("data-stopped"), timeout=20_000)
    expect(panel).to_have_attribute("data-ok", "false")
    expect(status).to_have_attribute("data-state", "stopped")
    page.locator("#calc-memory .guide-calc__restart").click()
    expect(status).to_have_attribute("data-state", "ready", timeout=90_000)
    # The same file, chosen again as the message asks, is read by the fresh worker.
    page.locator("#calc-memory-import").set_input_files(str(result))
    expect(panel).not_to_have_text(panel.get_attribute("data-stopped"), timeout=30_000)
    expect(panel.locator(".guide-import--invalid")).to_be_visible()  # "{}" is no pilot result: Python said so


@pytest.mark.parametrize("how", ["abort", "404"])
def test_a_missing_wasm_is_reported_within_seconds(browser, site_url, how):
    """Pyodide reports a WebAssembly it could not instantiate at once (a console warning) but never
    settles loadPyodide: the page waited for its 60 s stall watchdog, twice."""
    context = browser.new_context(service_workers="block")
    if how == "abort":
        context.route("**/pyodide.asm.wasm*", lambda route: route.abort())
    else:
        context.route("**/pyodide.asm.wasm*", lambda route: route.fulfill(status=404, body="Not Found"))
    page = context.new_page()
    rec = Recorder.attach(page)
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    started = time.monotonic()
    page.goto(site_url + "memory/")
    expect(_status(page)).to_have_attribute("data-state", "failed", timeout=20_000)
    print(f"failed state after {time.monotonic() - started:.1f} s")
    starts = [w for w in warnings if "Calculator runtime: start" in w]
    assert len(starts) == 2 and all("pyodide.asm.wasm" in w for w in starts), starts  # Pyodide's own error
    assert rec.foreign_requests(site_url) == []
    context.close()


def test_prototype_named_keys_are_ignored_like_any_unknown_key(page: Page, site_url):
    page.goto(site_url + "memory/?constructor=1&__proto__=1&toString=x&hasOwnProperty=2&micro_batch=8")
    page.wait_for_function(SETTLED, arg="memory", timeout=90_000)
    response = page.evaluate("() => document.getElementById('calc-memory').guideResponse")
    assert response["ok"] and response["inputs"]["micro_batch"] == 8
    expect(page.locator("#calc-memory .guide-calc__result")).to_have_attribute("data-ok", "true")
    expect(page.locator("#calc-memory .guide-field__error:visible")).to_have_count(0)
    assert _query(page) == {"micro_batch": "8"}


def test_a_repeated_multichoice_key_adds_to_the_list(page: Page, site_url):
    page.goto(site_url + "memory/?lora_targets=q&lora_targets=k")
    page.wait_for_function(SETTLED, arg="memory", timeout=90_000)
    response = page.evaluate("() => document.getElementById('calc-memory').guideResponse")
    assert response["ok"] and response["inputs"]["lora_targets"] == ["q", "k"]
    checked = page.locator('#calc-memory [data-field="lora_targets"] input:checked')
    assert [box.get_attribute("value") for box in checked.all()] == ["q", "k"]
    assert _query(page) == {"lora_targets": "q,k"}


# Numbers as Python's int() reads them and JavaScript's Number() or a number control would not (or
# would otherwise), one per integer field, all in one address: each is judged on its own field.
RAW_NUMBERS = {"micro_batch": "1_6", "seq_len": "+8", "gpus": "١٢", "lora_rank": "0x4"}


def test_a_number_python_refuses_shows_its_error_and_stays_in_the_address_as_written(page: Page, site_url, built_site):
    """What Python refuses is reported on the field and kept in the address as written, never
    replaced by what the number control or Number() makes of it ("0x4" is 4 to JavaScript). What
    Python accepts fills the field with Python's value."""
    query = "&".join(f"{field}={raw}" for field, raw in RAW_NUMBERS.items()).replace("+", "%2B")
    page.goto(site_url + "memory/?" + query)
    page.wait_for_function(SETTLED, arg="memory", timeout=90_000)
    expected = render.render("memory", RAW_NUMBERS, _pack(built_site))
    refused = {e["field"]: e["message"] for e in expected["errors"]}
    assert refused and set(refused) < set(RAW_NUMBERS)  # both kinds are in the address
    sent = page.evaluate("() => document.getElementById('calc-memory').guideInputs")
    defaults = calculators.compute("memory", {})["inputs"]
    address = {}
    for field, raw in RAW_NUMBERS.items():
        assert sent[field] == raw, field
        error, control = page.locator(f"#calc-memory-{field}-error"), page.locator(f"#calc-memory-{field}")
        if field in refused:
            expect(error).to_have_text(refused[field])
            expect(control).to_have_attribute("aria-invalid", "true")
            address[field] = raw
        else:
            value = calculators.compute("memory", {field: raw})["inputs"][field]
            expect(error).to_be_hidden()
            expect(control).to_have_value(str(value))
            if value != defaults[field]:
                address[field] = str(value)
    expect(page.locator("#calc-memory .guide-calc__result")).to_have_attribute("data-ok", "false")
    assert _query(page) == address


def test_an_edit_then_a_reload_within_the_debounce_keeps_the_edit(page: Page, site_url):
    """Attack finding 21: typing 16 and reloading at once brought the page back with 4 and no query: the
    address followed the answer, after the debounce, and the fields opt out of form restoration."""
    page.goto(site_url + "memory/")
    expect(_status(page)).not_to_have_attribute("data-state", "static")  # the calculator has read its form
    page.locator("#calc-memory-micro_batch").fill("16")
    # At once, before any answer: the address the reload below asks for.
    assert page.evaluate("location.search") == "?micro_batch=16"
    page.reload()
    expect(page.locator("#calc-memory-micro_batch")).to_have_value("16")
