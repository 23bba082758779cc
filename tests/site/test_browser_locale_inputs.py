"""Number fields in the locale's form ("0,2" and "8.030.261.248" in Spanish), the address in one
ASCII form (?margin=0.2) that opens the same values on every locale's page."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from guidekit import render
from tests.conftest import ROOTS

pytestmark = pytest.mark.browser

# Defaults as each locale writes them: grouped, its decimal sign, no ".0".
DEFAULTS = {
    "es": {"tokens": "200.000.000", "epochs": "3", "margin": "0,1", "params": "8.030.261.248", "lora_dropout": "0"},
    "ja": {"tokens": "200,000,000", "epochs": "3", "margin": "0.1", "params": "8,030,261,248", "lora_dropout": "0"},
    "ar": {"tokens": "200,000,000", "epochs": "3", "margin": "0.1", "params": "8,030,261,248", "lora_dropout": "0"},
}
SETTLED = """name => {
  const root = document.getElementById(`calc-${name}`);
  return root.querySelector(".guide-calc__status").dataset.state === "ready" && root.dataset.answer === "current";
}"""


def _query(page: Page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def _values(page: Page, name: str, fields) -> dict:
    return {f: page.locator(f"#calc-{name}-{f}").input_value() for f in fields}


@pytest.mark.parametrize("locale", ROOTS)
def test_defaults_are_in_the_locales_form_before_and_after_the_runtime(browser, live_pages, site_url, locale):
    context = browser.new_context(java_script_enabled=False)
    static = context.new_page()
    static.goto(site_url + ROOTS[locale] + "cost/")
    assert _values(static, "cost", DEFAULTS[locale]) == DEFAULTS[locale]  # the build's HTML
    context.close()
    page = live_pages.get(ROOTS[locale], "cost")
    assert _values(page, "cost", DEFAULTS[locale]) == DEFAULTS[locale]  # refilled by the live page
    assert _query(page) == {}


@pytest.mark.parametrize(("locale", "align"), [("es", "start"), ("ar", "right")])
def test_number_fields_read_left_to_right_and_start_where_the_lines_do(live_pages, locale, align):
    """Issue 50 item 5: "−10" stayed "10−" in a right-to-left form; the unit beside a label is isolated."""
    page = live_pages.get(ROOTS[locale], "cost")
    styles = page.eval_on_selector_all(
        "#calc-cost .guide-field input[type=text]",
        "els => els.map(e => [getComputedStyle(e).direction, getComputedStyle(e).textAlign])",
    )
    assert styles and set(map(tuple, styles)) == {("ltr", align)}
    assert (
        page.locator("#calc-cost .guide-field__unit bdi").count()
        == page.locator("#calc-cost .guide-field__unit").count()
        > 0
    )


def test_spanish_comma_reaches_the_address_as_a_point(live_pages):
    page = live_pages.get(ROOTS["es"], "memory")
    page.locator("#calc-memory-margin").fill("0,2")
    page.wait_for_function("() => document.getElementById('calc-memory').guideInputs?.margin === '0.2'", timeout=30_000)
    page.wait_for_function(SETTLED, arg="memory", timeout=30_000)
    assert _query(page) == {"margin": "0.2"}
    expect(page.locator("#calc-memory-margin-error")).to_be_hidden()
    expect(page.locator("#calc-memory-margin")).to_have_value("0,2")
    # Grouped as shown: "8.030.261.248" is read back as the same number, not refused.
    page.locator("#calc-memory-micro_batch").fill("1.024")
    page.wait_for_function(
        "() => document.getElementById('calc-memory').guideInputs?.micro_batch === '1024'", timeout=30_000
    )
    page.wait_for_function(SETTLED, arg="memory", timeout=30_000)
    assert _query(page) == {"margin": "0.2", "micro_batch": "1024"}
    expect(page.locator("#calc-memory-micro_batch")).to_have_value("1.024")


@pytest.mark.parametrize(("locale", "shown"), [("es", "0,2"), ("ja", "0.2"), ("ar", "0.2")])
def test_a_shared_address_opens_the_same_value_in_every_locale(page: Page, site_url, locale, shown):
    page.goto(site_url + ROOTS[locale] + "memory/?margin=0.2")
    expect(page.locator("#calc-memory-margin")).to_have_value(shown)  # before the runtime, too
    page.wait_for_function(SETTLED, arg="memory", timeout=90_000)
    expect(page.locator("#calc-memory-margin")).to_have_value(shown)
    expect(page.locator("#calc-memory-margin-error")).to_be_hidden()
    assert page.evaluate("() => document.getElementById('calc-memory').guideInputs.margin") == "0.2"
    assert _query(page) == {"margin": "0.2"}  # unchanged: the link round-trips


@pytest.mark.parametrize("locale", ROOTS)
def test_junk_gets_the_localized_not_a_number_error(live_pages, built_site, locale):
    pack = json.loads((built_site[0] / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))
    expected = render.render("memory", {"margin": "1,2,3"}, pack)["errors"][0]["message"]
    page = live_pages.get(ROOTS[locale], "memory")
    page.locator("#calc-memory-margin").fill("1,2,3")
    expect(page.locator("#calc-memory-margin-error")).to_have_text(expected, timeout=30_000)
    expect(page.locator("#calc-memory-margin")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#calc-memory-margin")).to_have_value("1,2,3")


# A digit system each page's reader may type in, with its decimal and group signs (issue 51 item 4):
# a Japanese IME's full-width forms, Arabic-Indic digits with Arabic's own signs, and on the Spanish
# page Eastern Arabic-Indic digits (a Persian or Urdu keyboard) with Arabic's signs.
SCRIPTS = {
    "ja": {"zero": 0xFF10, "decimal": "．", "group": "，"},
    "ar": {"zero": 0x0660, "decimal": "\u066b", "group": "\u066c"},
    "es": {"zero": 0x06F0, "decimal": "\u066b", "group": "\u066c"},
}
RETYPE = """([name, script]) => {
  const root = document.getElementById(`calc-${name}`);
  const form = root.querySelector("form");
  const [decimal, group] = [form.dataset.decimal, form.dataset.group];
  const retyped = {};
  const fields = [...form.querySelectorAll(".guide-field--int, .guide-field--float")]
    .map((f) => f.querySelector("input")).filter((i) => !i.disabled && i.value !== "");  // empty: nothing to retype
  for (const input of fields) {
    const shown = input.value;
    input.value = [...shown].map((c) => /[0-9]/.test(c) ? String.fromCodePoint(script.zero + Number(c))
      : c === decimal ? script.decimal : c === group ? script.group : c).join("");
    retyped[input.id] = [shown, input.value];
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
  fields.at(-1).dispatchEvent(new Event("change", { bubbles: true }));
  return retyped;
}"""


@pytest.mark.parametrize("locale", ROOTS)
@pytest.mark.parametrize("name", ["memory", "cost"])
def test_every_number_field_takes_the_readers_own_digits(live_pages, locale, name):
    """Every number field of both calculators, retyped in another digit system at once: the answer
    is computed without an error, and each field shows its value again in the page's own form."""
    page = live_pages.get(ROOTS[locale], name)
    root = f"document.getElementById('calc-{name}')"
    answered = f"() => {root}.guideResponse != null && ({SETTLED})('{name}')"
    # Custom dimensions first, so that the model's number fields take part too.
    page.evaluate(f"() => {{ {root}.guideResponse = null; }}")
    page.locator(f"#calc-{name}-model").select_option("custom")
    page.wait_for_function(answered, timeout=30_000)
    before, query = page.evaluate(f"() => {root}.guideResponse.inputs"), _query(page)
    page.evaluate(f"() => {{ {root}.guideResponse = null; }}")
    retyped = page.evaluate(RETYPE, [name, SCRIPTS[locale]])
    assert len(retyped) >= 15 and all(shown != typed for shown, typed in retyped.values()), retyped
    page.wait_for_function(answered, timeout=30_000)
    response = page.evaluate(f"() => document.getElementById('calc-{name}').guideResponse")
    assert response["ok"], response.get("errors")
    assert response["inputs"] == before  # the same numbers, read from the reader's digits
    shown = {field: page.locator(f"#{field}").input_value() for field in retyped}
    assert shown == {field: original for field, (original, _) in retyped.items()}
    expect(page.locator(f"#calc-{name} [aria-invalid='true']")).to_have_count(0)
    assert _query(page) == query  # and the address is the same: every number is as it was
