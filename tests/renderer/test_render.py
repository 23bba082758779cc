"""render.render: the one function the build and the browser worker call."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

import calculators
from calculators import N_, Input, register
from guidekit import l10n, render
from guidekit.site.locale_pack import locale_pack

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"


@pytest.fixture(params=("es", "ja", "ar"))
def pack(request):
    return locale_pack(request.param, LOCALES_DIR)


@pytest.mark.parametrize("name", ["memory", "cost"])
def test_defaults_render_a_headline_and_match_the_boundary(name, pack):
    out = render.render(name, {}, pack)
    assert out["ok"] and out["errors"] == []
    assert out["response"] == calculators.compute(name, {})
    assert out["summary"]
    json.dumps(out)  # crosses the worker boundary as JSON


def test_bad_input_gives_localized_field_errors_and_no_number(pack):
    out = render.render("memory", {"micro_batch": "-3", "seq_len": "abc"}, pack)
    assert not out["ok"]
    fields = {e["field"]: e["message"] for e in out["errors"]}
    assert set(fields) == {"micro_batch", "seq_len"}
    t = l10n.Translator(pack)
    expected = t(calculators.ERROR_CODES["not_a_number"])
    assert fields["seq_len"] == expected
    assert "guide-num" not in out["html"]


@pytest.fixture
def hostile_calculator():
    """A calculator whose labels and output carry markup, as a careless translation might."""
    mod = types.ModuleType("hostile_calc")
    mod.NAME, mod.TITLE = "hostile", N_("<b>Hostile</b>")
    mod.INPUTS = (Input("x", "int", 1, N_("<img src=x onerror=alert(1)>"), min=0, max=9),)
    mod.run = lambda values: {
        "display": [
            {
                "kind": "metrics",
                "title": "<script>alert(1)</script>",
                "items": [{"label": "<i>label</i>", "value": values["x"], "unit": "count", "status": None}],
            },
            {
                "kind": "table",
                "title": "t",
                "columns": [{"label": "c", "unit": "raw"}],
                "rows": [["<svg onload=alert(1)>"]],
            },
            {"kind": "notes", "items": [{"msg": "{p}", "params": {"p": "<a href='javascript:alert(1)'>x</a>"}}]},
        ]
    }
    sys.modules["hostile_calc"] = mod
    register(mod)
    yield mod
    del sys.modules["hostile_calc"]


def test_every_string_is_escaped(hostile_calculator, pack):
    out = render.render("hostile", {"x": "5"}, pack)
    html = out["html"].replace("\u00a0", " ")  # a short name's spaces are no-break; the escaping is the point
    for payload in ("<script>", "<i>", "<svg onload", "<a href"):
        assert payload not in html
    assert "&lt;script&gt;" in html and "&lt;svg onload=alert(1)&gt;" in html
    bad = render.render("hostile", {"x": "99"}, pack)
    assert "<img" not in bad["html"] and "&lt;img" in bad["html"]


def test_chart_mirrors_for_right_to_left():
    ltr = render.render("memory", {}, locale_pack("es", LOCALES_DIR))["html"]
    rtl = render.render("memory", {}, locale_pack("ar", LOCALES_DIR))["html"]
    assert 'text-anchor="start"' in ltr and 'text-anchor="end"' not in ltr.split("<svg", 1)[1].split("</svg>")[0]
    assert 'text-anchor="end"' in rtl.split("<svg", 1)[1].split("</svg>")[0]


def test_an_unknown_choice_names_the_allowed_ones_as_the_menu_does(pack):
    """The boundary lists choice ids (the CLI prints them); the page names them by their labels,
    translated, so a reader who followed a stale link sees "Plan más barato", not "best"."""
    t = l10n.Translator(pack)
    out = render.render("cost", {"gpu": "b300", "term": "forever"}, pack)
    fields = {e["field"]: e["message"] for e in out["errors"]}
    assert set(fields) == {"gpu", "term"}
    assert "H200 SXM 141 GB" in fields["gpu"] and "h200-141gb" not in fields["gpu"]
    assert t("Cheapest plan") in fields["term"] and "best" not in fields["term"]
    assert t("Cheapest plan") != "Cheapest plan"  # translated in every locale, so the check can tell


@pytest.mark.parametrize("name", ["memory", "cost"])
def test_no_two_columns_of_a_table_share_a_header(name, pack):
    """Arabic wrote "Throughput is" (whose cells say measured or estimated) as «الإنتاجية», the
    header of the throughput column beside it: two columns a reader and a screen reader could not
    tell apart."""
    out = render.render(name, {"term": "1w"} if name == "cost" else {}, pack)
    tables = re.findall(r"<thead>(.*?)</thead>", out["html"])
    assert tables
    for head in tables:
        headers = re.findall(r'<th scope="col">(.*?)</th>', head)
        assert len(headers) == len(set(headers)) > 1, headers


from guidekit.l10n._isolate import plain  # noqa: E402


@pytest.mark.parametrize(
    ("lang", "fits", "misses"),
    [
        ("es", "Cabe en 1 × H100 SXM 80 GB", "No cabe en 1 × H100 SXM 80 GB"),
        ("ja", "1 × H100 SXM 80 GB に収まります", "1 × H100 SXM 80 GB には収まりません"),
        ("ar", "تتسع 1 × H100 SXM 80 GB للتشغيل", "لا تتسع 1 × H100 SXM 80 GB للتشغيل"),
    ],
)
def test_the_verdict_opens_the_result_and_is_the_headline(lang, fits, misses):
    """Issue 33: the answer first, one sentence in the reader's language, its figures localized and
    the alternatives joined as the locale joins them."""
    pack = locale_pack(lang, LOCALES_DIR)
    out = render.render("memory", {}, pack)
    first = re.match(
        r'<section class="guide-block guide-block--verdict"><p class="guide-verdict" data-status="ok">'
        r"([^<]*)</p>",
        out["html"],
    )
    # A card's name keeps its words together (no-break spaces): the line never breaks inside it.
    assert "H100\u00a0SXM\u00a080\u00a0GB" in first.group(1) and "H100 SXM" not in first.group(1)
    spaced = lambda text: plain(text).replace("\u00a0", " ")  # noqa: E731
    assert first and spaced(first.group(1)).startswith(fits) and out["summary"] == first.group(1)
    out = render.render("memory", {"seq_len": 8192}, pack)
    assert '<p class="guide-verdict" data-status="bad">' in out["html"].split("</section>")[0]
    assert spaced(out["summary"]).startswith(misses)
    fmt = l10n.NumberFormat(pack)
    # The figure needed as the locale writes it, isolated left to right: Arabic showed "GB 84.7".
    assert "\u2066" + fmt.unit("gb", 84.73927).replace(" ", "\u00a0") + "\u2069" in out["summary"]
    assert "{" not in out["summary"] and "\u2066H200\u00a0SXM\u00a0141\u00a0GB\u2069" in out["summary"]
    joined = fmt.join(["a", "b"], "or")  # "a o b", "a または b" (spaced beside Latin), "a أو b"
    assert joined.split("a", 1)[1].split("b")[0].strip() in plain(out["summary"])


@pytest.mark.parametrize(
    ("lang", "margin", "fragmentation"),
    [
        ("es", "fracción, 0–0,9", "fracción, 0–1"),
        ("ja", "割合、0〜0.9", "割合、0〜1"),
        ("ar", "نسبة، 0–0.9", "نسبة، 0–1"),
    ],
)
def test_a_share_label_states_the_range_the_rule_checks(lang, margin, fragmentation):
    """The reserve's label said 0–1 while the rule refused anything above 0.9 (issue 33, item 6)."""
    from guidekit.site.markers.calculator_embed import unit_texts

    texts = unit_texts(calculators.describe("memory")["inputs"], locale_pack(lang, LOCALES_DIR))
    assert texts["margin"] == margin and texts["fragmentation"] == fragmentation
