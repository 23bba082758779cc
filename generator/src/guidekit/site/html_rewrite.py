"""Changes made to each rendered page's HTML after the theme is done with it."""

from __future__ import annotations

import re
from html import unescape

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


def add_security_meta(html: str) -> str:
    """Insert the policy first in <head>, before anything it governs, and the referrer policy.

    The same policy travels as a header (generator/src/guidekit/site/headers.py); the <meta> keeps it on hosts that
    cannot send headers."""
    meta = (
        f'<meta http-equiv="Content-Security-Policy" content="{headers.META_POLICY}">'
        f'<meta name="referrer" content="{headers.REFERRER_POLICY}">'
    )
    return _HEAD_OPEN.sub(lambda m: m.group(0) + meta, html, count=1)
