"""A result of kind 'trace' (gpu-pilot trace): held to the contract, and shown as traced, never as
measured, on the results page and in the memory calculator's import panel, in every locale."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import gpuguide.results as results
from guidekit.l10n import Translator
from tests.conftest import locale_packs

from .corpus import GOOD, load_good

LOCALES = Path(__file__).resolve().parents[2] / "locales"
PACKS = locale_packs()
RUNS = [(p.name, d) for p, d in zip(GOOD, load_good())]
TRACE_NAME = "trace-llama-3.2-1b-lora.json"
TRACE = dict(RUNS)[TRACE_NAME]
SAMPLE = dict(RUNS)["sample-cpu.json"]


def words(code: str, *msgids: str) -> list[str]:
    t = Translator(PACKS[code])
    found = [t(m) for m in msgids]
    assert all(w != m for w, m in zip(found, msgids)), "translated"
    return found


def test_the_fixture_is_a_full_width_trace_that_sums_up():
    assert results.validate(TRACE) == [] and TRACE["kind"] == "trace"
    trace = TRACE["trace"]
    assert (
        trace["peak_bytes"]
        == (trace["parameters"] + trace["gradients"] + trace["optimizer_state"] + trace["activations_and_temporaries"])
        > 10**10
    )
    assert TRACE["config"]["model"]["layers"] == 16 and TRACE["config"]["train"]["seq_len"] == 2048


@pytest.mark.parametrize("code", PACKS)
def test_the_results_page_shows_a_trace_as_traced(code):
    traced, peak, note, measured = words(
        code, "Traced", "Traced peak", "Peak memory: traced and estimated", "Measured peak"
    )
    page = results.results_page([("sample-cpu.json", SAMPLE), (TRACE_NAME, TRACE)], PACKS[code])
    section = page[page.index('id="run-trace-llama') :]
    assert section.count("guide-badge--traced") == 1 and "guide-badge--cpu" not in section
    assert f">{traced}</span>" in section and note in section and peak in section
    assert measured not in section  # its table says traced, not measured
    assert section.count('guide-results__trace"') == 1  # what the peak holds, part by part
    # The runs table gains a "traced peak" row only where a trace is shown.
    assert page.count(f'<th scope="row">{peak}</th>') == 1
    assert f'<th scope="row">{peak}</th>' not in results.results_page([("sample-cpu.json", SAMPLE)], PACKS[code])


@pytest.mark.parametrize("code", PACKS)
def test_the_memory_calculator_imports_a_trace_as_traced_against_the_estimate(code):
    traced, peak, measured = words(code, "Traced", "Traced peak", "Measured peak")
    out = results.import_result("memory", json.dumps(TRACE), PACKS[code])
    assert out["ok"] and "guide-badge--traced" in out["html"] and "guide-badge--cpu" not in out["html"]
    assert peak in out["html"] and measured not in out["html"] and "guide-results__trace" in out["html"]
    t = Translator(PACKS[code])
    start = t("Traced {traced}, estimated {estimate}: {difference}.", traced="\0", estimate="", difference="")
    assert out["summary"].startswith(start.split("\0")[0])
    # The form takes the traced configuration.
    assert out["inputs"]["layers"] == 16 and out["inputs"]["method"] == "lora" and out["inputs"]["seq_len"] == 2048


def test_without_an_estimate_the_panel_says_so():
    data = copy.deepcopy(TRACE)
    data["config"]["model"]["family"] = "made_up"  # the calculator refuses it
    data["trace"]["cuda_estimated_bytes"] = None
    assert results.validate(data) == []
    out = results.import_result("memory", json.dumps(data), PACKS["es"])
    t = Translator(PACKS["es"])
    assert out["ok"] and t("No estimate: the memory calculator does not model this configuration.") in out["html"]
    assert out["summary"].startswith(
        t("Traced {traced}; the calculator has no estimate for this configuration.", traced="\0").split("\0")[0]
    )


def _set(doc: dict, path: str, value):
    doc = copy.deepcopy(doc)
    *head, last = path.split("/")
    node = doc
    for part in head:
        node = node[part]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return doc


TAMPERED = [
    (TRACE, "trace", KeyError, "", "required"),
    (TRACE, "trace/peak_bytes", -1, "/trace/peak_bytes", "minimum"),
    (TRACE, "trace/tracer", "MemTracker", "/trace/tracer", "const"),
    (TRACE, "trace/peak_step", 0, "/trace/peak_step", "minimum"),
    (TRACE, "trace/measured", True, "/trace/measured", "additionalProperties"),
    (TRACE, "timing", {"step": {}}, "/timing", "type"),  # a trace times nothing
    (TRACE, "memory", SAMPLE["memory"], "/memory", "type"),  # nor measures
    (TRACE, "losses", [2.5], "/losses", "maxItems"),
    (TRACE, "environment/device_type", "cuda", "/environment/device_type", "const"),  # traced on the CPU
    (TRACE, "outcome/status", "does_not_fit", "/outcome/status", "const"),
    (TRACE, "estimate", None, "/estimate", "type"),
    (SAMPLE, "trace", TRACE["trace"], "/trace", "false"),  # a run has no trace
    (SAMPLE, "model/data_hash", None, "/model/data_hash", "type"),  # a run read data
]


@pytest.mark.parametrize(
    ("base", "path", "value", "pointer", "code"), TAMPERED, ids=[f"{b['kind']}:{p}" for b, p, *_ in TAMPERED]
)
def test_a_tampered_file_gets_the_right_problem(base, path, value, pointer, code):
    data, problems = results.parse(json.dumps(_set(base, path, value)))
    assert data is None
    assert (pointer, code) in [(p["pointer"], p["code"]) for p in problems], problems
    for pack in PACKS.values():  # worded in every locale, never the catch-all
        out = results.import_result("memory", json.dumps(_set(base, path, value)), pack)
        assert not out["ok"] and out["errors"] and pointer in out["html"]
