"""The built site, read as files: locales, 404s, hreflang, search per locale, self-containment."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import LOCALES

LOCALE_ROOT = {"es": "", "ja": "ja/", "ar": "ar/"}


class _Head(HTMLParser):
    """Collects <html> attributes, meta tags, alternates and every URL a page references."""

    def __init__(self):
        super().__init__()
        self.html_attrs: dict[str, str] = {}
        self.meta: dict[str, str] = {}
        self.alternates: dict[str, str] = {}
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.html_attrs = a
        if tag == "meta" and a.get("name"):
            self.meta[a["name"]] = a.get("content", "")
        if tag == "meta" and a.get("http-equiv"):
            self.meta[a["http-equiv"]] = a.get("content", "")
        if tag == "link" and a.get("rel") == "alternate" and a.get("hreflang"):
            self.alternates[a["hreflang"]] = a["href"]
        for key in ("src", "href"):
            if a.get(key) and not (tag == "a" or (tag == "link" and a.get("rel") in ("alternate", "canonical"))):
                self.urls.append(a[key])


def parse(path: Path) -> _Head:
    head = _Head()
    head.feed(path.read_text(encoding="utf-8"))
    return head


def pages(site: Path, locale: str) -> list[Path]:
    root = site / LOCALE_ROOT[locale]
    found = []
    for path in root.rglob("index.html"):
        rel = path.relative_to(site).as_posix()
        if locale == "es" and rel.split("/")[0] in ("ja", "ar"):
            continue
        found.append(path)
    return sorted(found)


def test_strict_build_has_no_warnings(built_site):
    _, log, _ = built_site
    assert "WARNING" not in log, log


@pytest.mark.parametrize(("locale", "direction"), [("es", "ltr"), ("ja", "ltr"), ("ar", "rtl")])
def test_every_page_declares_language_and_direction_on_html(built_site, locale, direction):
    site, _, SITE_URL = built_site
    for path in pages(site, locale) + [site / LOCALE_ROOT[locale] / "404.html"]:
        attrs = parse(path).html_attrs
        assert (attrs.get("lang"), attrs.get("dir")) == (locale, direction), path


def test_root_404_stays_spanish(built_site):
    site, _, SITE_URL = built_site
    assert parse(site / "404.html").html_attrs["lang"] == "es"
    assert parse(site / "ja" / "404.html").html_attrs["lang"] == "ja"
    assert parse(site / "ar" / "404.html").html_attrs["lang"] == "ar"


@pytest.mark.parametrize("locale", LOCALES)
def test_pages_carry_localized_description_and_absolute_hreflang(built_site, locale):
    site, _, SITE_URL = built_site
    descriptions = set()
    for path in pages(site, locale):
        head = parse(path)
        assert head.meta.get("description"), f"{path} has no meta description"
        descriptions.add(head.meta["description"])
        assert set(head.alternates) >= {"es", "ja", "ar", "x-default"}, path
        for href in head.alternates.values():
            assert href.startswith(SITE_URL), href
        own = head.alternates[locale]
        rel = path.relative_to(site).as_posix().removesuffix("index.html")
        assert own == SITE_URL + rel
    assert len(descriptions) == len(pages(site, locale)), "meta descriptions repeat across pages"


def test_descriptions_differ_between_locales(built_site):
    site, _, SITE_URL = built_site
    home = {loc: parse(site / LOCALE_ROOT[loc] / "index.html").meta["description"] for loc in LOCALES}
    assert len(set(home.values())) == 3, home


def test_sitemap_lists_every_page_with_absolute_alternates(built_site):
    site, _, SITE_URL = built_site
    xml = (site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]+)</loc>", xml)
    expected = {SITE_URL + p.relative_to(site).as_posix().removesuffix("index.html")
                for loc in LOCALES for p in pages(site, loc)}
    assert set(locs) == expected
    hrefs = re.findall(r'hreflang="[^"]+" href="([^"]+)"', xml)
    assert hrefs and all(h.startswith(SITE_URL) for h in hrefs)


@pytest.mark.parametrize("locale", LOCALES)
def test_search_index_holds_only_its_locale(built_site, locale):
    site, _, SITE_URL = built_site
    index = json.loads((site / LOCALE_ROOT[locale] / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index["docs"], f"empty search index for {locale}"
    own_pages = {p.relative_to(site / LOCALE_ROOT[locale]).as_posix().removesuffix("index.html") for p in pages(site, locale)}
    for doc in index["docs"]:
        page = doc["location"].split("#", 1)[0]
        assert page in own_pages, f"{locale} index points outside its locale: {doc['location']}"
    assert index["config"]["lang"] == [locale]


def test_pyodide_is_copied_once(built_site):
    site, _, SITE_URL = built_site
    copies = sorted(p.relative_to(site).as_posix() for p in site.rglob("pyodide.asm.wasm"))
    assert copies == ["assets/pyodide/pyodide.asm.wasm"]
    assert not (site / "assets" / "pyodide" / "pyodide.js.map").exists()


@pytest.mark.parametrize("locale", LOCALES)
def test_pages_reference_only_their_own_origin(built_site, locale):
    site, _, SITE_URL = built_site
    for path in pages(site, locale):
        head = parse(path)
        external = [u for u in head.urls if re.match(r"^(https?:)?//", u)]
        assert not external, f"{path} loads from outside: {external}"
        csp = head.meta["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "'wasm-unsafe-eval'" in csp
        assert "https:" not in csp and "*" not in csp and "'unsafe-inline'" not in csp
        assert re.search(r"<[a-z]+[^>]*\sstyle=", path.read_text(encoding="utf-8")) is None, f"{path} has a style attribute"
