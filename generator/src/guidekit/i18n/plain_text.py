"""The strings editors and translators write into mkdocs.yml are text, never markup.

Material puts `site_name`, `site_description`, the nav titles and each locale's `name`, `site_name`,
`site_description` and `nav_translations` into every page as they are, in elements and in attributes:
a `<`, `>` or `"` there would become markup or end an attribute, and an entity would be read as one.
The build (the `guide` plugin), `guide-i18n check` and `guide-i18n add-locale` refuse them, one line
each, naming the key and the locale.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .project import Project
from .project_checks import nav_entries

# What would be read as markup: a tag, an attribute's quote, a character reference.
MARKUP = re.compile(r"[<>\"]|&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
LOCALE_KEYS = ("name", "site_name", "site_description")


def markup_in(text: object) -> str | None:
    """The first piece of `text` that would be read as markup, or None for plain text."""
    if not isinstance(text, str):
        return None
    found = MARKUP.search(text)
    return found.group(0) if found else None


def _strings(project: Project) -> Iterator[tuple[str, str, object]]:
    """(where, key, value) for every string of mkdocs.yml that reaches a page as text."""
    config = project.config
    for key in ("site_name", "site_description"):
        yield "", key, config.get(key)
    for title, _ in nav_entries(config.get("nav")):
        yield "", "nav", title
    for language in project.languages:
        locale = language.get("locale", "?")
        for key in LOCALE_KEYS:
            yield locale, key, language.get(key)
        for source, translated in (language.get("nav_translations") or {}).items():
            yield locale, f"nav_translations[{source!r}]", translated


def config_markup(project: Project) -> list[str]:
    """One line for each string in mkdocs.yml that holds markup."""
    lines = []
    for locale, key, value in _strings(project):
        piece = markup_in(value)
        if piece is not None:
            where = f"the {locale} {key}" if locale else key
            lines.append(f"mkdocs.yml: {where} holds markup ({piece!r}): write it as plain text")
    return lines
