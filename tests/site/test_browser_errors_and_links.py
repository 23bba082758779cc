"""Errors that lead to their field, a link to the inputs that can be copied, and a pre-live answer
that says which inputs it is for (issue 33, items 6 and 8), on a phone and on a desktop."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.site.browser import PHONE, hold_runtime

pytestmark = pytest.mark.browser

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
SCREENS = {"phone": PHONE, "desktop": DESKTOP}


@pytest.fixture(params=list(SCREENS))
def screen(request, browser):
    context = browser.new_context(**SCREENS[request.param])
    yield context
    context.close()


def test_a_bad_advanced_value_from_the_url_opens_its_fold_and_the_summary_leads_to_it(screen, site_url):
    page = screen.new_page()
    page.goto(site_url + "memory/?lora_dropout=abc")
    field = page.locator('#calc-memory [data-field="lora_dropout"]')
    error = field.locator(".guide-field__error")
    expect(error).to_be_visible(timeout=90_000)  # the fold holding it was opened
    assert field.locator("xpath=ancestor::details").evaluate("d => d.open")
    expect(page.locator("#calc-memory-lora_dropout")).to_be_in_viewport()  # brought into view
    # The summary's item links to the field; following it focuses the field, with its fold open again.
    field.locator("xpath=ancestor::details").evaluate("d => { d.open = false; }")
    page.evaluate("window.scrollTo(0, 0)")
    link = page.locator('#calc-memory .guide-calc__invalid a[href="#calc-memory-lora_dropout"]')
    expect(link).to_have_count(1)
    link.click()
    expect(page.locator("#calc-memory-lora_dropout")).to_be_focused()
    expect(error).to_be_visible()


@pytest.mark.parametrize("width", list(SCREENS))
def test_typing_a_bad_value_does_not_move_the_focus_leaving_the_field_scrolls_to_it(live_pages, width):
    page = live_pages.get("", "memory", width)
    root = page.locator("#calc-memory")
    seq = page.locator("#calc-memory-seq_len")
    seq.fill("-5")
    expect(root.locator('[data-field="seq_len"] .guide-field__error')).to_be_visible(timeout=30_000)
    expect(seq).to_be_focused()
    expect(root.locator('.guide-calc__invalid a[href="#calc-memory-seq_len"]')).to_have_count(1)


def test_copy_link_puts_the_inputs_address_in_the_clipboard_and_says_so(screen, site_url):
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(site_url))
    screen.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    page = screen.new_page()
    hold_runtime(page)  # the link is offered, and the address written, before the runtime starts
    page.goto(site_url + "memory/?micro_batch=8")
    root = page.locator("#calc-memory")
    button = root.locator(".guide-calc__copy-link")
    expect(button).to_be_visible()
    button.click()
    announced = root.locator(".guide-calc__copied")
    expect(announced).to_have_text("Enlace copiado.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.evaluate("location.href") and copied.endswith("/memory/?micro_batch=8"), copied


def test_copy_link_without_the_clipboard_api_offers_the_address_selected(screen, site_url):
    page = screen.new_page()
    hold_runtime(page)
    page.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined});")
    page.goto(site_url + "memory/?micro_batch=8")
    root = page.locator("#calc-memory")
    root.locator(".guide-calc__copy-link").click()
    field = root.locator(".guide-calc__link-field")
    expect(field).to_be_visible()
    expect(field).to_have_value(page.evaluate("location.href"))
    assert field.evaluate("f => document.activeElement === f && f.selectionEnd - f.selectionStart === f.value.length")
    expect(root.locator(".guide-calc__copied")).not_to_be_empty()


def test_the_pre_live_answer_names_the_inputs_it_is_for(screen, site_url):
    # The runtime never arrives: its WebAssembly request hangs, as on a slow phone's first seconds.
    screen.route("**/pyodide.asm.wasm*", lambda route: None)
    page = screen.new_page()
    page.goto(site_url + "memory/?micro_batch=8&method=full")
    note = page.locator("#calc-memory .guide-calc__for-defaults")
    expect(note).to_be_visible()
    text = note.inner_text()
    assert "micro-lote: 4" in text, text  # the default micro-batch, under its label
    assert "LoRA" in text, text  # the default method, as its menu names it
    assert "2048" not in text, text  # the sequence length: an input the link did not change
    # An edit before the runtime starts updates the list.
    page.locator("#calc-memory-micro_batch").fill("4")
    page.locator("#calc-memory-micro_batch").blur()
    expect(note).not_to_contain_text(": 4")
    expect(note).to_contain_text("LoRA")


@pytest.mark.parametrize(("locale", "sentence"), [("", "Este enlace contiene"), ("ar/", "يحتوي هذا الرابط على")])
def test_a_link_cut_short_says_which_part_it_did_not_understand(browser, site_url, locale, sentence):
    """A chat app stopped the link at "&meth": the part it kept applies, and the page says what it could not
    read, in the reader's language, instead of silently falling back to the defaults."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    hold_runtime(page)  # said from the address alone, before the runtime starts
    page.goto(site_url + locale + "memory/?micro_batch=8&meth&h=gpu")  # `h`: Material's search highlight
    note = page.locator("#calc-memory .guide-calc__link-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text(sentence)
    expect(note.locator("bdi")).to_have_text(["meth"])
    expect(page.locator("#calc-memory-micro_batch")).to_have_value("8")
    context.close()


def test_a_whole_link_shows_no_note(browser, site_url):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    hold_runtime(page)
    page.goto(site_url + "memory/?micro_batch=8")
    expect(page.locator("#calc-memory-micro_batch")).to_have_value("8")
    expect(page.locator("#calc-memory .guide-calc__link-note")).to_be_hidden()
    context.close()
