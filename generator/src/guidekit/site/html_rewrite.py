"""Changes made to each rendered page's HTML after the theme is done with it."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

from guidekit.render import scroll_region

from . import headers

_HTML_TAG = re.compile(r"<html\b[^>]*>", re.IGNORECASE)
_HEAD_OPEN = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
# Markdown's tables and the catalog's: a bare <table> (the renderer's carry a class and wrap themselves).
_BARE_TABLE = re.compile(r"<table>.*?</table>", re.DOTALL)
_CAPTION = re.compile(r"<caption>(.*?)</caption>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
# A highlighted block: <pre><span></span><code> (Pygments), or a plain <pre><code>.
_CODE_BLOCK = re.compile(r"<pre>((?:<span></span>)?<code>)")


def wrap_tables(html: str) -> str:
    """Each bare table scrolls in its own focusable box, named by its caption where it has one.
    Material's script still wraps the table in its scroller; guide.css keeps that one from scrolling."""

    def wrap(match: re.Match[str]) -> str:
        caption = _CAPTION.search(match.group(0))
        label = " ".join(unescape(_TAG.sub("", caption.group(1))).split()) if caption else None
        return scroll_region(match.group(0), label)

    return _BARE_TABLE.sub(wrap, html)


def focusable_code(html: str) -> str:
    """Code blocks scroll sideways on a phone, so each takes keyboard focus. The <pre> scrolls and
    takes it (guide.css), not the <code>: Material's script owns the <code>'s tabindex and removes it
    on a device without hover, a phone, where the block scrolls most (axe: scrollable-region-focusable)."""
    return _CODE_BLOCK.sub(r'<pre tabindex="0">\1', html)


def set_root_language(html: str, lang: str, direction: str) -> str:
    """Put `lang` and `dir` on <html> itself: Material only sets `dir` on <body>, and
    screen readers and the bidi algorithm read it from the root."""
    tag = f'<html lang="{lang}" dir="{direction}" class="no-js">'
    return _HTML_TAG.sub(tag, html, count=1)


# A fallback page's content is bracketed by these while the search plugin reads it (a wrapping element would
# make Material index the H1 as a section of its own), and wrapped in its language once the page is rendered.
_FALLBACK_OPEN, _FALLBACK_CLOSE = "<!--guide-fallback:", "<!--/guide-fallback-->"
_FALLBACK = re.compile(
    re.escape(_FALLBACK_OPEN) + r"(?P<lang>[\w-]+) (?P<dir>rtl|ltr)-->(?P<body>.*?)" + re.escape(_FALLBACK_CLOSE),
    re.DOTALL,
)


def mark_fallback(html: str, lang: str, direction: str) -> str:
    """Brackets a page's content written in `lang` (a fallback page inside another locale's site)."""
    return f"{_FALLBACK_OPEN}{lang} {direction}-->{html}{_FALLBACK_CLOSE}"


def wrap_fallback(html: str) -> str:
    """The bracketed content in an element that says its language and direction."""
    return _FALLBACK.sub(lambda m: f'<div lang="{m["lang"]}" dir="{m["dir"]}">{m["body"]}</div>', html)


# A <script> whose type names none of these is a data block (Material's `__config` JSON): the browser
# never runs it, so the policy does not govern it. Parameters are ignored, to err on the side of script.
_SCRIPT_TYPES = {
    "",
    "module",
    "importmap",
    "speculationrules",
    "text/javascript",
    "application/javascript",
    "application/ecmascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
}
_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}
# Browsers drop ASCII whitespace and control characters from a URL before reading its scheme.
_URL_NOISE = re.compile(r"[\x00-\x20]")


class _InlineScripts(HTMLParser):
    """Every piece of markup that would run script from the page itself rather than from a file
    (`found`), and every <meta> that would override the site's policies (`meta`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.meta: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pairs = [(name, value or "") for name, value in attrs]
        names = dict(pairs)
        source = self.get_starttag_text() or f"<{tag}>"
        if tag == "script" and "src" not in names:
            kind = names.get("type", "").split(";")[0].strip().lower()
            self._in_script = kind in _SCRIPT_TYPES
        if tag == "meta" and ("http-equiv" in names or names.get("name", "").strip().lower() == "referrer"):
            self.meta.append(_excerpt(source))
        for name, value in pairs:
            if name.startswith("on") and len(name) > 2:
                self.found.append(f"event handler {name}= in {_excerpt(source)}")
            elif name in _URL_ATTRIBUTES and _URL_NOISE.sub("", value).lower().startswith("javascript:"):
                self.found.append(f"javascript: URL in {_excerpt(source)}")

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.found.append(f"inline <script> {_excerpt(data.strip())}")
            self._in_script = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False


def _excerpt(text: str, limit: int = 80) -> str:
    """A short, printable quote of markup for a build log line (no newline can forge a log line)."""
    text = " ".join(text.split())
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


def _scan(html: str) -> _InlineScripts:
    parser = _InlineScripts()
    parser.feed(html)
    parser.close()
    return parser


def inline_script_problems(html: str) -> list[str]:
    """What in `html` the site's policy would block as inline script: a <script> with a body and no
    src (unless it is a data block), an on*= event handler attribute, a javascript: URL."""
    return _scan(html).found


def policy_meta_problems(html: str) -> list[str]:
    """Each <meta http-equiv> (a refresh sends the reader elsewhere; others set headers) and
    <meta name="referrer"> (it overrides the site's no-referrer policy) in `html`: only the build's
    own, which `add_security_meta` puts first in <head>, may set them."""
    return _scan(html).meta


def add_security_meta(html: str) -> str:
    """Insert the policy first in <head>, before anything it governs, and the referrer policy.

    The same policy travels as a header (generator/src/guidekit/site/headers.py); the <meta> keeps it on hosts that
    cannot send headers."""
    meta = (
        f'<meta http-equiv="Content-Security-Policy" content="{headers.META_POLICY}">'
        f'<meta name="referrer" content="{headers.REFERRER_POLICY}">'
    )
    return _HEAD_OPEN.sub(lambda m: m.group(0) + meta, html, count=1)
