"""The `guide` MkDocs plugin: locale fixes, per-locale search, sitemap, and the site's own assets.

static-i18n builds the default locale, then each other locale as a nested build from its own
`on_post_build`. Events here therefore run once per locale; work that needs every locale done
(search split, sitemap, root 404, assets) runs in `on_post_build` of the outer build, after
static-i18n's (priority -100) has finished the nested ones.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.templates import TemplateContext

from guidekit import calc
from guidekit.i18n import status as translation_status, typesetting
from guidekit.i18n.plain_text import config_markup
from guidekit.i18n.project import Project
from guidekit.l10n import LocalePack
from guidekit.runtime import assets, bytecode, offline, snapshot

from . import (
    cjk_lines,
    content_policy,
    extensions,
    headers,
    html_rewrite,
    locales,
    markers,
    search_split,
    sitemap,
    sources_guard,
)
from .config import GuideConfig
from .locale_pack import locale_pack
from .markers import calculator_embed
from .partials_env import partials_env

if TYPE_CHECKING:
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation

log = logging.getLogger("mkdocs.plugins.guide")

# The generator's theme over Material: the page shell, the calculator partials and scripts, the CSS.
THEME = Path(__file__).resolve().parents[1] / "theme"


# What this plugin reads of mkdocs-static-i18n's plugin and its configuration (the package ships no types).
class _I18nLanguage(Protocol):
    locale: str
    build: bool


class _I18nConfig(Protocol):
    languages: list[_I18nLanguage]


class _StaticI18n(Protocol):
    building: bool  # True while its on_post_build runs the nested builds of the other locales
    current_language: str  # set by its on_config (priority -100), before this plugin's runs
    config: _I18nConfig
    reconfigure_search_duplicates: Callable[[list[dict[str, Any]]], None]

    @property
    def default_language(self) -> str: ...


class _GuideTemplateContext(TemplateContext, total=False):
    """MkDocs' page context with the variables this plugin adds for the theme's templates."""

    guide_locale_root: str
    guide_calc_runtime: dict[str, str] | None
    guide_translation_banner: str
    guide_made_with: str


def _add_theme(config: MkDocsConfig) -> None:
    """Put the generator's theme beneath the author's `custom_dir` and above Material, so that an author
    overrides any one of its templates or assets with a file of the same path in their own folder."""
    dirs = config.theme.dirs
    if str(THEME) not in dirs:
        custom = config.theme.custom_dir
        dirs.insert(dirs.index(custom) + 1 if custom in dirs else 0, str(THEME))


class GuidePlugin(BasePlugin[GuideConfig]):  # type: ignore[no-untyped-call]  # MkDocs' __init_subclass__ is unannotated
    @event_priority(-150)  # after static-i18n's (-100) has chosen the locale of this build
    def on_config(self, config: MkDocsConfig) -> None:
        if not self.config.enabled:
            return
        i18n = config.plugins.get("i18n")
        if i18n is None:
            raise PluginError("The 'guide' plugin needs mkdocs-static-i18n: add 'i18n' before 'guide' in plugins.")
        # MkDocs types its plugins as BasePlugin; the one named 'i18n' is static-i18n's.
        self._i18n = cast(_StaticI18n, i18n)
        # static-i18n drops a locale's search entries that equal the default locale's ("duplicates"):
        # exactly the fallback pages, which a French reader must still find. The index is split per
        # locale afterwards (search_split), so no locale's index holds another's pages anyway.
        self._i18n.reconfigure_search_duplicates = lambda entries: None
        self.root = Path(config.config_file_path).parent
        _add_theme(config)
        if not self._i18n.building:
            # Before anything is read or written: a link out of these folders would publish what it points at.
            self._refuse_outside_links(config)
            # Titles and names an editor writes in mkdocs.yml reach every page as they are: text only.
            if (self.root / "mkdocs.yml").is_file() and (markup := config_markup(Project(self.root))):
                raise PluginError("\n".join(markup))
            # The guide's own markers and data checks, before any page: a check that fails stops the build here.
            try:
                self.extension_states, warnings = extensions.start(self.config.extensions, self.root)
            except ValueError as exc:
                raise PluginError(str(exc)) from None
            for line in warnings:  # a --strict build stops on them; `mkdocs build --no-strict` publishes
                log.warning(line)
            # The outer build (`mkdocs build`, or each rebuild of `mkdocs serve`) starts afresh; the nested
            # builds of the other locales that static-i18n runs from it add to what it starts.
            self._start_build()
        try:
            self.packs[self.locale] = locale_pack(self.locale, self.locales_dir, self.default_locale)
        except ValueError as exc:  # an unreadable catalog
            raise PluginError(str(exc)) from None

    @property
    def locales_dir(self) -> Path:
        return self.root / (self.config.locales_dir or "locales")

    def _refuse_outside_links(self, config: MkDocsConfig) -> None:
        folders = [Path(config.docs_dir), self.locales_dir]
        if config.theme.custom_dir:  # its assets are published too
            folders.append(Path(config.theme.custom_dir))
        lines = [line for folder in folders for line in sources_guard.outside_links(folder, self.root)]
        if lines:
            raise PluginError("\n".join(lines))

    def _start_build(self) -> None:
        # Kept across the nested builds: locale -> {page url: {locale: absolute url}}.
        self.pages: dict[str, dict[str, dict[str, str]]] = {}
        self.default_404: str | None = None
        self.wheels: list[Path] | None = None
        self._snapshot: Path | None = None
        self.packs: dict[str, LocalePack] = {}
        for module in self.config.calculator_modules:
            try:
                importlib.import_module(module)  # registers its calculators
            except Exception as exc:  # one line naming where, as for an extension
                raise PluginError(f"calculator module {module!r}: {extensions.import_failure(exc)}") from None

    # -- helpers -------------------------------------------------------------------------------
    def _worker_modules(self) -> list[str]:
        """What the browser worker imports at start: each registers its calculators."""
        return list(self.config.calculator_modules)

    def _importers(self) -> list[str]:
        """The import panels of the calculators the site's own modules register: the browser registers only
        those (a build extension may register others in the build's Python, for its tables)."""
        modules = self._worker_modules()

        def site_calculator(name: str) -> bool:
            module = getattr(calc.get(name), "__name__", "")
            return any(module == m or module.startswith(m + ".") for m in modules)

        return sorted({m for name in calc.names() if site_calculator(name) and (m := calc.importer(name))})

    @property
    def locale(self) -> str:
        return self._i18n.current_language

    @property
    def default_locale(self) -> str:
        return self._i18n.default_language

    @property
    def pack(self) -> LocalePack:
        return self.packs[self.locale]

    @property
    def all_locales(self) -> list[str]:
        return [lang.locale for lang in self._i18n.config.languages if lang.build]

    def on_pre_build(self, config: MkDocsConfig) -> None:
        if not self.config.enabled:
            return
        # A translation that would break a page (lost placeholder, injected HTML, a page whose
        # skeleton differs from the Spanish one) stops the build, as `guide-i18n check` does.
        problems = translation_status.broken(self.root, self.locale)
        if problems:
            raise PluginError("Broken translations:\n" + "\n".join(map(str, problems)))
        # What the page would show wrongly typeset (a space inside a Japanese sentence, an Arabic figure
        # drawn backwards): a --strict build stops on it, as `guide-i18n status --strict` does.
        for problem in typesetting.locale_problems(Project(self.root), self.locale):
            log.warning(str(problem))
        # Pages are rendered before MkDocs' own `on_env`, so the partials' environment for this
        # locale is made here from the theme.
        self.env = partials_env(config.theme.get_env(), self.pack)
        if self.wheels is None:
            # Built once per `mkdocs build`, before any page needs their URLs.
            self._wheel_dir = Path(tempfile.mkdtemp(prefix="guide-wheel-"))
            # The generator's browser layers from the installed package; the site's own packages built by pip.
            self.wheels = [
                assets.generator_wheel(self._wheel_dir / "generator"),
                *assets.build_wheels([self.root / p for p in self.config.packages], self._wheel_dir / "site"),
            ]
            # The packages the worker imports at start, compiled once here instead of in each browser.
            importers = self._importers()
            packages = assets.worker_packages(self._worker_modules(), importers)
            # Of the import panels, only the files each declares it reads in the browser.
            extra = tuple(f for m in importers for f in getattr(importlib.import_module(m), "BROWSER_FILES", ()))
            dropped = sum(
                assets.browser_only(wheel, assets.browser_files(self._worker_modules(), extra)) for wheel in self.wheels
            )
            log.info(f"Browser wheels: {dropped} files the browser does not run left out")
            if missing := assets.unprovided(self.wheels, [*self._worker_modules(), *importers]):
                raise PluginError(
                    "\n".join(
                        f"The browser imports '{module}', which none of its wheels holds: add the folder whose "
                        "pyproject.toml packs it to `packages` (mkdocs.yml → plugins → guide)"
                        for module in missing
                    )
                )
            try:
                log.info(
                    bytecode.compile_wheels(
                        self.wheels, packages, self.root / self.config.pyodide_dir, bytecode.user_cache()
                    )
                )
            except RuntimeError as exc:
                raise PluginError(str(exc)) from exc
            self._wheel_digest = _digest(b"".join(w.read_bytes() for w in self.wheels))
            # Restored by the browser's worker instead of starting Python and importing these again.
            self._snapshot, line, failed = snapshot.make_snapshot(
                self.root / self.config.pyodide_dir,
                self.wheels,
                ["guidekit.render.worker", *self._worker_modules(), *importers],
                self._wheel_dir,
            )
            (log.warning if failed else log.info)(line)

    @event_priority(100)  # before static-i18n's (-100) keeps only this build's locale: every locale's files
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        if not self.config.enabled or self._i18n.building:
            return files
        docs = Path(os.path.abspath(config.docs_dir))
        lines = []
        for file in files:  # the files MkDocs copies as they are (the theme's lie outside docs/)
            excluded = not file.inclusion.is_included()  # type: ignore[no-untyped-call]  # unannotated in MkDocs
            if file.is_documentation_page() or excluded:  # excluded: a dotfile such as add-locale's .gitkeep
                continue
            path = Path(file.abs_src_path or "")
            if path.is_relative_to(docs) and (problem := content_policy.static_file_problem(path)):
                lines.append(f"{sources_guard.one_line(self._shown(path))}: {problem}")
        if lines:
            raise PluginError("\n".join(lines))
        return files

    def on_build_error(self, error: Exception) -> None:
        # A refused page stops the build before on_post_build, which removes the wheels' folder (an
        # error in on_config comes before there are any).
        if getattr(self, "wheels", None) is not None:
            shutil.rmtree(self._wheel_dir, ignore_errors=True)
            self.wheels = None

    def on_env(self, env: Environment, config: MkDocsConfig, files: Files) -> Environment:
        if not self.config.enabled:
            return env
        # The theme's main.html hands it to Material's search in place of the hashed name base.html has.
        env.globals["guide_search_worker"] = assets.material_search_worker(config.theme.dirs)
        # partials/javascripts/base.html hands it to guide-page.js, which loads it on the first interaction.
        env.globals["guide_material_bundle"] = assets.material_bundle(config.theme.dirs)
        return env

    # -- per page ------------------------------------------------------------------------------
    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if not self.config.enabled:
            return markdown
        meta = getattr(page, "meta", None) or {}
        if problem := (
            sources_guard.page_shape_problem(markdown)
            or sources_guard.unread_front_matter(markdown)
            or sources_guard.front_matter_problem(meta)
            or ("template" in meta or "icon" in meta)
            and sources_guard.front_matter_paths_problem(meta, config.theme.dirs)
        ):
            raise PluginError(f"{self._source(page)}: {problem}")
        # A figure marker that starts a line would leave its sentence as a raw HTML block: Markdown gets a
        # slot that stays inline, and on_page_content renders it (markers.embed).
        return markers.inline_slots(markdown)

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if not self.config.enabled:
            return html
        # Checked before the build adds its own markup, so a problem here is the Markdown's.
        _refuse_policy_meta(html, f"{self._source(page)}: the page's content has")
        if problems := content_policy.page_problems(html):
            raise PluginError(
                f"{self._source(page)}: the page's content has what a page may not hold: {'; '.join(problems)}. "
                "A page holds text, images, links and tables; script and style belong in the theme "
                "(custom_dir), and images in the site itself (EDITORS.md, What a page may hold)."
            )
        # Before any template prints them: the theme treats these fields as HTML, the author wrote text.
        if problems := sources_guard.front_matter_as_html(page.meta):
            raise PluginError(f"{self._source(page)}: {'; '.join(problems)}")
        # A line an editor wrapped inside a Japanese sentence would show as a space inside a word.
        if cjk_lines.joins_lines(self.locale):
            html = cjk_lines.join_lines(html)
        names = markers.arguments(html, "calculator")
        if twice := sorted({name for name in names if names.count(name) > 1}):
            # Two forms of one calculator share their element ids and the browser's state for that name.
            raise PluginError(
                f"{self._source(page)}: the calculator {', '.join(map(repr, twice))} is placed more "
                "than once on this page; place each calculator once per page"
            )
        if names:
            page.meta["guide_calculators"] = names
            # The table of contents gives its column to the calculator, so the form and the answer fit side by side.
            page.meta["hide"] = [*page.meta.get("hide", []), "toc"]
        context = markers.PageContext(
            env=self.env,
            pack=self.pack,
            page=page.file.src_uri,
            extensions=self.extension_states,
            calculator_pages={
                calc_name: get_relative_url(url, page.url) for calc_name, url in self._calculator_pages(files).items()
            },
        )
        # Bare tables (Markdown's and the catalog's) scroll in focusable boxes; the renderer's wrap themselves.
        html = html_rewrite.focusable_code(html_rewrite.wrap_tables(markers.embed(html, context)))
        state = translation_status.page_state(
            Path(config.docs_dir), self.locale, page.file.src_uri, self.default_locale
        )
        if state["state"] == "fallback":
            # The Spanish text served under /fr/: screen readers, hyphenation and fonts must read it as Spanish.
            html = html_rewrite.mark_fallback(html, self.default_locale, locales.text_direction(self.default_locale))
        return html

    def _calculator_pages(self, files: Files) -> dict[str, str]:
        """`calculator_embed.placed` for this build's files, read once per build."""
        if getattr(self, "_placed", (None,))[0] is not files:
            self._placed = (files, calculator_embed.placed(files.documentation_pages()))
        return self._placed[1]

    def _runtime_urls(self, page: Page) -> dict[str, str]:
        def rel(path: str) -> str:
            return get_relative_url(path, page.url)

        # The outer build's on_pre_build made the wheels, before any locale renders a page.
        assert self.wheels is not None
        return {
            "pack": rel(f"assets/calc/pack-{self.locale}.json") + f"?v={_digest(_pack_json(self.pack).encode())}",
            # A folder per wheel digest busts caches; Pyodide needs the file name to end in .whl.
            "wheels": " ".join(rel(f"assets/calc/{self._wheel_digest}/{w.name}") for w in self.wheels),
            "modules": " ".join(self._worker_modules()),
            # One trailing slash: the service worker caches `assets/pyodide/x`, not `assets/pyodide//x`.
            "pyodide": rel("assets/pyodide/").rstrip("/") + "/",
            "worker": rel("assets/javascripts/calculator-worker.js"),
            # Empty without Node.js at build time: the worker then starts Pyodide itself.
            "snapshot": rel(f"assets/calc/{self._wheel_digest}/{self._snapshot.name}") if self._snapshot else "",
        }

    def on_page_context(
        self, context: TemplateContext, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        if not self.config.enabled:
            return context
        # MkDocs' TemplateContext names only its own keys; the theme reads this plugin's from the same dict.
        guide_context = cast(_GuideTemplateContext, context)
        alternates = locales.page_alternates(page, config.site_url or "", self.all_locales)
        self.pages.setdefault(self.locale, {})[page.url] = alternates
        guide_context["guide_locale_root"] = "" if self.locale == self.default_locale else f"/{self.locale}/"
        # The head's calculator-boot.js holds the runtime's URLs for a page that places a calculator.
        guide_context["guide_calc_runtime"] = self._runtime_urls(page) if page.meta.get("guide_calculators") else None
        # A reader of a page that is still in the source language, or whose translation lags, is told so.
        translation = translation_status.page_state(
            Path(config.docs_dir), self.locale, page.file.src_uri, self.default_locale, config.use_directory_urls
        )
        guide_context["guide_translation_banner"] = self.env.get_template("partials/translation-banner.html").render(
            guide_translation=translation,
            guide_default_locale=self.default_locale,
            guide_source_language=locales.language_name(self.default_locale, self.locale),
            page=page,
            base_url=context["base_url"],
        )
        # The theme's footer credit, in the reader's language (Material's is English on every page).
        guide_context["guide_made_with"] = self.env.get_template("partials/made-with.html").render()
        return context

    def _source(self, page: Page) -> str:
        return self._shown(Path(page.file.abs_src_path or page.file.src_path))

    def _shown(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)

    def _finish_html(self, output: str, what: str) -> str:
        # The page's content passed on_page_content, so what is left came from a template or a partial.
        _refuse_inline_script(
            output,
            f"The theme's templates put into {what}",
            "Move it into a file under "
            "assets/javascripts/ in the theme (custom_dir) and load that with <script src>, as "
            "the generator's partials/javascripts/base.html does.",
        )
        _refuse_policy_meta(output, f"The theme's templates put into {what}")
        output = html_rewrite.wrap_fallback(output)
        output = html_rewrite.set_root_language(output, self.locale, locales.text_direction(self.locale))
        return html_rewrite.add_security_meta(output)

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        if not self.config.enabled:
            return output
        return self._finish_html(output, f"the page of {self._source(page)}")

    def on_post_template(self, output: str, template_name: str, config: MkDocsConfig) -> str:
        if not self.config.enabled or template_name != "404.html":
            return output
        output = self._finish_html(output, f"{template_name} ({self.locale})")
        if self.locale == self.default_locale:
            self.default_404 = output
        else:
            # Every locale's nested build writes its 404 at the site root (static-i18n issues 284, 349):
            # give the locale its own copy; the root gets the default locale's back at the end.
            target = Path(config.site_dir) / self.locale / "404.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(output, encoding="utf-8")
        return output

    # -- once, after every locale --------------------------------------------------------------
    @event_priority(-200)
    def on_post_build(self, config: MkDocsConfig) -> None:
        if not self.config.enabled or self._i18n.building:
            return
        site_dir = Path(config.site_dir)
        calc_dir = site_dir / "assets" / "calc"
        calc_dir.mkdir(parents=True, exist_ok=True)
        for locale, pack in self.packs.items():
            (calc_dir / f"pack-{locale}.json").write_text(_pack_json(pack), encoding="utf-8")
        (calc_dir / self._wheel_digest).mkdir(exist_ok=True)
        # Made by this (outer) build's on_pre_build; a failed build ends in on_build_error, never here.
        assert self.wheels is not None
        for wheel in self.wheels:
            shutil.copy2(wheel, calc_dir / self._wheel_digest / wheel.name)
        if self._snapshot is not None:
            shutil.copy2(self._snapshot, calc_dir / self._wheel_digest / self._snapshot.name)
        shutil.rmtree(self._wheel_dir, ignore_errors=True)
        self.wheels = None
        if self.default_404 is not None:
            (site_dir / "404.html").write_text(self.default_404, encoding="utf-8")
        counts = search_split.split_search_index(site_dir, self.all_locales, self.default_locale)
        log.info("Search index per locale: %s", counts)
        sitemap.write_sitemap(site_dir, self.pages)
        headers.write_headers_file(site_dir)
        assets.copy_pyodide(self.root / self.config.pyodide_dir, site_dir)
        # Last: the service worker's version covers every file above, and so do the compressed copies.
        log.info("Service worker for build %s", offline.write_service_worker(site_dir, self.all_locales))
        sizes = offline.precompress(site_dir)
        log.info(
            "Precompressed %.1f MB of text and WebAssembly to %.1f MB (brotli)",
            sizes["identity"] / 1e6,
            sizes["br"] / 1e6,
        )


def _refuse_inline_script(html: str, where: str, fix: str) -> None:
    """The site's policy allows no inline script and nothing from another origin, so a template that holds
    them would silently not work: stop the build."""
    problems = content_policy.template_problems(html)
    if problems:
        raise PluginError(
            f"{where} inline script or a load from another origin, which the site's Content-Security-Policy "
            f"blocks (script-src 'self', default-src 'self'): {'; '.join(problems)}. {fix}"
        )


def _refuse_policy_meta(html: str, where: str) -> None:
    """A <meta http-equiv> or <meta name=referrer> would override the policies the build sets (a refresh
    sends the reader to another site; `unsafe-url` leaks each page's address): stop the build."""
    problems = content_policy.policy_meta_problems(html)
    if problems:
        raise PluginError(
            f"{where} a <meta> that overrides the site's policies: {'; '.join(problems)}. Remove it: "
            "the build sets the page's policy and referrer policy itself (generator/src/guidekit/site/headers.py)."
        )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _pack_json(pack: LocalePack) -> str:
    return json.dumps(pack, ensure_ascii=False, sort_keys=True)
