"""Where a project's translatable things live, read from its mkdocs.yml: pages, catalogs, locales, and
how complete each locale promises to be.

The completeness policy lives in one place, the `guide` plugin's `completeness` option in mkdocs.yml:
`complete` (a missing or outdated page or string fails `guide-i18n status --strict`) or `in progress`
(reported; the site ships the "not translated yet" or "outdated" notice). The plugin validates the same
option through `check_policy` when MkDocs loads the configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

from guidekit.site import extensions

POLICIES = ("complete", "in progress")


def find_root(start: Path) -> Path:
    """The nearest folder holding a mkdocs.yml, from `start` up: the project an editor is standing in."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "mkdocs.yml").is_file():
            return folder
    raise SystemExit(
        f"no mkdocs.yml in {start} or any folder above it; run guide-i18n inside the project, or pass --root"
    )


def check_policy(value: object) -> dict[str, str]:
    """`completeness` as written in mkdocs.yml, or ValueError saying what is wrong with it."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("expected a mapping of locale to `complete` or `in progress`, e.g. `ja: complete`")
    for locale, policy in value.items():
        if policy not in POLICIES:
            raise ValueError(f"{locale}: {policy!r} is not a completeness policy; expected `complete` or `in progress`")
    return {str(locale): policy for locale, policy in value.items()}


def same_code(a: str, b: str) -> bool:
    """`pt-BR`, `pt_BR` and `PT-br` name one locale."""
    return a.replace("_", "-").lower() == b.replace("_", "-").lower()


@dataclass(frozen=True)
class Project:
    root: Path

    def __post_init__(self) -> None:
        # The build extensions register the markers a page may carry, which the skeleton check counts.
        names = list((self.guide_options.get("extensions") or {}) if (self.root / "mkdocs.yml").is_file() else [])
        try:
            extensions.load(names, self.root)
        except ValueError as error:
            raise SystemExit(f"{self.root / 'mkdocs.yml'}: plugins → guide → {error}") from None

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

    def resolve(self, code: str) -> str:
        """The configured locale `code` names (`JA` → `ja`, `pt_br` → `pt-BR`); ValueError when none does."""
        found = next((locale for locale in self.locales if same_code(locale, code)), None)
        if found is None:
            raise ValueError(f"unknown locale {code!r}: this project has {', '.join(self.locales)} (see mkdocs.yml)")
        return found

    @cached_property
    def guide_options(self) -> dict:
        for plugin in self.config.get("plugins", []):
            if isinstance(plugin, dict) and "guide" in plugin:
                return plugin["guide"] or {}
        return {}

    @cached_property
    def completeness(self) -> dict[str, str]:
        """Locale -> policy as declared (undeclared locales are absent; `policy` says how they count)."""
        try:
            return check_policy(self.guide_options.get("completeness"))
        except ValueError as error:
            raise SystemExit(f"{self.root / 'mkdocs.yml'}: plugins → guide → completeness: {error}") from None

    def policy(self, locale: str) -> str:
        """The source locale is complete by definition (every string falls back to it); an undeclared
        translation counts as in progress, and `status` reports that it is undeclared."""
        if locale == self.default_locale:
            return "complete"
        return self.completeness.get(locale, "in progress")

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
        """The plugin's `locales_dir`, as the build reads it."""
        return self.root / str(self.guide_options.get("locales_dir") or "locales")

    @property
    def babel_mapping(self) -> str:
        """Where this project's UI strings are marked, in babel.cfg's syntax: its babel.cfg, or by
        default the Python of the calculator and extension modules mkdocs.yml names and the theme's
        `custom_dir` templates (never the generator's own strings: its package translates those)."""
        if (self.root / "babel.cfg").is_file():
            return (self.root / "babel.cfg").read_text(encoding="utf-8")
        options = self.guide_options
        modules = [*(options.get("calculator_modules") or []), *(options.get("extensions") or {})]
        folders = [self.root / str(folder) for folder in options.get("packages") or []] + [self.root]
        sections = sorted({section for name in modules if (section := _python_section(name, folders, self.root))})
        custom_dir = (self.config.get("theme") or {}).get("custom_dir")
        if custom_dir:
            sections.append(f"[jinja2: {Path(custom_dir).as_posix()}/**.html]\nextensions = jinja2.ext.i18n")
        return "\n".join(sections) + "\n"

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

    def stray_folders(self) -> list[Path]:
        """Folders under docs/ or locales/ named like no configured locale (`sources` holds snapshots)."""
        stray = []
        for parent, keep in ((self.docs_dir, set()), (self.locales_dir, {self.sources_dir.name})):
            for folder in sorted(parent.iterdir()) if parent.is_dir() else ():
                if folder.is_dir() and folder.name not in keep and folder.name not in self.locales:
                    stray.append(folder)
        return stray

    def rel(self, path: Path) -> str:
        """`path` as an editor types it: relative to the project root."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)


def _python_section(module: str, folders: list[Path], root: Path) -> str | None:
    """babel.cfg's section for a module's top-level package (or single file) when it lies in the project."""
    top = module.split(".")[0]
    for folder in folders:
        for path, pattern in ((folder / top, "/**.py"), (folder / f"{top}.py", "")):
            if path.exists() and path.resolve().is_relative_to(root.resolve()):
                relative = path.resolve().relative_to(root.resolve()).as_posix()
                return f"[python: {relative}{pattern}]"
    return None
