"""A page's skeleton, read straight from its Markdown: what must match between Spanish and a translation.

Heading anchors in order, and the number of tables, fenced code blocks, links, admonitions, content tabs
and build markers (`guidekit.site.markers`; computed figures in any order). Used by `guide-i18n status`, `guide-i18n stamp` and tests/test_docs_parity.py, so the
editor's command and CI judge a translation by the same rules.
Front matter and fenced blocks are read by `markdown`, the one scanner the i18n tools share.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from guidekit.site import markers

from .markdown import CODE_SPAN, scan, split_front_matter

# The content rules' range for a meta description, in display columns: a search result has room for about
# as many full-width Japanese characters as half that many Latin letters, so wide characters count twice.
DESCRIPTION_COLUMNS = (80, 160)

HEADING = re.compile(r"^\s{0,12}(#{1,6})\s+(.*?)\s*#*\s*$")
ANCHOR = re.compile(r"\{[^{}]*#([A-Za-z0-9_-]+)[^{}]*\}\s*$")
ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s+([A-Za-z][\w-]*)")
TAB = re.compile(r'^\s*===\+?\s+"')
INLINE_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
# A link to a glossary entry (glossary.md#term-…) is a locale's own help for a word its readers cannot guess
# (see terminology.py): not compared with the source.
GLOSSARY_ENTRY = re.compile(r"(?:^|/)glossary\.md#term-")
LINK_DEFINITION = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
# Any HTML comment in prose: one the build does not know (a misspelt marker) would vanish silently.
COMMENT = re.compile(r"<!--.*?-->")


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
    figures: list[str] = field(default_factory=list)  # sorted: a translation may reorder a sentence
    # Where things are, 1-based, so a report can send the editor to the line.
    heading_lines: list[int] = field(default_factory=list)
    front_matter_lines: dict[str, int] = field(default_factory=dict)
    unknown_comments: list[tuple[int, str]] = field(default_factory=list)

    @property
    def heading_ids(self) -> list[str]:
        return [f"h{level} #{anchor}" for level, anchor, _ in self.headings]

    @property
    def internal_links(self) -> list[str]:
        """Relative links to other pages or anchors, sorted: translations may reorder a sentence."""
        return sorted(target for target in self.links if not re.match(r"^[a-z][a-z0-9+.-]*:", target))


def display_columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def is_table_rule(line: str) -> bool:
    """The delimiter row under a table header, e.g. `| --- | :---: |`."""
    stripped = line.strip()
    return "|" in stripped and "-" in stripped and set(stripped) <= set("|-: ")


def heading_of(line: str) -> tuple[int, str | None, str] | None:
    """(level, anchor, text) when `line` is an ATX heading (outside a fenced block)."""
    heading = HEADING.match(line)
    if not heading:
        return None
    anchor = ANCHOR.search(heading[2])
    return len(heading[1]), anchor[1] if anchor else None, ANCHOR.sub("", heading[2]).strip()


def parse(text: str) -> Skeleton:
    front_matter, lines = split_front_matter(text)
    page = Skeleton(front_matter=front_matter)
    offset = len(text.splitlines()) - len(lines)  # lines before the body: the front matter's
    for number, raw in enumerate(text.splitlines()[1:offset], start=2):
        key = raw.split(":", 1)[0].strip()
        if key in front_matter and key not in page.front_matter_lines:
            page.front_matter_lines[key] = number
    previous = ""
    for number, (kind, line) in enumerate(scan(lines), start=offset + 1):
        # Inside a fenced block nothing counts but the block itself.
        page.code_blocks += kind == "open"
        if kind != "text":
            continue
        if heading := heading_of(line):
            page.headings.append(heading)
            page.heading_lines.append(number)
        page.unknown_comments += [
            (number, comment)
            for comment in COMMENT.findall(line)
            if not any(marker.pattern.fullmatch(comment) for marker in markers.table())
        ]
        if is_table_rule(line) and "|" in previous:
            page.tables += 1
        if admonition := ADMONITION.match(line):
            page.admonitions.append(admonition[1])
        if TAB.match(line):
            page.tabs += 1
        if marker := markers.block_key(line):
            page.markers.append(marker)
        page.figures = sorted(page.figures + markers.figure_names(line))
        if definition := LINK_DEFINITION.match(line):
            page.links.append(definition[1])
        else:
            prose = CODE_SPAN.sub("", line)
            page.links += [target for target in INLINE_LINK.findall(prose) if not GLOSSARY_ENTRY.search(target)]
            page.links += AUTOLINK.findall(prose)
        if line.strip():
            previous = line
    return page


def first_difference(expected: list, actual: list, source: str = "es") -> str:
    for index, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            return f"first difference at #{index + 1}: {source} has {want!r}, translation has {got!r}"
    longer, label = (expected, source) if len(expected) > len(actual) else (actual, "translation")
    return f"{len(expected)} vs {len(actual)}; only {label} has {longer[min(len(expected), len(actual)) :]!r}"


def differences(source: Skeleton, translation: Skeleton, source_locale: str = "es") -> list[str]:
    """One readable line per feature that differs between the source page and a translation."""
    label = source_locale
    problems = []
    if source.heading_ids != translation.heading_ids:
        problems.append(
            "headings (level and anchor, in order): "
            + first_difference(source.heading_ids, translation.heading_ids, label)
        )
    for feature in ("tables", "code_blocks", "tabs"):
        want, got = getattr(source, feature), getattr(translation, feature)
        if want != got:
            problems.append(f"{feature.replace('_', ' ')}: {label} has {want}, translation has {got}")
    if len(source.links) != len(translation.links):
        problems.append(f"links: {label} has {len(source.links)}, translation has {len(translation.links)}")
    if source.internal_links != translation.internal_links:
        missing = Counter(source.internal_links) - Counter(translation.internal_links)
        extra = Counter(translation.internal_links) - Counter(source.internal_links)
        problems.append(
            f"relative link targets: missing {sorted(missing.elements())}, extra {sorted(extra.elements())}"
        )
    if source.admonitions != translation.admonitions:
        problems.append(
            "admonitions (type, in order): " + first_difference(source.admonitions, translation.admonitions, label)
        )
    if source.markers != translation.markers:
        problems.append("build markers: " + first_difference(source.markers, translation.markers, label))
    if source.figures != translation.figures:
        problems.append(f"computed figures: {label} has {source.figures}, translation has {translation.figures}")
    return problems


def difference_line(source: Skeleton, translation: Skeleton) -> int | None:
    """The translation's line of the first heading that differs from the source's, if headings differ."""
    for index, (want, got) in enumerate(zip(source.heading_ids, translation.heading_ids)):
        if want != got:
            return translation.heading_lines[index]
    extra = len(translation.heading_ids) > len(source.heading_ids)
    return translation.heading_lines[len(source.heading_ids)] if extra else None


def own_problem_lines(page: Skeleton) -> list[tuple[int | None, str]]:
    """Rules every page must meet by itself, in any locale: (line or None, message)."""
    problems: list[tuple[int | None, str]] = []
    title = page.front_matter.get("title", "")
    description = page.front_matter.get("description", "")
    fm = page.front_matter_lines
    if not title:
        problems.append((fm.get("title"), "front matter has no non-empty `title`"))
    if not description:
        problems.append((fm.get("description"), "front matter has no non-empty `description`"))
    elif not DESCRIPTION_COLUMNS[0] <= (width := display_columns(description)) <= DESCRIPTION_COLUMNS[1]:
        low, high = DESCRIPTION_COLUMNS
        problems.append(
            (fm["description"], f"description is {width} columns wide (wide characters count 2), expected {low}-{high}")
        )
    h1 = [(line, text) for (level, _, text), line in zip(page.headings, page.heading_lines) if level == 1]
    if len(h1) != 1:
        problems.append((h1[1][0] if h1 else None, f"expected exactly one H1, found {len(h1)}"))
    elif title and h1[0][1] != title:
        problems.append((h1[0][0], f"H1 {h1[0][1]!r} differs from the front-matter title {title!r}"))
    unanchored = [(line, text) for (_, anchor, text), line in zip(page.headings, page.heading_lines) if anchor is None]
    if unanchored:
        problems.append(
            (unanchored[0][0], f"headings without an explicit {{#anchor}}: {[text for _, text in unanchored]}")
        )
    seen: dict[str, int] = {}
    for (_, anchor, _), line in zip(page.headings, page.heading_lines):
        if anchor and anchor in seen:
            problems.append((line, f"anchor #{anchor} used twice (first on line {seen[anchor]})"))
        elif anchor:
            seen[anchor] = line
    for line, comment in page.unknown_comments:
        problems.append(
            (
                line,
                f"HTML comment {comment!r} is not a build marker (generator/src/guidekit/site/markers/__init__.py lists them)",
            )
        )
    return problems
