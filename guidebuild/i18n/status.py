"""Where each locale stands against the Spanish source: pages missing, outdated or structurally off, and
UI strings untranslated, fuzzy or broken.

`guide-i18n status` prints these reports; the build calls `page_state` (the reader's banner) and
`broken` (translations that must not ship: broken placeholders, injected HTML, pages whose skeleton
differs from the Spanish one).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import catalog as i18n_catalog, sources as i18n_sources
from .project import Project
from .structure import differences, parse

# Problems that make a translation wrong (the build and `status` fail on them); the others say that a
# translation is behind (`status --strict`, which CI runs, fails on them too).
BROKEN = frozenset({"structure", "orphan", "placeholder", "html"})


@dataclass(frozen=True)
class Problem:
    locale: str  # "" for the shared template
    kind: str  # missing orphan outdated unstamped structure untranslated fuzzy unmerged placeholder html template
    where: str  # a project-relative path, with ":line" for a catalog entry
    message: str
    detail: str = ""  # e.g. the Spanish diff behind "outdated"

    @property
    def broken(self) -> bool:
        return self.kind in BROKEN

    def __str__(self) -> str:
        return f"{self.where}: {self.kind}: {self.message}"


@dataclass
class LocaleReport:
    locale: str
    source: bool  # the source locale: its pages are the originals, only its catalog is checked
    pages: int = 0
    pages_current: int = 0
    strings: int = 0
    strings_translated: int = 0
    problems: list[Problem] = field(default_factory=list)

    def headline(self) -> str:
        pages = "pages are the source" if self.source else f"{self.pages_current} of {self.pages} pages current"
        counts = f"{pages}, {self.strings_translated} of {self.strings} UI strings translated"
        if not self.problems:
            return f"{self.locale} is up to date ({counts})"
        return f"{self.locale}: {len(self.problems)} problem{'s' * (len(self.problems) != 1)} ({counts})"


# -- pages ---------------------------------------------------------------------------------------------


def _in_locale(src_uri: str, locales: tuple[str, ...]) -> str:
    """`memory.md` from either `memory.md` or static-i18n's `ja/memory.md` / `es/memory.md`."""
    first, _, rest = src_uri.replace("\\", "/").partition("/")
    return rest if rest and first in locales else src_uri


def source_url(page: str, use_directory_urls: bool = True) -> str:
    """The site-relative URL MkDocs gives the Spanish page `page` (`memory.md` -> `memory/`, `index.md` -> ``)."""
    path = PurePosixPath(page)
    if path.stem in ("index", "README"):
        folder = path.parent.as_posix()
        return "" if folder == "." else f"{folder}/"
    stem = path.with_suffix("").as_posix()
    return f"{stem}/" if use_directory_urls else f"{stem}.html"


def page_state(docs_dir: Path, locale: str, src_uri: str, default_locale: str = "es", use_directory_urls: bool = True) -> dict:
    """What the reader of `src_uri` in `locale` should be told.

    state: "current" (the default locale, or a translation stamped against today's Spanish page),
    "outdated" (the Spanish page changed since the translation was stamped, or it was never stamped) or
    "fallback" (no translation: the reader gets the Spanish page). source_url: the Spanish page's
    site-relative URL. Also source_hash (today's Spanish) and translated_hash (the stamp, or None)."""
    docs_dir = Path(docs_dir)
    page = _in_locale(src_uri, (locale, default_locale))
    source = docs_dir / default_locale / page
    state = {"state": "current", "source_url": source_url(page, use_directory_urls),
             "source_hash": i18n_sources.file_hash(source) if source.is_file() else None, "translated_hash": None}
    if locale == default_locale:
        return state
    target = docs_dir / locale / page
    if not target.is_file():
        return state | {"state": "fallback"}
    recorded = i18n_sources.recorded_hash(target.read_text(encoding="utf-8"))
    fresh = recorded is not None and recorded == state["source_hash"]
    return state | {"state": "current" if fresh else "outdated", "translated_hash": recorded}


def _outdated(project: Project, locale: str, page: str, recorded: str, source_text: str) -> Problem:
    src, dst = project.page(project.default_locale, page), project.page(locale, page)
    current = i18n_sources.content_hash(source_text)
    old = i18n_sources.load_snapshot(project.sources_dir, recorded)
    head = f"translates {project.rel(src)} as of {recorded}, which is now {current}"
    if old is None:
        snapshot = project.rel(i18n_sources.snapshot_path(project.sources_dir, recorded))
        return Problem(locale, "outdated", project.rel(dst), f"{head} (no snapshot {snapshot}; see `git log -p {project.rel(src)}`)")
    change = i18n_sources.describe_change(old, source_text)
    diff = i18n_sources.unified_diff(old, source_text, f"{project.rel(src)} @{recorded}", f"{project.rel(src)} @{current}")
    return Problem(locale, "outdated", project.rel(dst), f"{head}: {change.summary()}", diff)


def page_problems(project: Project, locale: str) -> tuple[list[Problem], int]:
    """(problems, pages that are current) for one translation locale."""
    problems: list[Problem] = []
    current = 0
    sources = project.pages(project.default_locale)
    for page in sources:
        src, dst = project.page(project.default_locale, page), project.page(locale, page)
        where = project.rel(dst)
        if not dst.is_file():
            problems.append(Problem(locale, "missing", where, f"no translation of {project.rel(src)}; readers get the Spanish page with a notice"))
            continue
        source_text, text = src.read_text(encoding="utf-8"), dst.read_text(encoding="utf-8")
        page_ok = True
        for difference in differences(parse(source_text), parse(text), project.default_locale):
            problems.append(Problem(locale, "structure", where, difference))
            page_ok = False
        recorded = i18n_sources.recorded_hash(text)
        if recorded is None:
            problems.append(Problem(locale, "unstamped", where, f"no source_hash: once it matches {project.rel(src)}, run `guide-i18n stamp {where}`"))
            page_ok = False
        elif recorded != i18n_sources.content_hash(source_text):
            problems.append(_outdated(project, locale, page, recorded, source_text))
            page_ok = False
        current += page_ok
    for page in sorted(set(project.pages(locale)) - set(sources)):
        problems.append(Problem(locale, "orphan", project.rel(project.page(locale, page)),
                                f"no {project.default_locale} source page {page}; translate only pages that exist in {project.default_locale}"))
    return problems, current


# -- UI strings ----------------------------------------------------------------------------------------


def catalog_problems(project: Project, locale: str, template=None) -> tuple[list[Problem], int, int]:
    """(problems, strings in the catalog, strings translated) for one locale's PO catalog."""
    po = project.po(locale)
    if not po.is_file():
        return [Problem(locale, "missing", project.rel(po), "no catalog; run `make i18n` (guide-i18n update)")], 0, 0
    catalog = i18n_catalog.read_catalog(po)
    problems = [
        Problem(locale, entry.kind, f"{project.rel(po)}:{entry.lineno}" if entry.lineno else project.rel(po), _short(entry.msgid) + (f": {entry.message}" if entry.message else ""))
        for entry in i18n_catalog.entry_problems(catalog, template)
    ]
    entries = [m for m in catalog if m.id]
    translated = sum(1 for m in entries if not m.fuzzy and all(m.string if isinstance(m.string, (list, tuple)) else [m.string]))
    return problems, len(entries), translated


def _short(msgid: str, width: int = 60) -> str:
    return repr(msgid if len(msgid) <= width else msgid[: width - 1] + "…")


def template_problems(project: Project) -> list[Problem]:
    """Strings marked in the sources that messages.pot lacks, or that it still has after they went."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "messages.pot"
        i18n_catalog.extract(project.root, fresh)
        wanted = {m.id for m in i18n_catalog.read_catalog(fresh) if m.id}
    if not project.pot.is_file():
        return [Problem("", "template", project.rel(project.pot), "missing; run `make i18n`")]
    have = {m.id for m in i18n_catalog.read_catalog(project.pot) if m.id}
    problems = [Problem("", "template", project.rel(project.pot), f"{_short(str(m))}: marked in the sources but not extracted; run `make i18n`")
                for m in sorted(wanted - have, key=str)]
    problems += [Problem("", "template", project.rel(project.pot), f"{_short(str(m))}: no longer in the sources; run `make i18n`")
                 for m in sorted(have - wanted, key=str)]
    return problems


# -- everything ----------------------------------------------------------------------------------------


def locale_report(project: Project, locale: str, template=None) -> LocaleReport:
    report = LocaleReport(locale, source=locale == project.default_locale)
    if not report.source:
        report.problems, report.pages_current = page_problems(project, locale)
        report.pages = len(project.pages(project.default_locale))
    catalog, report.strings, report.strings_translated = catalog_problems(project, locale, template)
    report.problems += catalog
    return report


def status(root: Path, locales: list[str] | None = None, check_template: bool = True) -> tuple[list[Problem], list[LocaleReport]]:
    """(template problems, one report per locale: the source locale first, then mkdocs.yml's order)."""
    project = Project(Path(root))
    template = i18n_catalog.read_catalog(project.pot) if project.pot.is_file() else None
    wanted = [locale for locale in project.locales if locales is None or locale in locales]
    reports = [locale_report(project, locale, template) for locale in wanted]
    return (template_problems(project) if check_template else []), reports


def broken(root: Path, locale: str | None = None) -> list[Problem]:
    """Translations that must not ship, for one locale or all: broken placeholders, HTML brought in by a
    translation, pages whose skeleton differs from the Spanish one or that have no Spanish source.
    Cheap (no extraction, no diffs beyond the stale pages'): the build may call it for every locale."""
    _, reports = status(root, None if locale is None else [locale], check_template=False)
    return [problem for report in reports for problem in report.problems if problem.broken]
