"""Each locale's terminology: one preferred form per concept, and the variants editors agreed to reject.

`locales/<lang>/terminology.toml` lists them (see EDITORS.md); `guide-i18n status` looks for a rejected
variant in that locale's pages (prose and front matter, not code blocks) and in its UI strings, and names
the file, the line and the preferred form. Matching is by substring: Japanese has no spaces and Arabic
attaches articles and prepositions to the word, so word boundaries would miss most real slips. A
construction rather than a word (Arabic's «يتسع X في Y», "X fits in Y", which reads backwards) is a
regular expression in `patterns`.

A term may also name its entry in the locale's glossary (`glossary = "logits"`, the entry's id): a reader
cannot guess a transliteration such as اللوجيتات or ロジット, so each page's first use of the preferred form
(in prose, after the front matter, outside headings and code) must be a link to `glossary.md#term-<id>`, and
the glossary must hold that anchor. Such links are each locale's own help, so the page structure check
leaves them out of the link comparison with the source. Where the word changes form (Arabic's broken plural
الرموز beside الرمز, or the word without its article), `uses` lists regular expressions for every form that
counts as a use; the link's text must cover the start of the form found.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# `regex`, not `re`: the same syntax (lookbehind included), and a time limit on each search, so a pattern
# that backtracks without end (`(a+)+$` on a line of a's) cannot hang `status` or the build.
import regex

from .markdown import scan
from .po_checks import read_catalog
from .problems import Problem

FILE_NAME = "terminology.toml"
GLOSSARY_PAGE = "glossary.md"
ENTRY_PREFIX = "term-"  # a glossary entry's anchor is term-<id>: the structure check knows them by it
_ANCHOR = re.compile(r"[A-Za-z0-9_-]+")
_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]*)[^)]*\)")  # [label](target "title")
_BLANKED = re.compile(r"(`+).+?\1|<!--.*?-->")  # inline code and one-line comments


@dataclass(frozen=True)
class Term:
    concept: str  # what the term means, in English, for the editor
    preferred: str
    rejected: tuple[str, ...]
    patterns: tuple[regex.Pattern, ...] = ()  # rejected constructions, as Python regular expressions
    glossary: str | None = None  # the id of its glossary entry, when each page's first use links to it
    uses: tuple[regex.Pattern, ...] = ()  # the forms that count as a use; none: the preferred form as written


def load(path: Path) -> list[Term]:
    """The terms in `path` (none when the file does not exist); a malformed file raises ValueError naming it."""
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: {exc}") from exc
    terms = []
    for i, entry in enumerate(data.get("term", []), 1):
        rejected, patterns, uses = entry.get("rejected", []), entry.get("patterns", []), entry.get("uses", [])
        glossary = entry.get("glossary")
        if not (
            isinstance(entry.get("concept"), str)
            and isinstance(entry.get("preferred"), str)
            and entry["preferred"]
            and isinstance(rejected, list)
            and isinstance(patterns, list)
            and (rejected or patterns or glossary)
            and all(isinstance(r, str) and r for r in rejected + patterns)
        ):
            raise ValueError(
                f"{path}: term {i} needs `concept`, a non-empty `preferred` and a non-empty list "
                "`rejected` or `patterns`, or a `glossary` entry"
            )
        if glossary is not None and not (isinstance(glossary, str) and _ANCHOR.fullmatch(glossary)):
            raise ValueError(
                f"{path}: term {i} ({entry['concept']}): `glossary` must be an entry id such as "
                f'"logits" (letters, digits, - and _), not {glossary!r}'
            )
        if uses and not (glossary and isinstance(uses, list) and all(isinstance(u, str) and u for u in uses)):
            raise ValueError(
                f"{path}: term {i} ({entry['concept']}): `uses` is a list of regular expressions "
                "for a term with a `glossary` entry"
            )
        if any(entry["preferred"] == r for r in rejected):
            raise ValueError(f"{path}: term {i} ({entry['concept']}) rejects its own preferred form")
        compiled, forms = [], []
        for pattern in patterns:
            compiled.append(_compile(path, i, entry["concept"], pattern))
            with _at(str(path), None):
                matches_preferred = _search(compiled[-1], entry["preferred"])
            if matches_preferred:
                raise ValueError(
                    f"{path}: term {i} ({entry['concept']}): pattern {pattern!r} matches the preferred form"
                )
        for use in uses:
            forms.append(_compile(path, i, entry["concept"], use))
            with _at(str(path), None):
                misses_preferred = not _search(forms[-1], entry["preferred"])
            if misses_preferred:
                raise ValueError(f"{path}: term {i} ({entry['concept']}): `uses` {use!r} misses the preferred form")
        terms.append(
            Term(entry["concept"], entry["preferred"], tuple(rejected), tuple(compiled), glossary, tuple(forms))
        )
    return terms


# The longest one search may take. A real pattern takes microseconds on a line.
PATTERN_SECONDS = 0.25


class PatternTooSlow(ValueError):
    """A pattern reached PATTERN_SECONDS on one text (`where`, once known)."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern, self.where = pattern, ""

    def __str__(self) -> str:
        return (
            f"the pattern {self.pattern!r} took over {PATTERN_SECONDS} s on {self.where or 'one text'}: it "
            "backtracks (nested repetition such as (a+)+); rewrite it so each character can match one way"
        )


def _search(pattern: regex.Pattern, text: str) -> list[regex.Match]:
    try:
        return list(pattern.finditer(text, timeout=PATTERN_SECONDS))
    except TimeoutError:
        raise PatternTooSlow(pattern.pattern) from None


@contextmanager
def _at(where: str, line: int | None) -> Iterator[None]:
    """Names the text a pattern was too slow on."""
    try:
        yield
    except PatternTooSlow as exc:
        exc.where = f"{where}:{line}" if line else where
        raise


def _compile(path: Path, i: int, concept: str, pattern: str) -> regex.Pattern:
    try:
        return regex.compile(pattern, flags=regex.VERSION0)
    except regex.error as exc:
        raise ValueError(f"{path}: term {i} ({concept}): pattern {pattern!r}: {exc}") from exc


def _first_use(line: str, term: Term) -> tuple[int, str] | None:
    """Where the term is first used in `line`, and the form used."""
    if not term.uses:
        at = line.find(term.preferred)
        return None if at < 0 else (at, term.preferred)
    found = [matches[0] for matches in (_search(use, line) for use in term.uses) if matches]
    first = min(found, key=lambda m: m.start(), default=None)
    return None if first is None else (first.start(), first.group(0))


def _found(text: str, term: Term) -> list[str]:
    """The rejected variants in `text`, leaving out those that only occur inside the preferred form
    (a rejected パラメ would otherwise match every パラメータ). A variant that contains the preferred
    form (パラメーター contains パラメータ) is looked for in the text as written."""
    masked = text.replace(term.preferred, "\0")
    return [variant for variant in term.rejected if variant in (text if term.preferred in variant else masked)] + [
        match.group(0) for pattern in term.patterns for match in _search(pattern, text)
    ]


def _problem(locale: str, where: str, line: int | None, term: Term, variant: str) -> Problem:
    return Problem(locale, "term", where, f"«{variant}» for {term.concept}: write «{term.preferred}»", line=line)


def page_problems(locale: str, where: str, text: str, terms: list[Term]) -> list[Problem]:
    problems = []
    lines = text.splitlines()
    for number, (kind, line) in enumerate(scan(lines), 1):
        if kind != "text":
            continue
        with _at(where, number):
            found = [(term, variant) for term in terms for variant in _found(line, term)]
        problems += [_problem(locale, where, number, term, variant) for term, variant in found]
    return problems


def _prose(lines: list[str]):
    """(line number, line) of the prose a reader meets: after the front matter, outside code blocks, headings
    and HTML comments (a figure marker inside a sentence included), with inline code and comments blanked out
    (same length, so positions hold)."""
    start = 0
    if lines and lines[0].strip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    in_comment = False
    for number, (kind, line) in enumerate(scan(lines), 1):
        if number <= start or kind != "text":
            continue
        if in_comment:  # a comment left open on an earlier line
            in_comment = "-->" not in line
            continue
        if line.lstrip().startswith("#"):
            continue
        line = _BLANKED.sub(lambda m: " " * len(m.group(0)), line)
        if "<!--" in line:
            line, in_comment = line[: line.index("<!--")], True
        yield number, line


def first_use_problems(locale: str, where: str, text: str, terms: list[Term]) -> list[Problem]:
    """Terms with a glossary entry whose first use in this page is not a link to that entry."""
    problems = []
    lines = text.splitlines()
    for term in (t for t in terms if t.glossary):
        for number, line in _prose(lines):
            with _at(where, number):
                use = _first_use(line, term)
            if use is None:
                continue
            (at, form), target = use, f"{GLOSSARY_PAGE}#{ENTRY_PREFIX}{term.glossary}"
            linked = any(m.start(1) <= at < m.end(1) and m.group(2).endswith(target) for m in _LINK.finditer(line))
            if not linked:
                problems.append(
                    Problem(
                        locale,
                        "term",
                        where,
                        f"the first use of «{form}» ({term.concept}) "
                        f"is not linked to its glossary entry: write [{form}]({target})",
                        line=number,
                    )
                )
            break
    return problems


def glossary_problems(locale: str, where: str, text: str, terms: list[Term]) -> list[Problem]:
    """Glossary entries the terms name that the glossary page does not hold (as `id="term-…"`)."""
    return [
        Problem(
            locale,
            "term",
            where,
            f"no entry for {term.concept}: give the row of «{term.preferred}» "
            f'its anchor, <span id="{ENTRY_PREFIX}{term.glossary}"></span>',
        )
        for term in terms
        if term.glossary and f'id="{ENTRY_PREFIX}{term.glossary}"' not in text
    ]


def catalog_problems(locale: str, where: str, catalog, terms: list[Term]) -> list[Problem]:
    """Rejected variants in the translated strings of a Babel catalog (every plural form included)."""
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        for text in strings:
            with _at(where, getattr(message, "lineno", None)):
                found = [(term, variant) for term in terms for variant in _found(text, term)]
            problems += [_problem(locale, where, getattr(message, "lineno", None), t, v) for t, v in found]
    return problems


def locale_problems(project, locale: str) -> list[Problem]:
    """Every rejected variant in `locale`'s pages and UI strings, per its terminology file."""
    path = project.locales_dir / locale / FILE_NAME
    try:
        terms = load(path)
    except ValueError as exc:
        return [Problem(locale, "term", project.rel(path), str(exc).removeprefix(f"{path}: "))]
    if not terms:
        return []
    try:
        return _locale_problems(project, locale, terms)
    except PatternTooSlow as exc:  # the pattern is the terminology file's fault; the text shows where
        return [Problem(locale, "term", project.rel(path), str(exc))]


def _locale_problems(project, locale: str, terms: list[Term]) -> list[Problem]:
    problems = config_problems(project, locale, terms)
    for page in project.pages(locale):
        file = project.page(locale, page)
        text = file.read_text(encoding="utf-8")
        problems += page_problems(locale, project.rel(file), text, terms)
        check = glossary_problems if page == GLOSSARY_PAGE else first_use_problems
        problems += check(locale, project.rel(file), text, terms)
    if any(t.glossary for t in terms) and GLOSSARY_PAGE not in project.pages(locale):
        problems.append(
            Problem(
                locale,
                "term",
                project.rel(project.page(locale, GLOSSARY_PAGE)),
                "the terminology names glossary entries, but this locale has no glossary page",
            )
        )
    po = project.po(locale)
    if po.is_file():
        problems += catalog_problems(locale, project.rel(po), read_catalog(po), terms)
    return problems


def config_problems(project, locale: str, terms: list[Term]) -> list[Problem]:
    """Rejected variants in what mkdocs.yml says in `locale`: site name, description, navigation titles."""
    language = next((lang for lang in project.languages if lang["locale"] == locale), {})
    texts = [
        language.get("site_name"),
        language.get("site_description"),
        *(language.get("nav_translations") or {}).values(),
    ]
    with _at("mkdocs.yml", None):
        return [
            _problem(locale, "mkdocs.yml", None, term, variant)
            for text in texts
            if isinstance(text, str)
            for term in terms
            for variant in _found(text, term)
        ]
