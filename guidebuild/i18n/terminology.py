"""Each locale's terminology: one preferred form per concept, and the variants editors agreed to reject.

`locales/<lang>/terminology.toml` lists them (see EDITORS.md); `guide-i18n status` looks for a rejected
variant in that locale's pages (prose and front matter, not code blocks) and in its UI strings, and names
the file, the line and the preferred form. Matching is by substring: Japanese has no spaces and Arabic
attaches articles and prepositions to the word, so word boundaries would miss most real slips. A
construction rather than a word (Arabic's «يتسع X في Y», "X fits in Y", which reads backwards) is a
regular expression in `patterns`.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .catalog import read_catalog
from .markdown import scan
from .problems import Problem

FILE_NAME = "terminology.toml"


@dataclass(frozen=True)
class Term:
    concept: str  # what the term means, in English, for the editor
    preferred: str
    rejected: tuple[str, ...]
    patterns: tuple[re.Pattern, ...] = ()  # rejected constructions, as Python regular expressions


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
        rejected, patterns = entry.get("rejected", []), entry.get("patterns", [])
        if not (isinstance(entry.get("concept"), str) and isinstance(entry.get("preferred"), str) and entry["preferred"]
                and isinstance(rejected, list) and isinstance(patterns, list) and (rejected or patterns)
                and all(isinstance(r, str) and r for r in rejected + patterns)):
            raise ValueError(f"{path}: term {i} needs `concept`, a non-empty `preferred` and a non-empty list "
                             "`rejected` or `patterns`")
        if any(entry["preferred"] == r for r in rejected):
            raise ValueError(f"{path}: term {i} ({entry['concept']}) rejects its own preferred form")
        compiled = []
        for pattern in patterns:
            try:
                compiled.append(re.compile(pattern))
            except re.error as exc:
                raise ValueError(f"{path}: term {i} ({entry['concept']}): pattern {pattern!r}: {exc}") from exc
            if compiled[-1].search(entry["preferred"]):
                raise ValueError(f"{path}: term {i} ({entry['concept']}): pattern {pattern!r} matches the preferred form")
        terms.append(Term(entry["concept"], entry["preferred"], tuple(rejected), tuple(compiled)))
    return terms


def _found(text: str, term: Term) -> list[str]:
    """The rejected variants in `text`, leaving out those that only occur inside the preferred form
    (a rejected パラメ would otherwise match every パラメータ). A variant that contains the preferred
    form (パラメーター contains パラメータ) is looked for in the text as written."""
    masked = text.replace(term.preferred, "\0")
    return ([variant for variant in term.rejected if variant in (text if term.preferred in variant else masked)]
            + [match.group(0) for pattern in term.patterns for match in pattern.finditer(text)])


def _problem(locale: str, where: str, line: int | None, term: Term, variant: str) -> Problem:
    return Problem(locale, "term", where, f"«{variant}» for {term.concept}: write «{term.preferred}»", line=line)


def page_problems(locale: str, where: str, text: str, terms: list[Term]) -> list[Problem]:
    problems = []
    lines = text.splitlines()
    for number, (kind, line) in enumerate(scan(lines), 1):
        if kind != "text":
            continue
        problems += [_problem(locale, where, number, term, variant) for term in terms for variant in _found(line, term)]
    return problems


def catalog_problems(locale: str, where: str, catalog, terms: list[Term]) -> list[Problem]:
    """Rejected variants in the translated strings of a Babel catalog (every plural form included)."""
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        for text in strings:
            problems += [_problem(locale, where, getattr(message, "lineno", None), term, variant)
                         for term in terms for variant in _found(text, term)]
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
    problems = config_problems(project, locale, terms)
    for page in project.pages(locale):
        file = project.page(locale, page)
        problems += page_problems(locale, project.rel(file), file.read_text(encoding="utf-8"), terms)
    po = project.po(locale)
    if po.is_file():
        problems += catalog_problems(locale, project.rel(po), read_catalog(po), terms)
    return problems


def config_problems(project, locale: str, terms: list[Term]) -> list[Problem]:
    """Rejected variants in what mkdocs.yml says in `locale`: site name, description, navigation titles."""
    language = next((lang for lang in project.languages if lang["locale"] == locale), {})
    texts = [language.get("site_name"), language.get("site_description"), *(language.get("nav_translations") or {}).values()]
    return [_problem(locale, "mkdocs.yml", None, term, variant)
            for text in texts if isinstance(text, str) for term in terms for variant in _found(text, term)]
