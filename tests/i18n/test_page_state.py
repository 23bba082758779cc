"""What the reader is told: `page_state` and the banner partial that renders it in the reader's language."""

from __future__ import annotations

import jinja2
import pytest

from guidekit.i18n.status import page_state, source_url
from guidekit.site.locale_pack import locale_pack
from guidekit.site.locales import language_name
from guidekit.site.partials_env import partials_env
from tests.conftest import THEME_DIRS

from .conftest import ROOT


def test_page_state_for_each_case(tiny_project):
    docs = tiny_project / "docs"
    assert page_state(docs, "es", "es/memory.md")["state"] == "current"
    assert page_state(docs, "fr", "fr/memory.md")["state"] == "current"
    assert page_state(docs, "fr", "memory.md")["state"] == "current"
    (docs / "fr" / "memory.md").unlink()
    state = page_state(docs, "fr", "es/memory.md")
    assert state["state"] == "fallback" and state["source_url"] == "memory/" and state["translated_hash"] is None
    spanish = docs / "es" / "index.md"
    spanish.write_text(spanish.read_text(encoding="utf-8") + "\nOtra frase.\n", encoding="utf-8")
    state = page_state(docs, "fr", "fr/index.md")
    assert (state["state"], state["source_url"]) == ("outdated", "")
    assert state["translated_hash"] != state["source_hash"]


@pytest.mark.parametrize(
    ("page", "directory_urls", "url"),
    [
        ("index.md", True, ""),
        ("memory.md", True, "memory/"),
        ("guide/index.md", True, "guide/"),
        ("guide/setup.md", True, "guide/setup/"),
        ("memory.md", False, "memory.html"),
    ],
)
def test_source_url(page, directory_urls, url):
    assert source_url(page, directory_urls) == url


def render_banner(locale: str, state: dict, source: str = "es") -> str:
    """The partial as the plugin renders it: in its partials' environment, `_` from the locale's catalog."""
    theme = jinja2.Environment(loader=jinja2.FileSystemLoader(THEME_DIRS), extensions=["jinja2.ext.i18n"])
    theme.filters["url"] = lambda path: "../../" + path  # MkDocs' filter, for a page at ja/memory/
    env = partials_env(theme, locale_pack(locale, ROOT / "locales"))
    return env.get_template("partials/translation-banner.html").render(
        guide_translation=state, guide_default_locale=source, guide_source_language=language_name(source, locale)
    )


@pytest.mark.parametrize(("locale", "spanish"), [("es", "español"), ("ja", "スペイン語"), ("ar", "الإسبانية")])
@pytest.mark.parametrize("state", ["fallback", "outdated"])
def test_banner_speaks_the_readers_language_and_links_the_source(locale, spanish, state):
    html = render_banner(locale, {"state": state, "source_url": "memory/"})
    assert f'data-translation-state="{state}"' in html
    assert '<a href="../../memory/" hreflang="es">' in html
    assert spanish in html and "Spanish" not in html
    english = render_banner("en", {"state": state, "source_url": "memory/"})
    assert "in Spanish" in english


@pytest.mark.parametrize(("locale", "german"), [("he", "בגרמנית"), ("fr", "en allemand"), ("zh", "德语")])
def test_banner_names_another_guides_source_language(locale, german):
    """A guide written in German, read in Hebrew: the generator's own catalog speaks, naming German."""
    html = render_banner(locale, {"state": "fallback", "source_url": "memory/"}, source="de")
    assert german in html and 'hreflang="de"' in html
    assert "Spanish" not in html and "German" not in html


def test_banner_is_silent_on_current_pages():
    assert render_banner("ja", {"state": "current", "source_url": "memory/"}).strip() == ""
    assert render_banner("ja", None).strip() == ""
