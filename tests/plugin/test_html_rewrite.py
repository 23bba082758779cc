"""Rewrites of each page's HTML that do not need a build."""

from __future__ import annotations

import pytest

from guidekit.site.html_rewrite import focusable_code, inline_script_problems, policy_meta_problems


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        # Pygments' highlighted block and a plain fenced block both take focus on the <pre>, which scrolls:
        # Material's script removes a <code>'s tabindex on a phone.
        ("<pre><span></span><code>x = 1</code></pre>", '<pre tabindex="0"><span></span><code>x = 1</code></pre>'),
        ("<pre><code>nvidia-smi</code></pre>", '<pre tabindex="0"><code>nvidia-smi</code></pre>'),
        # Inline code in prose does not scroll and stays out of the tab order.
        ("<p>run <code>make serve</code></p>", "<p>run <code>make serve</code></p>"),
    ],
)
def test_code_blocks_take_focus_inline_code_does_not(html, expected):
    assert focusable_code(html) == expected


@pytest.mark.parametrize(
    ("html", "found"),
    [
        ("<p>x</p><script>alert(1)</script>", "inline <script> 'alert(1)'"),
        ('<script type="module">import("./x.js")</script>', "inline <script>"),
        ('<script type="text/javascript; charset=utf-8">alert(1)</script>', "inline <script>"),
        ('<script type="importmap">{"imports": {}}</script>', "inline <script>"),
        ('<button onclick="go()">x</button>', "event handler onclick="),
        ('<svg><circle ONLOAD="go()"/></svg>', "event handler onload="),
        ('<img src="x.png" onerror=go()>', "event handler onerror="),
        ('<a href="javascript:go()">x</a>', "javascript: URL"),
        ('<a href=" JaVa&#x0A;Script:go()">x</a>', "javascript: URL"),
        ('<form action="javascript:go()"></form>', "javascript: URL"),
        ('<svg><a xlink:href="javascript:go()">x</a></svg>', "javascript: URL"),
    ],
)
def test_inline_script_is_found(html, found):
    problems = inline_script_problems(html)
    assert len(problems) == 1 and problems[0].startswith(found), problems


@pytest.mark.parametrize(
    "html",
    [
        # Data blocks never run: Material's config, structured data.
        '<script id="__config" type="application/json">{"base": "."}</script>',
        '<script type="application/ld+json">{"@type": "Article"}</script>',
        # Scripts from files are what the policy allows.
        '<script src="assets/javascripts/guide-page.js" defer data-scope=".."></script>',
        '<script type="module" src="calculator.js"></script>',
        # Text about script is not script.
        "<p>Write <code>&lt;script&gt;alert(1)&lt;/script&gt;</code> or onclick=go() in prose.</p>",
        '<pre><code tabindex="0">&lt;a href="javascript:x"&gt;</code></pre>',
        '<a href="https://example.org/javascript:">x</a><details open><summary>y</summary></details>',
    ],
)
def test_what_is_not_inline_script(html):
    assert inline_script_problems(html) == []


def test_the_log_line_quotes_markup_short_and_on_one_line():
    [problem] = inline_script_problems("<script>\nalert('ok')\n" + "x" * 500 + "</script>")
    assert "\n" not in problem and len(problem) < 120


@pytest.mark.parametrize(
    ("html", "found"),
    [
        (
            '<meta http-equiv="refresh" content="4;url=https://evil.example/">',
            ['\'<meta http-equiv="refresh" content="4;url=https://evil.example/">\''],
        ),
        (
            '<p>x</p><META HTTP-EQUIV=Refresh CONTENT="0; url=//evil.example">',
            ["'<META HTTP-EQUIV=Refresh CONTENT=\"0; url=//evil.example\">'"],
        ),
        ('<meta name="referrer" content="unsafe-url" />', ['\'<meta name="referrer" content="unsafe-url" />\'']),
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
