"""What `guide-i18n status` checks in mkdocs.yml and the folders around the pages: each locale's site name
and navigation titles, every source page in the navigation, the completeness policy naming real locales,
and no folder for a locale the project does not have."""

from __future__ import annotations

import re

from .problems import Problem
from .project import Project


def _config_line(project: Project, pattern: str) -> int | None:
    """1-based line of mkdocs.yml that matches `pattern` first, so a report can point at it."""
    lines = (project.root / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    regex = re.compile(pattern)
    return next((number for number, line in enumerate(lines, start=1) if regex.search(line)), None)


def nav_entries(nav) -> list[tuple[str, str | None]]:
    """(title, page or None for a section) for every entry of MkDocs' `nav`, depth first."""
    entries = []
    for item in nav or []:
        if isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, list):
                    entries += [(title, None), *nav_entries(value)]
                else:
                    entries.append((title, value))
    return entries


def config_problems(project: Project, locale: str) -> list[Problem]:
    """A translation's site name, description and navigation titles; the source's pages in the nav."""
    entries = nav_entries(project.config.get("nav"))
    if locale == project.default_locale:
        listed = {page for _, page in entries if page}
        unlisted = [page for page in project.pages(locale) if entries and page not in listed]
        return [
            Problem(
                locale,
                "nav",
                project.rel(project.page(locale, page)),
                "not in mkdocs.yml `nav:`; add it with its Spanish title",
                line=None,
            )
            for page in unlisted
        ]
    language = next(lang for lang in project.languages if lang["locale"] == locale)
    line = _config_line(project, rf"^\s*-\s*locale:\s*['\"]?{re.escape(locale)}['\"]?\s*$")
    problems = [
        Problem(locale, "site", "mkdocs.yml", f"{locale} has no `{key}`; readers see the Spanish one", line=line)
        for key in ("site_name", "site_description")
        if not language.get(key)
    ]
    translated = language.get("nav_translations") or {}
    missing = [title for title, _ in entries if title not in translated]
    if missing:
        problems.append(
            Problem(
                locale,
                "nav",
                "mkdocs.yml",
                f"nav_translations of {locale} lack {', '.join(map(repr, missing))}",
                line=line,
            )
        )
    return problems


def project_problems(project: Project) -> list[Problem]:
    """Policy entries for unknown locales, translations with no declared policy, stray locale folders."""
    policy_line = _config_line(project, r"^\s*completeness:")
    problems = [
        Problem(
            "",
            "policy",
            "mkdocs.yml",
            f"completeness names {locale!r}, which is not a locale of this project ({', '.join(project.locales)})",
            line=_config_line(project, rf"^\s+['\"]?{re.escape(locale)}['\"]?:\s") or policy_line,
        )
        for locale in project.completeness
        if locale not in project.locales
    ]
    problems += [
        Problem(
            "",
            "policy",
            "mkdocs.yml",
            f"{locale} declares no completeness; add `{locale}: complete` or "
            f"`{locale}: in progress` under plugins → guide → completeness",
            line=policy_line,
        )
        for locale in project.translations
        if locale not in project.completeness
    ]
    problems += [
        Problem(
            "",
            "stray",
            project.rel(folder),
            f"no locale {folder.name!r} in mkdocs.yml ({', '.join(project.locales)}); "
            "remove the folder, or add the locale with `guide-i18n add-locale`",
        )
        for folder in project.stray_folders()
    ]
    return problems
