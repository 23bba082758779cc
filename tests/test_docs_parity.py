"""Structural parity of the guide across locales, read straight from the Markdown (no site build).

Spanish (docs/es) is the source. Every page there must exist in every translation with the same skeleton:
heading anchors in the same order, and the same number of tables, fenced code blocks, links, admonitions,
content tabs and build markers; relative links must point at the same pages. Each page also needs front
matter with a title and a description, an H1 that repeats the title, and an explicit anchor on every heading,
so links between locales and from the calculators survive translation.

Run only some pages with `-k`, e.g. `pytest tests/test_docs_parity.py -k "index or glossary"`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
SOURCE = "es"
TRANSLATIONS = ("ja", "ar")
# The content rules' range for a meta description, in display columns: a search result has room for about
# as many full-width Japanese characters as half that many Latin letters, so wide characters count twice.
DESCRIPTION_COLUMNS = (80, 160)

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,12}(#{1,6})\s+(.*?)\s*#*\s*$")
ANCHOR = re.compile(r"\{[^{}]*#([A-Za-z0-9_-]+)[^{}]*\}\s*$")
ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s+([A-Za-z][\w-]*)")
TAB = re.compile(r'^\s*===\+?\s+"')
MARKER = re.compile(r"^\s*<!--\s*(catalog-table|calculator:\s*[\w-]+)\s*-->\s*$")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
LINK_DEFINITION = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
FRONT_MATTER_FIELD = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*?)\s*$")


@dataclass
class Skeleton:
    """What must match between a page and its translations, plus what each page must carry on its own."""

    front_matter: dict[str, str] = field(default_factory=dict)
    headings: list[tuple[int, str | None, str]] = field(default_factory=list)  # (level, anchor, text)
    tables: int = 0
    code_blocks: int = 0
    links: list[str] = field(default_factory=list)
    admonitions: list[str] = field(default_factory=list)
    tabs: int = 0
    markers: list[str] = field(default_factory=list)

    @property
    def heading_ids(self) -> list[str]:
        return [f"h{level} #{anchor}" for level, anchor, _ in self.headings]

    @property
    def internal_links(self) -> list[str]:
        """Relative links to other pages or anchors, sorted: translations may reorder a sentence."""
        return sorted(target for target in self.links if not re.match(r"^[a-z][a-z0-9+.-]*:", target))


def display_columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def split_front_matter(text: str) -> tuple[dict[str, str], list[str]]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, lines
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            fields = {}
            for line in lines[1:end]:
                match = FRONT_MATTER_FIELD.match(line)
                if match:
                    fields[match[1]] = match[2].strip().strip("\"'")
            return fields, lines[end + 1 :]
    return {}, lines


def is_table_rule(line: str) -> bool:
    """The delimiter row under a table header, e.g. `| --- | :---: |`."""
    stripped = line.strip()
    return "|" in stripped and "-" in stripped and set(stripped) <= set("|-: ")


def parse(text: str) -> Skeleton:
    front_matter, lines = split_front_matter(text)
    page = Skeleton(front_matter=front_matter)
    fence: str | None = None
    previous = ""
    for line in lines:
        opening = FENCE.match(line)
        if fence is not None:
            # Inside a fenced block nothing counts, until a fence of the same kind at least as long closes it.
            if opening and opening[1][0] == fence[0] and len(opening[1]) >= len(fence) and not line.strip()[len(opening[1]) :].strip():
                fence = None
            continue
        if opening:
            fence = opening[1]
            page.code_blocks += 1
            continue
        if heading := HEADING.match(line):
            anchor = ANCHOR.search(heading[2])
            title = ANCHOR.sub("", heading[2]).strip()
            page.headings.append((len(heading[1]), anchor[1] if anchor else None, title))
        if is_table_rule(line) and "|" in previous:
            page.tables += 1
        if admonition := ADMONITION.match(line):
            page.admonitions.append(admonition[1])
        if TAB.match(line):
            page.tabs += 1
        if marker := MARKER.match(line):
            page.markers.append(re.sub(r"\s+", " ", marker[1]))
        if definition := LINK_DEFINITION.match(line):
            page.links.append(definition[1])
        else:
            prose = CODE_SPAN.sub("", line)
            page.links += INLINE_LINK.findall(prose) + AUTOLINK.findall(prose)
        if line.strip():
            previous = line
    return page


def first_difference(expected: list, actual: list) -> str:
    for index, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            return f"first difference at #{index + 1}: {SOURCE} has {want!r}, translation has {got!r}"
    longer, label = (expected, SOURCE) if len(expected) > len(actual) else (actual, "translation")
    return f"{len(expected)} vs {len(actual)}; only {label} has {longer[min(len(expected), len(actual)):]!r}"


def differences(source: Skeleton, translation: Skeleton) -> list[str]:
    """One readable line per feature that differs between the Spanish page and a translation."""
    problems = []
    if source.heading_ids != translation.heading_ids:
        problems.append("headings (level and anchor, in order): " + first_difference(source.heading_ids, translation.heading_ids))
    for feature in ("tables", "code_blocks", "tabs"):
        want, got = getattr(source, feature), getattr(translation, feature)
        if want != got:
            problems.append(f"{feature.replace('_', ' ')}: {SOURCE} has {want}, translation has {got}")
    if len(source.links) != len(translation.links):
        problems.append(f"links: {SOURCE} has {len(source.links)}, translation has {len(translation.links)}")
    if source.internal_links != translation.internal_links:
        missing = Counter(source.internal_links) - Counter(translation.internal_links)
        extra = Counter(translation.internal_links) - Counter(source.internal_links)
        problems.append(f"relative link targets: missing {sorted(missing.elements())}, extra {sorted(extra.elements())}")
    if source.admonitions != translation.admonitions:
        problems.append("admonitions (type, in order): " + first_difference(source.admonitions, translation.admonitions))
    if source.markers != translation.markers:
        problems.append("build markers: " + first_difference(source.markers, translation.markers))
    return problems


def own_problems(page: Skeleton) -> list[str]:
    """Rules every page must meet by itself, in any locale."""
    problems = []
    title = page.front_matter.get("title", "")
    description = page.front_matter.get("description", "")
    if not title:
        problems.append("front matter has no non-empty `title`")
    if not description:
        problems.append("front matter has no non-empty `description`")
    elif not DESCRIPTION_COLUMNS[0] <= (width := display_columns(description)) <= DESCRIPTION_COLUMNS[1]:
        low, high = DESCRIPTION_COLUMNS
        problems.append(f"description is {width} columns wide (wide characters count 2), expected {low}-{high}")
    h1 = [text for level, _, text in page.headings if level == 1]
    if len(h1) != 1:
        problems.append(f"expected exactly one H1, found {len(h1)}")
    elif title and h1[0] != title:
        problems.append(f"H1 {h1[0]!r} differs from the front-matter title {title!r}")
    unanchored = [text for _, anchor, text in page.headings if anchor is None]
    if unanchored:
        problems.append(f"headings without an explicit {{#anchor}}: {unanchored}")
    duplicated = [anchor for anchor, count in Counter(a for _, a, _ in page.headings if a).items() if count > 1]
    if duplicated:
        problems.append(f"anchors used twice: {duplicated}")
    return problems


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
    problems = differences(read(SOURCE, page), read(locale, page))
    assert not problems, f"{locale}/{page} differs from {SOURCE}/{page}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", SOURCE_PAGES, ids=page_id)
@pytest.mark.parametrize("locale", ALL_LOCALES)
def test_page_front_matter_and_anchors(locale, page):
    if not (DOCS / locale / page).is_file():
        pytest.fail(f"{locale}/{page}: missing")
    problems = own_problems(read(locale, page))
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
    problems = "\n".join(own_problems(parse("---\ndescription: short\n---\n# Page\n\n## Part {#part}\n\n## Again {#part}\n")))
    assert "no non-empty `title`" in problems
    assert "description is 5 columns wide" in problems
    assert "without an explicit {#anchor}: ['Page']" in problems
    assert "anchors used twice: ['part']" in problems


def test_description_width_counts_wide_characters_twice():
    assert display_columns("GPU選び") == 3 + 4
    assert display_columns("اختيار GPU") == 10
