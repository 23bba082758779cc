"""One header set: generator/src/guidekit/site/headers.py is what `make serve` sends, what the build writes for
Netlify and Cloudflare Pages, and what the README's nginx and Caddy recipes and table say."""

from __future__ import annotations

import re

from guidekit.site import headers
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(language: str, containing: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", README, re.DOTALL)
    [block] = [b for b in blocks if containing in b]
    return block


def test_the_nginx_recipe_sends_the_header_set_everywhere():
    snippet = _block("nginx", "Content-Security-Policy")
    sent = dict(re.findall(r'^add_header ([\w-]+) "([^"]*)" always;$', snippet, re.MULTILINE))
    assert sent == headers.host_headers()
    # nginx drops inherited add_header lines in a location that has its own: each includes the set.
    locations = _block("nginx", "location /guia/")
    assert locations.count("location ") == locations.count("include snippets/guia-headers.conf;") == 2


def test_the_caddy_recipe_sends_the_header_set():
    block = re.search(r"header \{\n(.*?)\n\s*\}", _block("caddy", "example.org"), re.DOTALL).group(1)
    sent = dict(re.findall(r'^\s*([\w-]+) "([^"]*)"$', block, re.MULTILINE))
    assert sent == headers.host_headers()


def test_the_readme_table_lists_the_header_set():
    table = dict(re.findall(r"^\| `([\w-]+)` \| `([^`]*)` \|$", README, re.MULTILINE))
    assert table == headers.host_headers()


def test_the_headers_file_for_netlify_and_cloudflare(tmp_path):
    path = headers.write_headers_file(tmp_path)
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert lines[0] == "/*"
    assert dict(line.strip().split(": ", 1) for line in lines[1:]) == headers.host_headers()


def test_the_page_policy_is_the_header_policy_less_what_a_meta_tag_cannot_carry():
    assert headers.HEADER_POLICY == headers.META_POLICY + "; frame-ancestors 'none'"
    # Nothing from another origin, no inline script (no hash, no 'unsafe-inline'), no eval.
    for loose in ("https:", "*", "'unsafe-inline'", "'sha256-", "'unsafe-eval'"):
        assert loose not in headers.META_POLICY
    assert "'wasm-unsafe-eval'" in headers.META_POLICY
