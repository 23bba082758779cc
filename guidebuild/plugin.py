"""The `guide` MkDocs plugin: locale fixes, per-locale search, sitemap, and the site's own assets.

static-i18n builds the default locale, then each other locale as a nested build from its own
`on_post_build`. Events here therefore run once per locale; work that needs every locale done
(search split, sitemap, root 404, assets) runs in `on_post_build` of the outer build, after
static-i18n's (priority -100) has finished the nested ones.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.pages import Page

from . import assets, html_rewrite, locales, search_split, sitemap
from .config import GuideConfig

log = logging.getLogger("mkdocs.plugins.guide")


class GuidePlugin(BasePlugin[GuideConfig]):
    def on_config(self, config: MkDocsConfig):
        if not self.config.enabled:
            return
        i18n = config.plugins.get("i18n")
        if i18n is None:
            raise PluginError("The 'guide' plugin needs mkdocs-static-i18n: add 'i18n' before 'guide' in plugins.")
        self._i18n = i18n
        self.root = Path(config.config_file_path).parent
        if not hasattr(self, "pages"):
            # Kept across the nested builds: locale -> {page url: {locale: absolute url}}.
            self.pages: dict[str, dict[str, dict[str, str]]] = {}
            self.default_404: str | None = None

    # -- helpers -------------------------------------------------------------------------------
    @property
    def locale(self) -> str:
        return self._i18n.current_language

    @property
    def default_locale(self) -> str:
        return self._i18n.default_language

    @property
    def all_locales(self) -> list[str]:
        return [lang.locale for lang in self._i18n.config.languages if lang.build]

    # -- per page ------------------------------------------------------------------------------
    def on_page_context(self, context, page: Page, config: MkDocsConfig, nav):
        if not self.config.enabled:
            return context
        alternates = locales.page_alternates(page, config.site_url or "", self.all_locales)
        self.pages.setdefault(self.locale, {})[page.url] = alternates
        context["guide_alternates"] = alternates
        context["guide_default_locale"] = self.default_locale
        context["guide_locale_root"] = "" if self.locale == self.default_locale else f"/{self.locale}/"
        return context

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig):
        if not self.config.enabled:
            return output
        output = html_rewrite.set_root_language(output, self.locale, locales.text_direction(self.locale))
        output = html_rewrite.add_content_security_policy(output)
        return output

    def on_post_template(self, output: str, template_name: str, config: MkDocsConfig):
        if not self.config.enabled or template_name != "404.html":
            return output
        output = html_rewrite.set_root_language(output, self.locale, locales.text_direction(self.locale))
        output = html_rewrite.add_content_security_policy(output)
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
    def on_post_build(self, config: MkDocsConfig):
        if not self.config.enabled or self._i18n.building:
            return
        site_dir = Path(config.site_dir)
        if self.default_404 is not None:
            (site_dir / "404.html").write_text(self.default_404, encoding="utf-8")
        counts = search_split.split_search_index(site_dir, self.all_locales, self.default_locale)
        log.info("Search index per locale: %s", counts)
        sitemap.write_sitemap(site_dir, self.pages, [loc for loc in self.all_locales if loc != self.default_locale])
        assets.copy_pyodide(self.root / self.config.pyodide_dir, site_dir)
