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

from . import generator_strings, po_checks, project_checks, sources as i18n_sources, terminology, typesetting
from .problems import BROKEN, Problem  # noqa: F401  (re-exported: the build and the CLI import them here)
from .project import Project
from .structure import difference_line, differences, own_problem_lines, parse


@dataclass
class LocaleReport:
    locale: str
    source: bool  # the source locale: its pages are the originals, checked only against the page rules
    policy: str = "complete"  # or "in progress" (mkdocs.yml, plugins → guide → completeness)
    pages: int = 0
    pages_current: int = 0
    strings: int = 0
    strings_translated: int = 0
    generator_strings: int = 0  # of `strings`: the generator's, which its package does not translate here
    problems: list[Problem] = field(default_factory=list)

    @property
    def blocking(self) -> list[Problem]:
        """What `status --strict` fails on under this locale's policy."""
        return [problem for problem in self.problems if problem.blocks(self.policy)]

    def headline(self) -> str:
        pages = "pages are the source" if self.source else f"{self.pages_current} of {self.pages} pages current"
        counts = f"{pages}, {self.strings_translated} of {self.strings} UI strings translated"
        if self.generator_strings:
            counts += f" ({self.generator_strings} of them the generator's, which guidekit does not translate)"
        if not self.source:
            counts += f", {self.policy}"
        if not self.problems:
            return f"{self.locale} is up to date ({counts})"
        tolerated = len(self.problems) - len(self.blocking)
        note = f", {tolerated} tolerated while in progress" if tolerated else ""
        return f"{self.locale}: {len(self.problems)} problem{'s' * (len(self.problems) != 1)}{note} ({counts})"

    def as_dict(self) -> dict:
        return {
            "locale": self.locale,
            "source": self.source,
            "policy": self.policy,
            "pages": self.pages,
            "pages_current": self.pages_current,
            "strings": self.strings,
            "strings_translated": self.strings_translated,
            "generator_strings": self.generator_strings,
            "problems": [problem.as_dict() | {"blocking": problem.blocks(self.policy)} for problem in self.problems],
        }


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


def page_state(
    docs_dir: Path, locale: str, src_uri: str, default_locale: str = "es", use_directory_urls: bool = True
) -> dict:
    """What the reader of `src_uri` in `locale` should be told.

    state: "current" (the default locale, or a translation stamped against today's Spanish page),
    "outdated" (the Spanish page changed since the translation was stamped, or it was never stamped) or
    "fallback" (no translation: the reader gets the Spanish page). source_url: the Spanish page's
    site-relative URL. Also source_hash (today's Spanish) and translated_hash (the stamp, or None)."""
    docs_dir = Path(docs_dir)
    page = _in_locale(src_uri, (locale, default_locale))
    source = docs_dir / default_locale / page
    state = {
        "state": "current",
        "source_url": source_url(page, use_directory_urls),
        "source_hash": i18n_sources.file_hash(source) if source.is_file() else None,
        "translated_hash": None,
    }
    if locale == default_locale:
        return state
    target = docs_dir / locale / page
    if not target.is_file():
        return state | {"state": "fallback"}
    recorded = i18n_sources.recorded_hash(target.read_text(encoding="utf-8"))
    fresh = recorded is not None and recorded == state["source_hash"]
    return state | {"state": "current" if fresh else "outdated", "translated_hash": recorded}


def _outdated(project: Project, locale: str, page: str, recorded: str, source_text: str, line: int | None) -> Problem:
    src, dst = project.page(project.default_locale, page), project.page(locale, page)
    current = i18n_sources.content_hash(source_text)
    old = i18n_sources.load_snapshot(project.sources_dir, recorded)
    head = f"translates {project.rel(src)} as of {recorded}, which is now {current}"
    if old is None:
        snapshot = project.rel(i18n_sources.snapshot_path(project.sources_dir, recorded))
        return Problem(
            locale,
            "outdated",
            project.rel(dst),
            f"{head} (no snapshot {snapshot}; see `git log -p {project.rel(src)}`)",
            line=line,
        )
    change = i18n_sources.describe_change(old, source_text)
    diff = i18n_sources.unified_diff(
        old, source_text, f"{project.rel(src)} @{recorded}", f"{project.rel(src)} @{current}"
    )
    return Problem(locale, "outdated", project.rel(dst), f"{head}: {change.summary()}", diff, line)


def rule_problems(project: Project, locale: str, page: str, skeleton) -> list[Problem]:
    """The rules every page meets by itself (EDITORS.md, "Adding or changing a page"), in any locale."""
    where = project.rel(project.page(locale, page))
    return [Problem(locale, "rule", where, message, line=line) for line, message in own_problem_lines(skeleton)]


def source_problems(project: Project) -> list[Problem]:
    """The source locale's pages against the page rules."""
    locale = project.default_locale
    return [
        problem
        for page in project.pages(locale)
        for problem in rule_problems(
            project, locale, page, parse(project.page(locale, page).read_text(encoding="utf-8"))
        )
    ]


def page_problems(project: Project, locale: str) -> tuple[list[Problem], int]:
    """(problems, pages that are current) for one translation locale."""
    problems: list[Problem] = []
    current = 0
    sources = project.pages(project.default_locale)
    for page in sources:
        src, dst = project.page(project.default_locale, page), project.page(locale, page)
        where = project.rel(dst)
        if not dst.is_file():
            problems.append(
                Problem(
                    locale,
                    "missing",
                    where,
                    f"no translation of {project.rel(src)}; readers get the Spanish page with a notice",
                )
            )
            continue
        source_text, text = src.read_text(encoding="utf-8"), dst.read_text(encoding="utf-8")
        source, translation = parse(source_text), parse(text)
        page_ok = True
        for difference in differences(source, translation, project.default_locale):
            line = difference_line(source, translation) if difference.startswith("headings") else None
            problems.append(Problem(locale, "structure", where, difference, line=line))
            page_ok = False
        rules = rule_problems(project, locale, page, translation)
        problems += rules
        page_ok = page_ok and not rules
        recorded = i18n_sources.recorded_hash(text)
        if recorded is None:
            problems.append(
                Problem(
                    locale,
                    "unstamped",
                    where,
                    f"no source_hash: once it matches {project.rel(src)}, run `guide-i18n stamp {where}`",
                    line=1,
                )
            )
            page_ok = False
        elif recorded != i18n_sources.content_hash(source_text):
            problems.append(
                _outdated(
                    project,
                    locale,
                    page,
                    recorded,
                    source_text,
                    translation.front_matter_lines.get(i18n_sources.HASH_KEY),
                )
            )
            page_ok = False
        current += page_ok
    for page in removable(project, locale):
        problems.append(
            Problem(
                locale,
                "orphan",
                project.rel(project.page(locale, page)),
                f"no {project.default_locale} source page {page}; translate only pages that exist in {project.default_locale}",
            )
        )
    return problems, current


def removable(project: Project, locale: str) -> list[str]:
    """Pages translated into `locale` whose source page is gone."""
    return sorted(set(project.pages(locale)) - set(project.pages(project.default_locale)))


# -- UI strings ----------------------------------------------------------------------------------------


def catalog_problems(project: Project, locale: str, template=None) -> tuple[list[Problem], int, int]:
    """(problems, strings in the catalog, strings translated) for one locale's PO catalog."""
    po = project.po(locale)
    if not po.is_file():
        return [Problem(locale, "missing", project.rel(po), "no catalog; run `make i18n` (guide-i18n update)")], 0, 0
    catalog = po_checks.read_catalog(po)
    problems = [
        Problem(
            locale,
            entry.kind,
            project.rel(po),
            _short(entry.msgid) + (f": {entry.message}" if entry.message else ""),
            line=entry.lineno or None,
        )
        for entry in [
            *po_checks.file_problems(po.read_text(encoding="utf-8"), catalog.num_plurals),
            *po_checks.entry_problems(catalog, template),
        ]
    ]
    entries = [m for m in catalog if m.id]
    translated = sum(
        1 for m in entries if not m.fuzzy and all(m.string if isinstance(m.string, (list, tuple)) else [m.string])
    )
    return problems, len(entries), translated


def _short(msgid: str, width: int = 60) -> str:
    return repr(msgid if len(msgid) <= width else msgid[: width - 1] + "…")


def template_problems(project: Project) -> list[Problem]:
    """Strings marked in the sources that messages.pot lacks, or that it still has after they went."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "messages.pot"
        po_checks.extract(project.root, fresh, project.babel_mapping)
        wanted = {m.id for m in po_checks.read_catalog(fresh) if m.id}
    if not project.pot.is_file():
        return [Problem("", "template", project.rel(project.pot), "missing; run `make i18n`")]
    have = {m.id for m in po_checks.read_catalog(project.pot) if m.id}
    problems = [
        Problem(
            "",
            "template",
            project.rel(project.pot),
            f"{_short(str(m))}: marked in the sources but not extracted; run `make i18n`",
        )
        for m in sorted(wanted - have, key=str)
    ]
    problems += [
        Problem(
            "", "template", project.rel(project.pot), f"{_short(str(m))}: no longer in the sources; run `make i18n`"
        )
        for m in sorted(have - wanted, key=str)
    ]
    return problems


# -- everything ----------------------------------------------------------------------------------------


def locale_template(project: Project, locale: str):
    """What `locale`'s catalog should hold: messages.pot, with the generator's strings that its package
    does not translate into `locale` (`guide-i18n update` merges the same); None without a template."""
    if not project.pot.is_file():
        return None
    template = po_checks.read_catalog(project.pot)
    for message in generator_strings.missing(locale):
        if template.get(message.id, message.context) is None:
            template[message.id] = message
    return template


def locale_report(project: Project, locale: str) -> LocaleReport:
    report = LocaleReport(locale, source=locale == project.default_locale, policy=project.policy(locale))
    report.pages = len(project.pages(project.default_locale))
    if report.source:
        report.problems = source_problems(project)
        report.pages_current = report.pages - len({problem.where for problem in report.problems})
    else:
        report.problems, report.pages_current = page_problems(project, locale)
    report.problems += project_checks.config_problems(project, locale)
    report.problems += terminology.locale_problems(project, locale)
    report.problems += typesetting.locale_problems(project, locale)
    catalog, report.strings, report.strings_translated = catalog_problems(
        project, locale, locale_template(project, locale)
    )
    report.problems += catalog
    report.generator_strings = len(generator_strings.missing(locale))
    return report


def status(
    root: Path, locales: list[str] | None = None, check_template: bool = True
) -> tuple[list[Problem], list[LocaleReport]]:
    """(problems the whole project shares, one report per locale: the source locale first, then mkdocs.yml's order).

    `locales` may be spelt loosely (`JA`, `pt_br`); an unknown one raises ValueError."""
    project = Project(Path(root))
    chosen = None if locales is None else {project.resolve(code) for code in locales}
    wanted = [locale for locale in project.locales if chosen is None or locale in chosen]
    reports = [locale_report(project, locale) for locale in wanted]
    shared = (template_problems(project) if check_template else []) + project_checks.project_problems(project)
    return shared, reports


def broken(root: Path, locale: str | None = None) -> list[Problem]:
    """Translations that must not ship, for one locale or all: broken placeholders, HTML brought in by a
    translation, pages whose skeleton differs from the Spanish one or that have no Spanish source.
    Cheap (no extraction, no diffs beyond the stale pages'): the build may call it for every locale."""
    _, reports = status(root, None if locale is None else [locale], check_template=False)
    return [problem for report in reports for problem in report.problems if problem.broken]
