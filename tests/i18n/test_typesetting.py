"""The rendered-text checks of `guide-i18n status` (kind `typeset`): a space after a Japanese unit, and
right-to-left runs drawn out of order. Each fixture is a fault the 2026-12-05 reviews found by eye."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from guidekit.i18n import status, typesetting
from guidekit.i18n.project import Project

ROOT = Path(__file__).resolve().parents[2]


def lines_of(problems):
    return [(p.line, p.message) for p in problems]


# -- a space after a Japanese unit ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "作業に 15.9 時間 かかります。",  # the review's cost.md:38, as rendered
        "1 枚 で足ります。",
        "メモリは 2 つ と数えます。",
    ],
)
def test_a_space_after_a_japanese_unit_is_named_with_its_line(text):
    page = f"---\ntitle: t\n---\n\n# 見出し\n\n{text}\n"
    found = typesetting.unit_space_problems("ja", "docs/ja/x.md", page)
    assert [p.line for p in found] == [7], found
    assert "remove it" in found[0].message and found[0].kind == "typeset"


@pytest.mark.parametrize(
    "text",
    [
        "80 GB を使います。",  # a Latin unit keeps its space
        "GPU 1 枚あたり 2 時間かかります。",
        "`1 時間 かかる` はコードです。",
        "H100 では 3.2 倍速く動きます。",
    ],
)
def test_latin_units_code_and_unspaced_japanese_pass(text):
    assert typesetting.unit_space_problems("ja", "x.md", text) == []


def test_a_code_block_and_a_spaced_language_are_left_alone():
    block = "```text\n15.9 時間 かかります\n```\n"
    assert typesetting.unit_space_problems("ja", "x.md", block) == []
    assert typesetting.unit_space_problems("ko", "x.md", "15.9 시간 걸립니다") == []


def test_a_figure_marker_is_judged_by_what_the_build_writes_for_it():
    render = {"cost.default_hours": "20.4 時間", "cost.default_per_output": "$92.00"}.get
    page = (
        "作業に <!-- figure: cost.default_hours --> かかります。\n"
        "成果 1 件あたり <!-- figure: cost.default_per_output --> です。\n"
    )
    found = typesetting.unit_space_problems("ja", "docs/ja/cost.md", page, render)
    assert [(p.line, "cost.default_hours" in p.message) for p in found] == [(1, True)], found


def test_the_real_figures_render_as_the_build_renders_them():
    render = typesetting.figure_renderer(Project(ROOT), "ja")
    assert render("cost.default_hours").endswith("時間")
    assert not render("cost.h100_a100_peak_ratio").endswith("時間")
    assert render("no.such.figure") is None


@dataclass(frozen=True)
class OnePageChanged(Project):
    """This project with one page of one locale read from elsewhere."""

    changed: tuple[str, str, Path] = ("", "", Path())

    def page(self, locale: str, page: str) -> Path:
        if (locale, page) == self.changed[:2]:
            return self.changed[2]
        return super().page(locale, page)


def test_status_reports_the_reviewed_fault_on_the_cost_page_and_strict_fails(tmp_path):
    """The review's cost.md:38, put back: status names it, and a complete locale fails --strict on it."""
    page = (ROOT / "docs" / "ja" / "cost.md").read_text(encoding="utf-8")
    assert "<!-- figure: cost.default_hours -->かかります" in page
    broken = tmp_path / "cost.md"
    broken.write_text(
        page.replace("<!-- figure: cost.default_hours -->かかります", "<!-- figure: cost.default_hours --> かかります"),
        encoding="utf-8",
    )
    report = status.locale_report(OnePageChanged(ROOT, ("ja", "cost.md", broken)), "ja")
    typeset = [p for p in report.problems if p.kind == "typeset"]
    assert [(p.line, "cost.default_hours" in p.message) for p in typeset] == [(40, True)], typeset
    assert typeset[0] in report.blocking


# -- right to left: runs that are not isolated ----------------------------------------------------------


@pytest.mark.parametrize(
    "text, run",
    [
        ("تنخفض حصة كل بطاقة إلى نحو 1/N، أما التنشيطات", "1/N"),  # the review's index.md:127
        ("ويشرح القسم الخاص [بقاعدة +30–40%](#rule-of-thumb) لماذا", "+30–40%"),  # faq.md:43, in link text
        ("عرض نطاق 3.35 TB/s للبطاقة", "TB/s"),
        ("| مع هامش 30–40% | كبير |", "30–40%"),
    ],
)
def test_an_unisolated_run_in_arabic_prose_is_named(text, run):
    found = typesetting.isolation_problems("ar", "docs/ar/x.md", f"# عنوان\n\n{text}\n", "rtl")
    assert [p.line for p in found] == [3], found
    assert run in found[0].message and "guide-num" in found[0].message


@pytest.mark.parametrize(
    "text",
    [
        'إلى نحو <span class="guide-num">1/N</span>، أما',
        '[بقاعدة <span class="guide-num">+30–40%</span>](#rule-of-thumb)',
        "راجع [الصفحة](https://example.org/a/b+c) ثم `a/b` و<bdi>10%</bdi>",
        '<span lang="en" dir="ltr">tokens/s</span> و\u20661/N\u2069',
        "<!-- figure: cost.range_below --> و30 بطاقة",
    ],
)
def test_isolated_runs_code_targets_and_markers_pass(text):
    assert typesetting.isolation_problems("ar", "x.md", text, "rtl") == []


def test_a_heading_keeps_its_isolation_only_through_the_isolates():
    """The table of contents prints a heading's text without its tags (the review's #81)."""
    spanned = '## قاعدة <span class="guide-num">+30–40%</span>: تقدير سريع {#rule-of-thumb}'
    isolated = '## قاعدة <span class="guide-num">\u2066+30–40%\u2069</span>: تقدير سريع {#rule-of-thumb}'
    found = typesetting.isolation_problems("ar", "x.md", spanned, "rtl")
    assert len(found) == 1 and "U+2066" in found[0].message, found
    assert typesetting.isolation_problems("ar", "x.md", isolated, "rtl") == []


def test_left_to_right_pages_are_left_alone():
    assert typesetting.isolation_problems("es", "x.md", "hasta 1/N y +30–40%", "ltr") == []


@pytest.mark.parametrize("locale", ["ja", "ar"])
def test_the_published_pages_are_clean(locale):
    assert lines_of(typesetting.locale_problems(Project(ROOT), locale)) == []
