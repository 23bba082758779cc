"""The built site, read as files: locales, 404s, hreflang, search per locale, self-containment."""

from __future__ import annotations

import gzip
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import brotli
import pytest

from guidekit.site import headers
from tests.conftest import LOCALES, ROOTS


class _Head(HTMLParser):
    """Collects <html> attributes, meta tags, alternates and every URL a page references."""

    def __init__(self):
        super().__init__()
        self.html_attrs: dict[str, str] = {}
        self.meta: dict[str, str] = {}
        self.alternates: dict[str, str] = {}
        self.urls: list[str] = []
        self.canonical: str | None = None

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
        if tag == "link" and a.get("rel") == "canonical":
            self.canonical = a["href"]
        for key in ("src", "href"):
            if a.get(key) and not (tag == "a" or (tag == "link" and a.get("rel") in ("alternate", "canonical"))):
                self.urls.append(a[key])


def parse(path: Path) -> _Head:
    head = _Head()
    head.feed(path.read_text(encoding="utf-8"))
    return head


def pages(site: Path, locale: str) -> list[Path]:
    root = site / ROOTS[locale]
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
    for path in pages(site, locale) + [site / ROOTS[locale] / "404.html"]:
        attrs = parse(path).html_attrs
        assert (attrs.get("lang"), attrs.get("dir")) == (locale, direction), path


@pytest.mark.parametrize(("locale", "credit"), [("es", "Hecho con"), ("ja", "で作成"), ("ar", "أُنشئ باستخدام")])
def test_the_footer_credit_is_in_the_readers_language(built_site, locale, credit):
    # Material writes "Made with Material for MkDocs" in English; the generator's partial translates it.
    site, _, _ = built_site
    for path in pages(site, locale):
        footer = path.read_text(encoding="utf-8").split('class="md-copyright"', 1)[1].split("</div>", 1)[0]
        assert credit in footer and "Made with" not in footer, path
        assert ">Material for MkDocs</a>" in footer, path


def test_no_line_break_is_left_between_two_japanese_characters(built_site):
    """docs/ja/pilot.md wraps some sentences in its source: a browser drew each break as a space inside a
    word. The build joins them (guidekit.site.cjk_lines), outside code blocks."""
    site, _, _ = built_site
    cjk = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef\u3000-\u303f"
    inline = "(?:a|b|bdi|code|em|i|span|strong)"  # a sentence runs through these; cells and blocks are layout
    broken = re.compile(rf"[{cjk}](?:</{inline}>)*[ \t]*\n[ \t]*(?:<{inline}(?:\s[^<>]*)?>)*[{cjk}]")
    for path in pages(site, "ja"):
        article = path.read_text(encoding="utf-8").split("<article", 1)[1].split("</article>", 1)[0]
        text = re.sub(r"<pre\b.*?</pre>", "", article, flags=re.DOTALL)
        assert not broken.search(text), (path, broken.search(text))


def test_root_404_stays_spanish(built_site):
    site, _, SITE_URL = built_site
    assert parse(site / "404.html").html_attrs["lang"] == "es"
    assert parse(site / "ja" / "404.html").html_attrs["lang"] == "ja"
    assert parse(site / "ar" / "404.html").html_attrs["lang"] == "ar"


@pytest.mark.parametrize("locale", LOCALES)
def test_pages_carry_localized_description_and_canonical_url(built_site, locale):
    site, _, SITE_URL = built_site
    descriptions = set()
    for path in pages(site, locale):
        head = parse(path)
        assert head.meta.get("description"), f"{path} has no meta description"
        descriptions.add(head.meta["description"])
        rel = path.relative_to(site).as_posix().removesuffix("index.html")
        assert head.canonical == SITE_URL + rel, path
        # hreflang lives in the sitemap: Material fetches sitemap.xml beside every such link,
        # another origin wherever the build is served from an address other than SITE_URL.
        assert head.alternates == {}, path
    assert len(descriptions) == len(pages(site, locale)), "meta descriptions repeat across pages"


def test_one_sitemap_at_the_root(built_site):
    site, _, _ = built_site
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("sitemap.xml")) == ["sitemap.xml"]


def test_descriptions_differ_between_locales(built_site):
    site, _, SITE_URL = built_site
    home = {loc: parse(site / ROOTS[loc] / "index.html").meta["description"] for loc in LOCALES}
    assert len(set(home.values())) == 3, home


def test_sitemap_lists_every_page_with_absolute_alternates(built_site):
    site, _, SITE_URL = built_site
    xml = (site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]+)</loc>", xml)
    expected = {
        SITE_URL + p.relative_to(site).as_posix().removesuffix("index.html")
        for loc in LOCALES
        for p in pages(site, loc)
    }
    assert set(locs) == expected
    hrefs = re.findall(r'hreflang="([^"]+)" href="([^"]+)"', xml)
    assert hrefs and all(h.startswith(SITE_URL) for _, h in hrefs)
    assert {lang for lang, _ in hrefs} == set(LOCALES)


@pytest.mark.parametrize("locale", LOCALES)
def test_search_index_holds_only_its_locale(built_site, locale):
    site, _, SITE_URL = built_site
    index = json.loads((site / ROOTS[locale] / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index["docs"], f"empty search index for {locale}"
    own_pages = {p.relative_to(site / ROOTS[locale]).as_posix().removesuffix("index.html") for p in pages(site, locale)}
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
        # One policy for every page: no hash of an inline script, since none may exist.
        assert head.meta["Content-Security-Policy"] == headers.META_POLICY
        assert head.meta["referrer"] == headers.REFERRER_POLICY
        assert re.search(r"<[a-z]+[^>]*\sstyle=", path.read_text(encoding="utf-8")) is None, (
            f"{path} has a style attribute"
        )


def test_the_site_carries_its_headers_for_netlify_and_cloudflare(built_site):
    site = built_site[0]
    assert (
        (site / headers.HEADERS_FILE)
        .read_text(encoding="utf-8")
        .endswith("".join(f"  {name}: {value}\n" for name, value in headers.host_headers().items()))
    )


def test_large_text_assets_are_precompressed_faithfully(built_site):
    site, _, _ = built_site
    checked = 0
    for path in site.rglob("*"):
        if path.suffix not in (".html", ".css", ".js", ".mjs", ".json", ".wasm") or path.stat().st_size < 1024:
            continue
        data = path.read_bytes()
        br, gz = path.with_name(path.name + ".br"), path.with_name(path.name + ".gz")
        assert br.exists() and gz.exists(), path
        assert brotli.decompress(br.read_bytes()) == data, br
        assert gzip.decompress(gz.read_bytes()) == data, gz
        checked += 1
    assert checked > 50


def test_service_worker_lists_every_page_and_the_runtime(built_site):
    site, _, _ = built_site
    script = (site / "sw.js").read_text(encoding="utf-8")
    shell = json.loads(re.search(r"const SHELL = (\[.*?\]);", script).group(1))
    runtime = json.loads(re.search(r"const RUNTIME = (\[.*?\]);", script).group(1))
    every_page = {
        p.relative_to(site).as_posix().removesuffix("index.html") or "./" for loc in LOCALES for p in pages(site, loc)
    }
    assert every_page <= set(shell)
    for path in runtime + [p for p in shell if not p.endswith("/")]:
        assert (site / path).is_file(), path
    assert {"assets/pyodide/pyodide.asm.wasm", "assets/pyodide/python_stdlib.zip"} <= set(runtime)
    assert any(p.endswith(".whl") for p in runtime)
    assert any(p.endswith(".pyodide-snapshot") for p in runtime)  # kept for the next visit's start
    assert not any("pyodide" in p or p.endswith(".whl") for p in shell), "guide pages would download the runtime"
    assert re.search(r'const VERSION = "[0-9a-f]{16}";', script)
    # A module a cached script imports (the calculators' shared message types) is cached with it.
    imports = [
        (path, f"assets/javascripts/{module}")
        for path in shell
        if path.startswith("assets/javascripts/calculator")
        for module in re.findall(r'^import .* from "\./([\w.-]+)";', (site / path).read_text(encoding="utf-8"), re.M)
    ]
    assert imports and all(module in shell for _, module in imports), imports


@pytest.mark.parametrize("locale", LOCALES)
def test_every_table_scrolls_in_a_focusable_box(built_site, locale):
    site, _, _ = built_site
    for path in pages(site, locale):
        html = path.read_text(encoding="utf-8")
        for match in re.finditer(r"<table\b", html):
            opener = html.rfind("<div", 0, match.start())
            assert 'class="guide-scroll" tabindex="0"' in html[opener : match.start()], (
                path,
                html[opener : match.start()][:200],
            )


def test_runtime_urls_have_single_slashes(built_site):
    site, _, _ = built_site
    html = (site / "ja" / "memory" / "index.html").read_text(encoding="utf-8")
    pyodide = re.search(r'data-pyodide="([^"]+)"', html).group(1)
    assert pyodide == "../../assets/pyodide/"


@pytest.mark.parametrize("locale", LOCALES)
def test_material_bundle_is_loaded_by_the_interaction_loader_from_this_build(built_site, locale):
    """The theme's script is not a <script src> of the page: the page's start-up script
    (assets/javascripts/guide-page.js) loads it from the URL the template gives it, and the file it
    names must be this build's (a theme upgrade renames the bundle)."""
    site = built_site[0]
    page = site / ROOTS[locale] / "compare" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert re.search(r'<script src="[^"]*bundle\.[0-9a-f]{8}\.min\.js"', html) is None
    src = re.search(r'data-bundle="([^"]*bundle\.[0-9a-f]{8}\.min\.js)"', html).group(1)
    assert (page.parent / src).resolve().is_file(), src
