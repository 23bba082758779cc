"""guidekit.render.worker, the Python the browser worker calls, in CPython; in Pyodide, with the page around
it, in tests/site/test_browser_calculators.py."""

from __future__ import annotations

import json

import pytest

import calculators
from gpuguide import results
from guidekit import l10n, render
from guidekit.render import worker
from guidekit.site.locale_pack import locale_pack
from tests.conftest import ROOT

PACK = locale_pack("ar", ROOT / "locales")
SAMPLE = (ROOT / "results" / "sample-cpu.json").read_bytes()


@pytest.fixture
def started(monkeypatch):
    monkeypatch.setattr(worker, "_PACK", None)
    worker.start("calculators", json.dumps(PACK))
    return worker


def test_a_message_before_start_is_refused(monkeypatch):
    monkeypatch.setattr(worker, "_PACK", None)
    with pytest.raises(RuntimeError, match=r"start\(\) must run before the first message"):
        worker.render("memory", "{}")


def test_start_imports_each_module_named(monkeypatch):
    monkeypatch.setattr(worker, "_PACK", None)
    with pytest.raises(ModuleNotFoundError, match="no_such_calculators"):
        worker.start("calculators no_such_calculators", json.dumps(PACK))


def test_render_answers_as_the_build_does(started):
    inputs = {"micro_batch": "8", "method": "full"}
    built = render.render("memory", inputs, PACK)
    assert json.loads(started.render("memory", json.dumps(inputs))) == json.loads(
        json.dumps({**built, "response": worker.page_response(built["response"])})
    )
    bad = json.loads(started.render("memory", json.dumps({"micro_batch": "-3"})))
    assert not bad["ok"] and bad["errors"][0]["field"] == "micro_batch"


def test_answers_in_a_row_are_the_answers_each_would_be_alone(started):
    """The worker's formatter remembers figure texts from one answer to the next; each answer of a
    sequence of edits must still equal a fresh render of its own inputs."""
    edits = [
        ("cost", {"runs": str(n), "utilization": str(0.3 + n / 100), "seq_len": str(512 * n)}) for n in range(1, 6)
    ]
    edits += [
        ("memory", {"micro_batch": str(n), "lora_rank": str(4 * n), "method": ("full", "lora", "qlora")[n % 3]})
        for n in range(1, 6)
    ]
    for name, inputs in edits * 2:
        fresh = render.render(name, inputs, PACK)
        assert json.loads(started.render(name, json.dumps(inputs))) == json.loads(
            json.dumps({**fresh, "response": worker.page_response(fresh["response"])})
        )


def test_a_remembered_figure_keeps_its_type():
    from guidekit.l10n import Localizer
    from guidekit.render._figures import figure

    loc = Localizer(PACK, memo=True)
    assert [figure(v, "raw", loc) for v in (1, 1.0, True, 1)] == ["1", "1.0", "True", "1"]


def test_the_page_gets_the_figures_and_inputs_not_the_rows_the_html_shows(started):
    sent = json.loads(started.render("cost", json.dumps({"runs": "3"})))
    full = calculators.compute("cost", {"runs": "3"})
    assert sent["response"]["inputs"] == json.loads(json.dumps(full["inputs"]))
    result = sent["response"]["result"]
    assert (
        result["usd_per_output"] == full["result"]["usd_per_output"] and result["ranking"] == full["result"]["ranking"]
    )
    assert not {"display", "options_table", "best_by_gpu"} & set(result)
    whole = render.render("cost", {"runs": "3"}, PACK)["response"]
    assert len(json.dumps(sent["response"])) < len(json.dumps(whole)) / 5
    refused = json.loads(started.render("cost", json.dumps({"runs": "-1"})))["response"]
    assert refused == json.loads(json.dumps(calculators.compute("cost", {"runs": "-1"})))  # no result: sent whole


def test_import_takes_the_files_bytes(started):
    out = json.loads(started.import_result("cost", memoryview(SAMPLE)))
    assert out == json.loads(json.dumps(results.import_result("cost", SAMPLE, PACK)))
    assert out["ok"] and out["inputs"]["layers"] == 4 and out["changes"] == []
    # With the reader's form, the panel says what the file would change (the page sends it as JSON).
    asked = json.loads(started.import_result("cost", memoryview(SAMPLE), json.dumps({"seq_len": "8192"})))
    assert asked == json.loads(json.dumps(results.import_result("cost", SAMPLE, PACK, {"seq_len": "8192"})))
    assert "seq_len" in asked["changes"] and "guide-import__apply" in asked["html"]
    assert json.loads(started.import_result("cost", memoryview(SAMPLE), "{not json"))["changes"] == []


class _Proxy:
    """What Pyodide hands Python for a JavaScript Uint8Array: a length, and to_py() to copy it."""

    def __init__(self, length: int):
        self.byteLength = length
        self.copied = False

    def to_py(self):
        self.copied = True
        return memoryview(b" " * self.byteLength)


def test_an_oversized_buffer_is_refused_by_its_length_unread(started):
    big = _Proxy(results.MAX_BYTES + 1)
    out = json.loads(started.import_result("memory", big))
    assert big.copied is False
    assert out == json.loads(json.dumps(results.too_large(PACK, results.MAX_BYTES + 1)))
    # Bytes already in hand get the same words from import_result; the page's (no size known) too.
    in_hand = results.import_result("memory", b" " * (results.MAX_BYTES + 1), PACK)
    assert in_hand == results.too_large(PACK, results.MAX_BYTES + 1)
    assert in_hand["errors"] == results.too_large(PACK)["errors"]
    assert not out["ok"] and out["problems"][0]["code"] == "too_large"
    at_limit = _Proxy(results.MAX_BYTES)
    assert json.loads(started.import_result("memory", at_limit))["problems"][0]["code"] != "too_large"
    assert at_limit.copied


def test_too_large_names_the_limit_in_each_locale():
    for locale in ("es", "ja", "ar"):
        pack = locale_pack(locale, ROOT / "locales")
        line = results.too_large(pack)["errors"][0]
        assert line != results.too_large({**pack, "messages": {}})["errors"][0], locale  # translated
        assert l10n.NumberFormat(pack).number(results.MAX_BYTES / 1e6, max_frac=1) in line


def test_the_page_refusals_are_whole_envelopes_in_each_locale(monkeypatch):
    """What the page shows without the worker: each reason, translated, shaped like an import answer."""
    for locale in ("es", "ja", "ar"):
        pack = locale_pack(locale, ROOT / "locales")
        refusals = results.page_refusals(pack)
        assert set(refusals) == {"too_large", "unreadable", "no_runtime"}
        english = results.page_refusals({**pack, "messages": {}})
        for reason, envelope in refusals.items():
            assert envelope["ok"] is False and envelope["inputs"] == {} and len(envelope["errors"]) == 1
            assert envelope["errors"][0] in envelope["html"] and 'role="alert"' in envelope["html"]
            assert envelope["errors"] != english[reason]["errors"], (locale, reason)  # translated
    # A file that breaks the reader gets the same words as the page's own "could not read".
    from gpuguide.results import _compare

    monkeypatch.setattr(_compare, "parse", lambda text: 1 / 0)
    assert results.page_refusals(PACK)["unreadable"] == results.import_result("memory", b"{}", PACK)
