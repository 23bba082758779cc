"""Where a project's translatable things live, read from its mkdocs.yml: pages, catalogs, locales."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from mkdocs.utils.yaml import yaml_load


@dataclass(frozen=True)
class Project:
    root: Path

    @cached_property
    def config(self) -> dict:
        # MkDocs' own loader: it knows `!ENV` (site_url comes from SITE_URL) and refuses `!!python` tags.
        with open(self.root / "mkdocs.yml", encoding="utf-8") as f:
            return yaml_load(f)

    @cached_property
    def languages(self) -> list[dict]:
        """static-i18n's `languages` entries, in mkdocs.yml's order."""
        for plugin in self.config.get("plugins", []):
            if isinstance(plugin, dict) and "i18n" in plugin:
                return list(plugin["i18n"]["languages"])
        raise SystemExit(f"{self.root / 'mkdocs.yml'} has no i18n plugin")

    @property
    def locales(self) -> list[str]:
        return [lang["locale"] for lang in self.languages]

    @property
    def default_locale(self) -> str:
        return next((lang["locale"] for lang in self.languages if lang.get("default")), self.locales[0])

    @property
    def translations(self) -> list[str]:
        return [locale for locale in self.locales if locale != self.default_locale]

    @property
    def docs_dir(self) -> Path:
        return self.root / self.config.get("docs_dir", "docs")

    @property
    def locales_dir(self) -> Path:
        return self.root / "locales"

    @property
    def pot(self) -> Path:
        return self.locales_dir / "messages.pot"

    @property
    def sources_dir(self) -> Path:
        """Snapshots of the Spanish pages that translations were stamped against."""
        return self.locales_dir / "sources"

    def po(self, locale: str) -> Path:
        return self.locales_dir / locale / "LC_MESSAGES" / "messages.po"

    def pages(self, locale: str) -> list[str]:
        folder = self.docs_dir / locale
        return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md")) if folder.is_dir() else []

    def page(self, locale: str, page: str) -> Path:
        return self.docs_dir / locale / page

    def rel(self, path: Path) -> str:
        """`path` as an editor types it: relative to the project root."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)
