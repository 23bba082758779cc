"""Structural parity of the guide across locales, read straight from the Markdown (no site build).

Spanish (docs/es) is the source. Every page there must exist in every translation with the same skeleton:
heading anchors in the same order, and the same number of tables, fenced code blocks, links, admonitions,
content tabs and build markers; relative links must point at the same pages. Each page also needs front
matter with a title and a description, an H1 that repeats the title, and an explicit anchor on every heading,
so links between locales and from the calculators survive translation.

Run only some pages with `-k`, e.g. `pytest tests/test_docs_parity.py -k "index or glossary"`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guidekit.i18n.project import Project
from guidekit.i18n.structure import Skeleton, differences, display_columns, own_problem_lines, parse

DOCS = Path(__file__).resolve().parents[1] / "docs"
Project(DOCS.parent)  # loads mkdocs.yml's build extensions: this guide's markers are theirs
SOURCE = "es"
TRANSLATIONS = ("ja", "ar")


def pages(locale: str) -> list[str]:
    folder = DOCS / locale
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*.md")) if folder.is_dir() else []


def read(locale: str, page: str) -> Skeleton:
    return parse((DOCS / locale / page).read_text(encoding="utf-8"))


SOURCE_PAGES = pages(SOURCE)
ALL_LOCALES = (SOURCE, *TRANSLATIONS)


def page_id(page: str) -> str:
    return page.removesuffix(".md")


def test_source_locale_has_pages():
    assert SOURCE_PAGES, f"no Markdown pages under {DOCS / SOURCE}"


@pytest.mark.parametrize("locale", TRANSLATIONS)
def test_translation_has_no_page_without_source(locale):
    orphans = sorted(set(pages(locale)) - set(SOURCE_PAGES))
    assert not orphans, f"{locale}: pages with no {SOURCE} source: {orphans}"


@pytest.mark.parametrize("page", SOURCE_PAGES, ids=page_id)
@pytest.mark.parametrize("locale", TRANSLATIONS)
def test_translation_matches_source_structure(locale, page):
    target = DOCS / locale / page
    assert target.is_file(), f"{locale}/{page}: missing (every page must exist in {', '.join(ALL_LOCALES)})"
    problems = differences(read(SOURCE, page), read(locale, page), SOURCE)
    assert not problems, f"{locale}/{page} differs from {SOURCE}/{page}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", SOURCE_PAGES, ids=page_id)
@pytest.mark.parametrize("locale", ALL_LOCALES)
def test_page_front_matter_and_anchors(locale, page):
    if not (DOCS / locale / page).is_file():
        pytest.fail(f"{locale}/{page}: missing")
    problems = [message for _, message in own_problem_lines(read(locale, page))]
    assert not problems, f"{locale}/{page}:\n  " + "\n  ".join(problems)


# The parser itself, on small cases whose answer is known.


def test_parse_counts_each_feature_and_ignores_fenced_content():
    page = parse(
        '---\ntitle: "T"\ndescription: D\n---\n\n# T {#top}\n\n## A {#a}\n\n| x | y |\n| --- | :-: |\n| 1 | 2 |\n\n'
        '```python\n# not a heading\n[not](a-link.md)\n```\n\n!!! note "N"\n    See [memory](memory.md#inputs) and `[x](code.md)`.\n\n'
        '=== "One"\n\n    ~~~\n    | - | - |\n    ~~~\n\n<!-- catalog-table -->\n\n<https://example.org/>\n'
        "![image](pic.png) [ref]: https://docs.pytorch.org/\n[def]: https://pytorch.org/\n"
    )
    assert page.front_matter == {"title": "T", "description": "D"}
    assert page.heading_ids == ["h1 #top", "h2 #a"]
    assert (page.tables, page.code_blocks, page.tabs) == (1, 2, 1)
    assert page.admonitions == ["note"]
    assert page.markers == ["catalog-table"]
    assert page.links == ["memory.md#inputs", "https://example.org/", "https://pytorch.org/"]


def test_differences_name_each_feature_that_differs():
    source = parse("# T {#t}\n\n## A {#a}\n\n[m](memory.md)\n\n!!! note\n    x\n\n```\ncode\n```\n")
    translation = parse("# T {#t}\n\n## B {#b}\n\n[m](cost.md)\n\n!!! warning\n    x\n")
    problems = "\n".join(differences(source, translation))
    assert "'h2 #a'" in problems and "'h2 #b'" in problems
    assert "code blocks: es has 1, translation has 0" in problems
    assert "missing ['memory.md'], extra ['cost.md']" in problems
    assert "admonitions" in problems
    assert differences(source, source) == []


def test_own_problems_catch_missing_title_anchor_and_short_description():
    page = parse("---\ndescription: short\n---\n# Page\n\n## Part {#part}\n\n## Again {#part}\n")
    problems = "\n".join(message for _, message in own_problem_lines(page))
    assert "no non-empty `title`" in problems
    assert "description is 5 columns wide" in problems
    assert "without an explicit {#anchor}: ['Page']" in problems
    assert "anchor #part used twice" in problems


def test_description_width_counts_wide_characters_twice():
    assert display_columns("GPU選び") == 3 + 4
    assert display_columns("اختيار GPU") == 10
