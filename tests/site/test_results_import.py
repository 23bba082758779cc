"""Pilot results end to end: the build refuses bad files with one clear line each and writes no
page; the results page renders every shipped file; the calculator pages take a file in the
browser, validated by the same Python, with hostile files rejected and payloads inert."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from gpuguide import results
from guidekit import l10n
from tests.conftest import ARTIFACTS, ROOT, ROOTS
from tests.results.cases import BAD, BIDI_LABEL, BIDI_LABEL_TEXT, CASES, HUGE, PAYLOADS, write_huge
from tests.site.browser import apply_import


def _build_with_results(results_dir, target):
    """The real site, built with another results folder (the `results_dir` of this guide's extension)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "\n          results_dir: results\n" in config
    override = ROOT / f".mkdocs-test-results-{os.getpid()}.yml"
    override.write_text(
        config.replace("\n          results_dir: results\n", f"\n          results_dir: {results_dir}\n"),
        encoding="utf-8",
    )
    try:
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(override), "-d", str(target)],
            cwd=ROOT,
            env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
            capture_output=True,
            text=True,
        )
    finally:
        override.unlink()


@pytest.mark.build  # builds the site
def test_build_stops_on_bad_files_with_one_line_each_and_no_page(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    chosen = [c for c in CASES if c[0] != HUGE][:6]
    for name, _, _ in chosen:
        shutil.copy(BAD / name, folder / name)
    shutil.copy(ROOT / "results" / "sample-cpu.json", folder / "good.json")
    target = tmp_path / "site"
    build = _build_with_results(folder, target)
    output = build.stdout + build.stderr
    assert build.returncode != 0
    assert "Traceback" not in output
    for name, _, _ in chosen:
        lines = [line for line in output.splitlines() if f"{name}:" in line]
        assert lines, f"no error line for {name}:\n{output}"
    assert "good.json" not in output
    assert not list(target.rglob("*.html")) if target.exists() else True


def test_results_page_lists_every_shipped_run(built_site):
    site, _, _ = built_site
    shipped = sorted(p.relative_to(ROOT / "results").as_posix() for p in (ROOT / "results").rglob("*.json"))
    for locale, prefix in ROOTS.items():
        html = (site / prefix / "results" / "index.html").read_text(encoding="utf-8")
        for name in shipped:
            assert name in html, (locale, name)
        assert "guide-badge--cpu" in html  # the shipped sample is labelled as a CPU run


# -- in the browser -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    write_huge(folder / HUGE)
    return {
        name: (folder / HUGE if name == HUGE else BAD / name) for name, _, _ in CASES + [(p, "", "") for p in PAYLOADS]
    }


@pytest.fixture
def calculator_page(page: Page, site_url):
    dialogs, logs = [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: logs.append(m.text) if m.type in ("error", "log", "warning") else None)
    page.goto(site_url + "memory/")
    expect(page.locator("#calc-memory .guide-calc__status")).to_have_attribute("data-state", "ready", timeout=90_000)
    return page, dialogs, logs


def _import(page: Page, path) -> dict:
    page.evaluate("""() => { window.__imported = null;
        document.getElementById('calc-memory').addEventListener('guide:imported', (e) => { window.__imported = e.detail; }, {once: true}); }""")
    page.locator("#calc-memory-import").set_input_files(str(path))
    page.wait_for_function("() => window.__imported !== null", timeout=60_000)
    return page.evaluate("() => window.__imported")


@pytest.mark.browser
def test_hostile_files_are_rejected_precisely_in_the_browser(calculator_page, hostile_files, built_site):
    page, dialogs, logs = calculator_page
    site, _, _ = built_site
    pack = json.loads((site / "assets" / "calc" / "pack-es.json").read_text(encoding="utf-8"))
    panel = page.locator("#calc-memory .guide-calc__import-result")
    for name, pointer, code in CASES:
        data = hostile_files[name].read_bytes()
        expected = results.import_result("memory", data, pack)
        got = _import(page, hostile_files[name])
        assert not got["ok"], name
        assert got["problems"][0]["pointer"] == pointer and got["problems"][0]["code"] == code, name
        assert got["errors"] == expected["errors"], name
        expect(panel).to_have_attribute("data-ok", "false")
        expect(panel).to_contain_text(expected["errors"][0])
    assert dialogs == []
    assert not [line for line in logs if "alert" in line or "Calculator runtime" in line]


@pytest.mark.browser
def test_payloads_render_inert(calculator_page, hostile_files):
    page, dialogs, logs = calculator_page
    for name in PAYLOADS:
        got = _import(page, hostile_files[name])
        assert got["ok"], name
        panel = page.locator("#calc-memory .guide-calc__import-result")
        assert panel.locator("script, img, iframe, [onerror], [onmouseover]").count() == 0
        assert page.locator('a[href^="javascript:"]').count() == 0
        page.mouse.move(10, 10)
    assert dialogs == []
    assert not [line for line in logs if "alert" in line]


@pytest.mark.browser
@pytest.mark.parametrize("locale", ROOTS)
def test_sample_fills_the_form_and_compares(live_pages, built_site, locale):
    """A pilot result lists what it would change, changes nothing until the reader applies it, and
    leaves the form as it was when they keep their inputs."""
    site, _, _ = built_site
    pack = json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))
    page = live_pages.get(ROOTS[locale], "memory")
    model = page.locator("#calc-memory-model").input_value()
    page.locator("#calc-memory-import").set_input_files(str(ROOT / "results" / "sample-cpu.json"))
    panel = page.locator("#calc-memory .guide-calc__import-result")
    expect(panel).to_have_attribute("data-ok", "true", timeout=60_000)
    # The panel says what the file would change; nothing has changed yet.
    expect(panel.locator(".guide-import__changes li").first).to_be_visible()
    expect(page.locator("#calc-memory-model")).to_have_value(model)
    # Kept: the form stays as it was, and the panel says so.
    panel.locator(".guide-import__keep").click()
    expect(panel.locator('[role="status"]')).to_have_text(l10n.Translator(pack)("Your inputs were kept."))
    expect(page.locator("#calc-memory-model")).to_have_value(model)
    # The same file again, applied this time.
    page.locator("#calc-memory-import").set_input_files(str(ROOT / "results" / "sample-cpu.json"))
    apply_import(page, "memory")
    sample = json.loads((ROOT / "results" / "sample-cpu.json").read_text(encoding="utf-8"))
    expect(page.locator("#calc-memory-layers")).to_have_value(str(sample["config"]["model"]["layers"]))
    expect(page.locator("#calc-memory-model")).to_have_value("custom")
    expect(panel.locator(".guide-import__changes")).to_have_count(0)


TRACE = ROOT / "tests" / "results" / "good" / "trace-llama-3.2-1b-lora.json"


@pytest.mark.browser
@pytest.mark.parametrize("locale", ROOTS)
def test_a_trace_is_imported_as_traced_at_phone_width(live_pages, built_site, locale):
    """A `gpu-pilot trace` file on the memory calculator: the panel the Python renders, labelled traced,
    the traced configuration in the form, and the tables inside the phone's width."""
    site, _, _ = built_site
    pack = json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))
    page = live_pages.get(ROOTS[locale], "memory", "phone")
    page.set_viewport_size({"width": 390, "height": 844})  # a narrow phone (the shared page is put back)
    got = _import(page, TRACE)
    expected = results.import_result("memory", TRACE.read_bytes(), pack)
    assert got["ok"] and got["summary"] == expected["summary"]
    panel = page.locator("#calc-memory .guide-calc__import-result")
    expect(panel.locator(".guide-badge--traced")).to_have_text(l10n.Translator(pack)("Traced"))
    apply_import(page, "memory")
    expect(panel.locator("table.guide-results__trace")).to_have_count(1)
    expect(page.locator("#calc-memory-seq_len")).to_have_value(l10n.NumberFormat(pack).input_text(2048))
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, overflow
    panel.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / f"trace-import-{locale}-390.png"))


def _pick(page: Page, path) -> None:
    """Pick `path` on the cost page; the answer that follows once the reader applies it is kept."""
    page.evaluate("""() => { window.__result = null;
        const root = document.getElementById('calc-cost');
        root.addEventListener('guide:import-settled', () =>
          root.addEventListener('guide:result', (e) => { window.__result = e.detail; }, {once: true}), {once: true}); }""")
    page.locator("#calc-cost-import").set_input_files(str(path))


def _apply(page: Page) -> dict:
    apply_import(page, "cost")
    page.wait_for_function("() => window.__result !== null", timeout=60_000)
    return page.evaluate("() => window.__result.response")


@pytest.mark.browser
def test_a_gpu_result_then_a_cpu_sample_then_a_trace_on_the_cost_page(live_pages, built_site):
    """Reader task 4 (issue 51), es desktop: a result measured on a GPU sets that card's speed and says
    "measured" in the answer; a CPU sample and a trace after it set no card's speed, and take back
    the earlier file's, and each panel said what it would change before it did."""
    site, _, _ = built_site
    pack = json.loads((site / "assets" / "calc" / "pack-es.json").read_text(encoding="utf-8"))
    t = l10n.Translator(pack)
    measured = t("{count} × {gpu} (throughput measured by your pilot run)").split("{gpu}")[1].strip()
    page = live_pages.get(ROOTS["es"], "cost")
    root = page.locator("#calc-cost")
    panel = root.locator(".guide-calc__import-result")
    verdict = root.locator(".guide-calc__result .guide-verdict")

    gpu = ROOT / "tests" / "results" / "good" / "gpu-lora.json"
    _pick(page, gpu)
    response = _apply(page)
    speed = json.loads(gpu.read_text(encoding="utf-8"))["timing"]["tokens_per_s"]
    assert response["inputs"]["measured_h200-141gb"] == round(speed, 2) and response["inputs"]["gpu"] == "h200-141gb"
    expect(verdict).to_contain_text(measured)
    expect(panel).to_contain_text("H200 SXM 141 GB")

    _pick(page, ROOT / "results" / "sample-cpu.json")
    expect(panel.locator(".guide-import__changes")).to_contain_text("H200 SXM 141 GB")  # its speed goes back
    expect(verdict).to_contain_text(measured)  # nothing changed yet
    response = _apply(page)
    assert not any(v for k, v in response["inputs"].items() if k.startswith("measured_"))
    assert response["inputs"]["gpu"] == "h200-141gb" and response["inputs"]["model"] == "custom"
    expect(verdict).not_to_contain_text(measured)

    _pick(page, ROOT / "results" / "trace-llama-3.1-8b-full.json")
    response = _apply(page)
    assert response["inputs"]["model"] == "llama-3.1-8b" and response["inputs"]["method"] == "full"
    expect(page.locator("#calc-cost-model")).to_have_value("llama-3.1-8b")
    expect(verdict).not_to_contain_text(measured)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cost-imports-es-desktop.png"), full_page=False)


CONFIGS = ROOT / "tests" / "fixtures" / "hf-configs"


@pytest.mark.browser
@pytest.mark.parametrize("locale", ROOTS)
def test_a_model_config_json_fills_the_dimensions_or_says_why_not(live_pages, built_site, locale):
    """A config.json picked or pasted on the memory calculator: read in the worker by the same Python
    as the CLI and the pilot; an unsupported family gets the localized message."""
    site, _, _ = built_site
    pack = json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))
    page = live_pages.get(ROOTS[locale], "memory")
    panel = page.locator("#calc-memory .guide-calc__import-result")
    got = _import(page, CONFIGS / "qwen2-tiny.json")
    assert got["ok"], got
    expect(page.locator("#calc-memory-model")).to_have_value("custom")
    expect(page.locator("#calc-memory-vocab")).to_have_value(l10n.NumberFormat(pack).input_text(1000))  # "1.000" in es
    expect(page.locator("#calc-memory-tied_embeddings")).to_be_checked()
    expect(panel).to_have_attribute("data-ok", "true")
    expect(page.locator("#calc-memory-fused_projections")).not_to_be_checked()
    assert _import(page, CONFIGS / "phi3-tiny.json")["ok"]  # Phi-3: fused qkv and gate_up
    expect(page.locator("#calc-memory-fused_projections")).to_be_checked()
    expect(page.locator("#calc-memory-vocab")).to_have_value("600")
    bad = (CONFIGS / "gpt2-tiny.json").read_bytes()
    expected = results.import_result("memory", bad, pack)["errors"][0]
    # Pasted text takes the same path as a file.
    assert _paste(page, bad.decode())["ok"] is False
    expect(panel).to_contain_text(expected)
    if locale != "es":
        assert expected != results.import_result("memory", bad, {**pack, "messages": {}})["errors"][0]


@pytest.mark.browser
def test_a_bidi_label_shows_isolated_and_in_its_order(live_pages):
    """A U+202E in a file's label would display the rest of it reversed: it is stripped, and the
    label sits in its own <bdi> inside the Arabic sentence."""
    page = live_pages.get(ROOTS["ar"], "memory")
    got = _import(page, BAD / BIDI_LABEL)
    assert got["ok"]
    title = page.locator("#calc-memory .guide-calc__import-result h3")
    shown = BIDI_LABEL_TEXT.replace("\u202e", "").replace("\u202c", "")
    expect(title.locator("bdi")).to_have_text(shown)
    html = page.locator("#calc-memory .guide-calc__import-result").inner_html()
    assert not set(html) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
    # In order on screen: "tset" starts to the right of "A100" (the label is left to right inside its bdi).
    boxes = page.evaluate("""() => {
        const node = document.querySelector('#calc-memory .guide-calc__import-result h3 bdi').firstChild;
        const box = (word) => { const r = document.createRange(); const i = node.data.indexOf(word);
            r.setStart(node, i); r.setEnd(node, i + word.length); return r.getBoundingClientRect().left; };
        return [box('A100'), box('tset'), box('run')];
    }""")
    assert boxes[0] < boxes[1] < boxes[2]


def _paste(page: Page, text: str) -> dict:
    page.evaluate(
        """(text) => { window.__imported = null;
        const root = document.getElementById('calc-memory');
        root.addEventListener('guide:imported', (e) => { window.__imported = e.detail; }, {once: true});
        const data = new DataTransfer(); data.setData('text', text);
        root.querySelector('[data-drop-zone]').dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
    }""",
        text,
    )
    page.wait_for_function("() => window.__imported !== null", timeout=60_000)
    return page.evaluate("() => window.__imported")


@pytest.mark.browser
@pytest.mark.parametrize("locale", ROOTS)
def test_a_wrong_file_gets_one_sentence_and_its_details_folded(live_pages, built_site, locale):
    """Issue 51 item 8: a package.json picked by mistake is named as what it looks like, in one sentence;
    the checker's problems wait in a closed fold; the same text pasted is called text, not a file."""
    site, _, _ = built_site
    pack = json.loads((site / "assets" / "calc" / f"pack-{locale}.json").read_text(encoding="utf-8"))
    wrong = ROOT / "package.json"
    page = live_pages.get(ROOTS[locale], "memory", "phone")
    panel = page.locator("#calc-memory .guide-calc__import-result")
    got = _import(page, wrong)
    expected = results.import_result("memory", wrong.read_bytes(), pack)
    assert not got["ok"] and got["summary"] == expected["summary"]
    t = l10n.Translator(pack)
    assert t("an npm package.json") in got["summary"]
    expect(panel.locator('[role="alert"] > p')).to_have_text(expected["summary"])
    fold = panel.locator("details.guide-import__details")
    expect(fold).not_to_have_attribute("open", "")
    expect(fold.locator("li").first).to_be_hidden()  # the problems, folded
    pasted = _paste(page, wrong.read_text(encoding="utf-8"))
    assert pasted["summary"] == results.import_result("memory", wrong.read_bytes(), pack, pasted=True)["summary"]
    assert pasted["summary"] != got["summary"]
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, overflow
    panel.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / f"wrong-file-{locale}-phone.png"))
