"""What a page, a template and a file under docs/ may bring into the site (the build's content policy),
without a build: hostile markup from the attack of 2026-12-05 (findings 1, 2, 11 and 12) and what must pass."""

from __future__ import annotations

import time

import pytest

from guidekit.site.content_policy import (
    page_problems,
    policy_meta_problems,
    static_file_problem,
    svg_problem,
    template_problems,
)

# -- a page's content ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "found"),
    [
        # Finding 1: a script file from docs/ ran under script-src 'self'.
        ('<p>x</p><script src="../evil.js"></script>', "a <script> element, which runs script"),
        ('<script type="application/json">{"a": 1}</script>', "a <script> element"),
        ('<svg><script href="x.js"></script></svg>', "a <script> element"),
        # Finding 11: parser differentials hid a handler from html.parser; a browser creates the <img>.
        (
            '<noscript><p title="</noscript><img src=x id=pwnA onerror=alert(1)>"></p></noscript>',
            "event handler onerror=",
        ),
        ('<noembed><p title="</noembed><img src=x onerror=alert(1)>"></p></noembed>', "event handler onerror="),
        ('<xmp><p title="</xmp><img src=x onerror=alert(1)>"></p></xmp>', "event handler onerror="),
        ('<![CDATA[ <img title="]]><img src=x onerror=alert(1)>"> ]]>', "event handler onerror="),
        ("<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>", "a <style> element"),
        # Finding 12: markup that loads from or targets another origin.
        ('<img src="https://evil.example/t.gif" alt="">', "src= loading from another origin"),
        ('<img src="//evil.example/t.gif" alt="">', "src= loading from another origin"),
        ('<img src="\\\\evil.example/t.gif" alt="">', "src= loading from another origin"),
        ('<img srcset="a.png 1x, https://evil.example/b.png 2x" src="a.png" alt="">', "srcset= loading from another"),
        ('<video poster="https://evil.example/p.png"></video>', "poster= loading from another origin"),
        ('<a href="https://example.org/" ping="https://evil.example/p">x</a>', "ping= loading from another origin"),
        ('<button formaction="https://evil.example/">x</button>', "formaction= loading from another origin"),
        ('<svg><image href="https://evil.example/i.png"/></svg>', "href= loading from another origin"),
        ('<link rel="dns-prefetch" href="//evil.example">', "a <link> element"),
        ('<link rel="stylesheet" href="https://evil.example/s.css">', "a <link> element"),
        ('<iframe src="https://evil.example/"></iframe>', "a <iframe> element"),
        ('<object data="x.swf"></object>', "a <object> element"),
        ('<embed src="x.swf">', "a <embed> element"),
        ('<form action="https://evil.example/"><input name=q></form>', "a <form> element"),
        ('<base href="https://evil.example/">', "a <base> element"),
        ("<style>body{background:url(https://evil.example/x)}</style>", "a <style> element"),
        ('<p style="background:url(https://evil.example/x)">x</p>', "a style= attribute"),
        ('<p STYLE="color:red">x</p>', "a style= attribute"),
        # Script the policy would block, as before.
        ('<button onclick="go()">x</button>', "event handler onclick="),
        ('<svg><circle ONLOAD="go()"/></svg>', "event handler onload="),
        ('<a href="javascript:go()">x</a>', "javascript: URL"),
        ('<a href=" JaVa&#x0A;Script:go()">x</a>', "javascript: URL"),
        ('<svg><a xlink:href="javascript:go()">x</a></svg>', "javascript: URL"),
        ('<p srcdoc="&lt;script&gt;">x</p>', "a srcdoc= attribute"),
    ],
)
def test_what_a_page_may_not_hold_is_found(html, found):
    problems = page_problems(html)
    assert len(problems) == 1 and problems[0].startswith(found), problems


@pytest.mark.parametrize(
    "html",
    [
        # Links to other sites are what a guide cites; images from the site itself or data: are its own.
        '<p>See <a href="https://mlcommons.org/benchmarks/training/" title="MLPerf">MLPerf</a>.</p>',
        '<a href="mailto:editor@example.org">x</a><a href="#sec">y</a><a href="../cost/">z</a>',
        '<img src="../assets/chart.png" alt="chart" srcset="chart.png 1x, chart@2x.png 2x">',
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="">',
        # Text about script is not script.
        "<p>Write <code>&lt;script&gt;alert(1)&lt;/script&gt;</code> or onclick=go() in prose.</p>",
        '<pre><code tabindex="0">&lt;a href="javascript:x"&gt;</code></pre>',
        '<a href="https://example.org/javascript:">x</a><details open><summary>y</summary></details>',
        '<!-- calculator: memory --><table><tr><td title="a">1</td></tr></table><abbr title="x">X</abbr>',
        '<div class="admonition note" markdown="1"><p class="admonition-title">Nota</p></div>',
    ],
)
def test_what_a_page_may_hold(html):
    assert page_problems(html) == []


def test_the_log_line_quotes_markup_short_and_on_one_line():
    [problem] = page_problems('<img alt="\n' + "x" * 500 + '" onerror="go()">')
    assert "\n" not in problem and len(problem) < 160


# -- the theme's templates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "found"),
    [
        ("<p>x</p><script>alert(1)</script>", "inline <script> 'alert(1)'"),
        ('<script type="module">import("./x.js")</script>', "inline <script>"),
        ('<script type="text/javascript; charset=utf-8">alert(1)</script>', "inline <script>"),
        ('<script type="importmap">{"imports": {}}</script>', "inline <script>"),
        ('<img src="x.png" onerror=go()>', "event handler onerror="),
        ('<form action="javascript:go()"></form>', "javascript: URL"),
        ('<script src="https://cdn.example/lib.js"></script>', "src= loading from another origin"),
        ('<link rel="stylesheet" href="https://fonts.example/css">', "href= loading from another origin"),
        ('<link rel="dns-prefetch" href="//evil.example">', "href= loading from another origin"),
        ('<link rel="canonical preload" href="https://evil.example/x">', "href= loading from another origin"),
    ],
)
def test_what_a_template_may_not_hold_is_found(html, found):
    problems = template_problems(html)
    assert len(problems) == 1 and problems[0].startswith(found), problems


@pytest.mark.parametrize(
    "html",
    [
        # Data blocks never run: Material's config, structured data.
        '<script id="__config" type="application/json">{"base": "."}</script>',
        '<script type="application/ld+json">{"@type": "Article"}</script>',
        # Scripts and styles from the site's files are what the policy allows.
        '<script src="assets/javascripts/guide-page.js" defer data-scope=".."></script>',
        '<link rel="stylesheet" href="../assets/stylesheets/guide.css"><link rel="icon" href="/favicon.png">',
        # The site's public address in links the browser does not fetch.
        '<link rel="canonical" href="https://guide.example/cost/">',
        '<link rel="alternate" hreflang="ja" href="https://guide.example/ja/cost/">',
        '<form class="md-search__form" name="search"><input type="text"></form>',
    ],
)
def test_what_a_template_may_hold(html):
    assert template_problems(html) == []


@pytest.mark.parametrize(
    ("html", "found"),
    [
        (
            '<meta http-equiv="refresh" content="4;url=https://evil.example/">',
            ['\'<meta http-equiv="refresh" content="4;url=https://evil.example/">\''],
        ),
        (
            '<p>x</p><META HTTP-EQUIV=Refresh CONTENT="0; url=//evil.example">',
            ['\'<meta http-equiv="Refresh" content="0; url=//evil.example">\''],
        ),
        ('<meta name="referrer" content="unsafe-url" />', ['\'<meta name="referrer" content="unsafe-url">\'']),
        ('<meta name=" Referrer " content="origin">', ['\'<meta name=" Referrer " content="origin">\'']),
        (
            '<meta http-equiv="Content-Security-Policy" content="script-src *">',
            ['\'<meta http-equiv="Content-Security-Policy" content="script-src *">\''],
        ),
    ],
)
def test_a_meta_that_overrides_the_policies_is_found(html, found):
    assert policy_meta_problems(html) == found


@pytest.mark.parametrize(
    "html",
    [
        '<meta name="description" content="refresh">',
        '<pre><code>&lt;meta http-equiv="refresh" content="0"&gt;</code></pre>',  # shown as code
        '<!-- <meta http-equiv="refresh" content="0"> -->',
        '<p>http-equiv="refresh"</p>',
    ],
)
def test_what_is_not_a_policy_meta(html):
    assert policy_meta_problems(html) == []


def test_a_large_page_is_checked_in_linear_time():
    """A page of 20,000 elements is checked in about the time of 2,000, ten times over (not a hundred)."""

    def seconds(count: int) -> float:
        html = '<p><a href="../x/">x</a> <img src="y.png" alt=""></p>' * count
        start = time.process_time()
        page_problems(html)
        template_problems(html)
        return time.process_time() - start

    small, large = min(seconds(2_000) for _ in range(3)), min(seconds(20_000) for _ in range(3))
    assert large < 25 * max(small, 1e-3)


# -- files under docs/ -----------------------------------------------------------------------------------

_SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 4 4">{}</svg>'


@pytest.mark.parametrize(
    ("name", "content", "found"),
    [
        # Findings 1 and 2: a script file, and HTML or XML a browser renders as a page of the site.
        ("evil.js", "alert(1)", "a .js file"),
        ("evil.mjs", "alert(1)", "a .mjs file"),
        ("evil.html", "<script>alert(document.domain)</script>", "a .html file"),
        ("evil.htm", "<b>x</b>", "a .htm file"),
        ("evil.xhtml", "<html/>", "a .xhtml file"),
        ("evil.xml", "<?xml-stylesheet href='x.xsl'?><x/>", "a .xml file"),
        ("extra.css", "body{}", "a .css file"),
        ("evil.svgz", "", "a .svgz file"),
        ("Makefile", "all:", "a file without an extension"),
    ],
)
def test_files_a_browser_runs_are_not_published(tmp_path, name, content, found):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    problem = static_file_problem(path)
    assert problem is not None and problem.startswith(found) and "docs/ publishes pages (.md)" in problem


@pytest.mark.parametrize("name", ["chart.png", "photo.JPG", "font.woff2", "data.csv", "paper.pdf", "run.json"])
def test_images_fonts_and_downloads_are_published(tmp_path, name):
    (tmp_path / name).write_bytes(b"\x89PNG\r\n")
    assert static_file_problem(tmp_path / name) is None


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ("<script>alert(1)</script>", "an SVG with a <script> element"),
        ('<circle r="1" onload="alert(1)"/>', "an SVG with an event handler onload="),
        ('<a xlink:href="javascript:alert(1)"><text>x</text></a>', "an SVG with a javascript: URL"),
        ("<foreignObject><p>x</p></foreignObject>", "an SVG with a <foreignObject> element"),
        ('<image href="https://evil.example/x.png"/>', "an SVG whose <image> loads"),
        ('<use xlink:href="//evil.example/s.svg#a"/>', "an SVG whose <use> loads"),
        ("<style>@import url(https://evil.example/s.css);</style>", "an SVG whose <style> loads a file"),
        ('<rect style="fill:url(https://evil.example/f)"/>', "an SVG whose style= on <rect> loads a file"),
        ('<a><set attributeName="href" to="javascript:alert(1)"/></a>', "an SVG whose <set> changes a link"),
    ],
)
def test_an_svg_that_runs_script_or_loads_elsewhere_is_refused(body, found):
    problem = svg_problem(_SVG.format(body).encode())
    assert problem is not None and problem.startswith(found), problem


def test_an_svg_with_entities_or_broken_xml_is_refused_in_bounded_time():
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(
            b'<!ENTITY a%d "&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;&a%d;">' % ((i,) + (i - 1,) * 10)
            for i in range(1, 10)
        )
        + b']><svg xmlns="http://www.w3.org/2000/svg">&a9;</svg>'
    )
    start = time.process_time()
    assert svg_problem(bomb).startswith("an SVG with a DOCTYPE or entities")
    assert svg_problem(b"<svg><g></svg>").startswith("an SVG that is not well-formed XML")
    assert svg_problem(b"<svg>" + b" " * 3_000_000 + b"</svg>").startswith("an SVG of 3,000,011 bytes")
    assert time.process_time() - start < 1


def test_a_plain_svg_is_published():
    body = '<defs><linearGradient id="g"/></defs><rect width="4" height="4" style="fill:url(#g)"/><use href="#g"/>'
    assert svg_problem(_SVG.format(body).encode()) is None
    assert svg_problem(_SVG.format('<a href="https://example.org/"><text>x</text></a>').encode()) is None


def test_editors_md_lists_every_rule():
    """EDITORS.md says exactly what is refused: every element a page may not hold and every published type."""
    from guidekit.site.content_policy import PAGE_ELEMENTS, STATIC_TYPES
    from tests.conftest import ROOT

    text = (ROOT / "EDITORS.md").read_text(encoding="utf-8")
    section = text.split("## What a page may hold", 1)[1].split("\n## ", 1)[0]
    assert [tag for tag in PAGE_ELEMENTS if f"`<{tag}>`" not in section and tag != "script"] == []
    assert [kind for kind in sorted(STATIC_TYPES) if f"`.{kind}`" not in section] == []
