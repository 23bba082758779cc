"""What the build knows about each locale: direction, absolute page URLs, catalogs."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from babel import Locale

if TYPE_CHECKING:  # the CLI imports this module without MkDocs' page model
    from mkdocs.structure.pages import Page


@lru_cache(maxsize=None)
def babel_locale(locale: str) -> Locale:
    """CLDR's data for a configured locale code. The site spells codes as Material names its interface
    translations (`pt-BR`, `zh-Hant`); Babel wants `pt_BR`."""
    return Locale.parse(locale.replace("-", "_"))


def text_direction(locale: str) -> str:
    """'rtl' or 'ltr', from CLDR rather than a hand-kept list."""
    return babel_locale(locale).text_direction


def language_name(locale: str, reader: str) -> str:
    """`locale`'s language as `reader`'s language names it ("スペイン語" for a Japanese reader)."""
    language = babel_locale(locale).language
    return babel_locale(reader).languages.get(language) or babel_locale(locale).get_display_name(reader) or locale


def absolute_url(site_url: str, page_url: str) -> str:
    """`page_url` (MkDocs' site-relative URL, '' or './' for a home page) made absolute on `site_url`."""
    base = site_url if site_url.endswith("/") else site_url + "/"
    return base if page_url in ("", "./", ".") else base + page_url


def page_alternates(page: Page, site_url: str, locales: list[str]) -> dict[str, str]:
    """Absolute URL of this page in every locale that has it (static-i18n's `file.alternates`)."""
    alternates = getattr(page.file, "alternates", {}) or {}
    urls = {}
    for locale in locales:
        if locale in alternates:
            urls[locale] = absolute_url(site_url, alternates[locale].url)
    return urls
