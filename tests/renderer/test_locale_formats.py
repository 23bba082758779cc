"""Lists, directions, units and plans as each locale writes them (issue 14, "locale-correct formatting").

Lists follow Babel's `format_list` (the reference); Arabic figures read number first, in the GB the
pages' prose writes; a one-term plan is the term alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.lists import format_list
from jinja2 import DictLoader, Environment

import calculators
from gpuguide.markers.catalog_table import render_table
from gpuguide.model_config import import_model_config
from gpuguide.results._messages import shown_params
from guidekit import l10n, render
from guidekit.l10n import Localizer, NumberFormat, Translator
from guidekit.l10n._isolate import direction
from guidekit.render._chart import bars_svg
from guidekit.render._figures import figure, num
from tests.conftest import locale_packs

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
PACKS = locale_packs()
ITEMS = ["A100", "H100 SXM", "H200 SXM", "MI300X", "RTX 6000 Ada"]


@pytest.mark.parametrize("style", ["standard", "or"])
@pytest.mark.parametrize("count", [1, 2, 3, 5])
@pytest.mark.parametrize("locale", sorted(PACKS))
def test_lists_join_as_babel_does(locale, count, style):
    """Babel's list, with the space Japanese typesetting puts where the pattern's kana meets a Latin item."""
    fmt = NumberFormat(PACKS[locale])
    expected = format_list(ITEMS[:count], style=style, locale=locale)
    if locale == "ja":  # the items are Latin: every kana next to a letter or digit is the pattern's
        expected = re.sub(r"(?<=[\u3040-\u30ff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u3040-\u30ff])", " ", expected)
    assert fmt.join(ITEMS[:count], style) == expected


def test_japanese_items_join_without_spaces_and_latin_ones_with():
    fmt = NumberFormat(PACKS["ja"])
    assert fmt.join(["オンデマンド", "スポット"], "or") == "オンデマンドまたはスポット"
    assert fmt.join(["cost", "memory"], "or") == "cost または memory"
    assert fmt.join(["bf16", "fp16", "fp32"], "or") == "bf16、fp16、または fp32"  # none beside 、


def test_a_list_item_is_never_read_as_a_pattern():
    assert NumberFormat(PACKS["es"]).join(["{0}", "{1}", "{x}"]) == "{0}, {1} y {x}"


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("es", "Elige una de estas opciones: Ajuste completo, LoRA o QLoRA (base cuantizada + LoRA)."),
        (
            "ja",
            "次のいずれかを選んでください：フルファインチューニング、LoRA、または QLoRA（量子化したベース + LoRA）。",
        ),
        ("ar", "اختر واحدًا مما يلي: الضبط الدقيق الكامل أو LoRA أو QLoRA (نموذج أساسي مكمَّم + LoRA)."),
    ],
)
def test_choices_in_an_error_are_an_or_list(locale, expected):
    """The allowed values by the labels the menu shows, translated, joined as alternatives."""
    out = render.render("memory", {"method": "nope"}, PACKS[locale])
    assert [e["message"] for e in out["errors"] if e["field"] == "method"] == [expected]


def test_an_unsupported_model_type_lists_the_supported_ones_in_arabic():
    pack = PACKS["ar"]
    out = import_model_config("memory", '{"model_type": "nope"}', Localizer(pack))
    assert not out["ok"] and " أو " in out["errors"][0] and ", " not in out["errors"][0]


def test_the_build_writes_the_declared_pack_shape_and_english_has_it_too():
    """The pack's keys are declared once (`l10n.LocalePack`): the build writes every one for every
    locale, and `Localizer.english()` has the same shape (without dates, which the CLI never shows)."""
    declared = l10n.LocalePack.__required_keys__ | l10n.LocalePack.__optional_keys__
    for locale, pack in PACKS.items():
        assert set(pack) == declared, locale
    english = Localizer.english()
    assert set(english.pack) == l10n.LocalePack.__required_keys__
    assert (english.locale, english.dir) == ("en", "ltr") and Localizer.english() is english
    assert english.fmt.memo is None and Localizer(PACKS["ar"], memo=True).fmt.memo == {}
    assert Localizer(PACKS["ar"]).dir == "rtl"


def test_problem_choices_are_joined_per_locale_and_in_english_for_the_build():
    params = {"choices": ["cpu", "cuda", "rocm"]}
    assert shown_params("enum", params, Localizer.english())["choices"] == "cpu, cuda, or rocm"
    pack = PACKS["ar"]
    assert shown_params("enum", params, Localizer(pack))["choices"] == "cpu أو cuda أو rocm"


@pytest.mark.parametrize(
    ("text", "way"),
    [
        ("35.7 GB", "ltr"),
        ("3 أيام", "rtl"),
        ("\u200f96.80\xa0US$", "rtl"),
        ("1,234", "ltr"),
        ("12 س", "rtl"),
        ("", "ltr"),
    ],
)
def test_a_figure_takes_the_direction_of_its_own_script(text, way):
    assert direction(text) == way
    assert f'dir="{way}"' in num(text)


@pytest.mark.parametrize(
    ("unit", "value", "shown", "way"),
    [
        ("bytes", 35.7e9, "35.7 GB", "ltr"),  # not CLDR's «غ.ب», forced left to right and read backwards
        ("gb", 80, "80 GB", "ltr"),
        ("hours", 23.7, "23.7 س", "rtl"),
        ("days", 3, "3 أيام", "rtl"),
        # CLDR's right-to-left mark: the amount first, read right to left; a left-to-right mark keeps «US$» whole.
        ("usd", 96.8, "\u200f96.80\xa0US$\u200e", "rtl"),
    ],
)
def test_arabic_figures_read_number_first_with_the_prose_gb(unit, value, shown, way):
    pack = PACKS["ar"]
    text = figure(value, unit, Localizer(pack))
    assert text == shown and direction(text) == way


def test_the_arabic_tokens_per_second_figure_reads_right_to_left():
    pack = PACKS["ar"]
    text = figure(7741, "tokens_per_s", Localizer(pack))
    assert text.startswith("7,741") and direction(text) == "rtl"


@pytest.mark.parametrize("locale", sorted(PACKS))
def test_gb_matches_the_prose_in_every_locale(locale):
    fmt = NumberFormat(PACKS[locale])
    assert fmt.unit("gb", 24, "24") == "24 GB"


def test_arabic_results_show_gb_and_figures_with_their_direction():
    html = render.render("memory", {}, PACKS["ar"])["html"]
    assert "غ.ب" not in html
    figures = re.findall(r'<bdi class="guide-num" dir="(ltr|rtl)">([^<]*)</bdi>', html)
    assert figures and all(way == direction(text) for way, text in figures)
    assert any(text.endswith(" GB") and way == "ltr" for way, text in figures)


def test_a_right_to_left_chart_value_keeps_its_edge():
    """SVG reads text-anchor in the text's own direction: a right-to-left value swaps it, so both
    kinds of value end at the same mirrored x, beside the bar."""
    svg = bars_svg("t", [("التدريب", 10, "21.5 س"), ("الأوزان", 5, "16 GB")], rtl=True)
    assert re.search(r'text-anchor="start" direction="rtl" unicode-bidi="isolate">التدريب<', svg)
    rtl_value = re.search(r'<text class="guide-chart__value"[^>]*text-anchor="(\w+)" direction="rtl"', svg)
    ltr_value = re.search(r'<text class="guide-chart__value"[^>]*text-anchor="(\w+)" direction="ltr"', svg)
    assert rtl_value.group(1) == "start" and ltr_value.group(1) == "end"


def test_the_arabic_catalog_table_writes_gb_left_to_right():
    env = Environment(
        loader=DictLoader(
            {"partials/catalog-table.html": ("{% for row in rows %}{{ row.memory }}|{{ row.bandwidth }}\n{% endfor %}")}
        ),
        autoescape=True,
    )
    html = render_table(env, PACKS["ar"])
    assert "غ.ب" not in html and '<bdi class="guide-num" dir="ltr">80 GB</bdi>' in html
    assert "&lt;bdi" not in html  # the cells are HTML, not escaped text


@pytest.mark.parametrize(
    ("locale", "one", "two"),
    [
        ("es", "1 día", "2 × 1 día"),
        ("ja", "1 日", "1 日 × 2"),
        ("ar", "يوم واحد", "2 × يوم واحد"),
    ],
)
def test_a_single_term_is_its_label_alone(locale, one, two):
    pack = PACKS[locale]
    loc = Localizer(pack)
    assert figure([[1, "1 day"]], "plan", loc) == one  # not «1 × يوم واحد» ("1 × one day")
    assert figure([[2, "1 day"]], "plan", loc) == two
    # the locale's order of count and term (Japanese puts the term first: 「1 日 × 2」)
    assert figure([[2, "1 week"], [1, "1 day"]], "plan", loc) == f"{two.replace(one, loc.t('1 week'))} + {one}"


@pytest.mark.parametrize(
    ("locale", "layers", "expected"),
    [
        ("es", 1, "1 capa,"),
        ("es", 32, "32 capas,"),
        ("ar", 1, "طبقة واحدة"),
        ("ar", 2, "طبقتان"),
        ("ar", 3, "3 طبقات"),
        ("ar", 32, "32 طبقةً"),
    ],
)
def test_the_imported_layer_count_reads_right(locale, layers, expected):
    pack = PACKS[locale]
    config = (
        '{"model_type": "llama", "hidden_size": 512, "num_hidden_layers": %d, "num_attention_heads": 8, '
        '"intermediate_size": 1024, "vocab_size": 1000}' % layers
    )
    out = import_model_config("memory", config, Localizer(pack))
    assert out["ok"], out["errors"]
    assert expected in out["summary"]


def _derived_note(inputs: dict) -> dict:
    notes = next(b for b in calculators.compute("memory", inputs)["result"]["display"] if b["kind"] == "notes")
    return next(i for i in notes["items"] if "derived" in i["params"])


@pytest.mark.parametrize(
    ("locale", "count", "expected"),
    [
        ("es", "1", "implican 1 parámetro;"),
        ("es", "8", "implican 8 parámetros;"),
        ("ar", "1", "معلمة واحدة"),
        ("ar", "3", "3 معلمات"),
        ("ar", "8030261200", "8030261200 معلمة؛"),
        ("ar", "8030261248", "8030261248 معلمةً؛"),
    ],
)
def test_the_derived_parameter_note_is_a_count_string(locale, count, expected):
    item = _derived_note({"model": "custom", "params": 1_000_000_000})
    assert item["msg"]["n"] == "derived"
    assert expected in Translator(PACKS[locale])(item["msg"], n=count, derived=count)
