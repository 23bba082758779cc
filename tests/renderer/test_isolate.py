"""Outside strings (result files, URL keys) on screen: bidi controls stripped, echoes clipped,
each isolated in <bdi>, in the calculator's error lines, the import panel and the results page."""

from __future__ import annotations

import json
import re

import pytest

from gpuguide import results
from guidekit import l10n, render
from guidekit.l10n._isolate import BIDI_CONTROLS, MAX_ECHO, clip, isolate, plain, plain_strings
from tests.conftest import locale_packs
from tests.results.cases import BAD, BIDI_LABEL, BIDI_LABEL_TEXT

PACKS = locale_packs()
CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@pytest.fixture(params=PACKS)
def pack(request):
    return PACKS[request.param]


def test_every_bidi_control_is_stripped_and_nothing_else():
    assert plain(f"a{CONTROLS}b\u0627\u200d") == "ab\u0627\u200d"  # Arabic letters and ZWJ stay
    assert isolate("<\u202eb>") == "<bdi>&lt;b&gt;</bdi>"
    assert plain_strings({"k\u202e": ["\u2066x", 1, None, {"y": "\u200fz"}]}) == {"k": ["x", 1, None, {"y": "z"}]}


@pytest.mark.parametrize(
    "text, shown",
    [
        ("short", "short"),
        ("k" * MAX_ECHO, "k" * MAX_ECHO),
        ("k" * 4_000_000, "k" * MAX_ECHO + "…"),
        ("\u202e" * 10 + "abc", "abc"),
    ],
)
def test_echoes_are_clipped_in_one_place(text, shown):
    assert clip(text) == shown


def test_a_hostile_key_gives_a_short_isolated_error_line(pack):
    key = "\u202e" + "k" * 4_000_000
    out = render.render("memory", {key: 1}, pack)
    assert not out["ok"]
    assert len(out["html"]) < 2000 and not BIDI_CONTROLS.search(out["html"])
    assert "<bdi>" + "k" * MAX_ECHO + "…</bdi>" in out["html"]


def test_a_known_field_keeps_its_translated_label_unisolated(pack):
    out = render.render("memory", {"seq_len": "abc"}, pack)
    line = out["html"].split("<li>")[1]
    assert "<bdi>" not in line and l10n.Translator(pack)("Sequence length") in line


def test_an_imported_label_is_stripped_and_isolated(pack):
    out = results.import_result("memory", (BAD / BIDI_LABEL).read_bytes(), pack)
    assert out["ok"]
    assert not BIDI_CONTROLS.search(out["html"] + out["summary"])
    assert f"<bdi>{plain(BIDI_LABEL_TEXT)}</bdi>" in out["html"]
    json.dumps(out)


def test_a_hostile_key_in_a_file_is_clipped_and_isolated_in_the_panel(pack):
    data = json.loads((BAD / BIDI_LABEL).read_text(encoding="utf-8"))
    data["\u202e" + "k" * 4_000_000] = 1
    out = results.import_result("memory", json.dumps(data).encode(), pack)
    assert not out["ok"] and len(out["html"]) < 5000
    assert not BIDI_CONTROLS.search(out["html"] + " ".join(out["errors"]))
    assert "<bdi>/" + "k" * (MAX_ECHO - 1) + "…</bdi>" in out["html"]


def test_the_results_page_strips_and_isolates_every_file_string(pack):
    data = json.loads((BAD / BIDI_LABEL).read_text(encoding="utf-8"))
    data["environment"]["device_name"] = "\u202eH100"
    page = results.results_page([("\u2067run.json", data)], pack)
    # The run's date is the locale's CLDR pattern, whose marks are its own (Arabic: 01\u200f/12\u200f/2026).
    assert not BIDI_CONTROLS.search(re.sub(r'<bdi class="guide-date"[^>]*>[^<]*</bdi>', "", page))
    assert f"<bdi>{plain(BIDI_LABEL_TEXT)}</bdi>" in page and "<code><bdi>run.json</bdi></code>" in page
