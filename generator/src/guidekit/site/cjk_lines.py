"""Line breaks inside Chinese and Japanese sentences, joined.

An editor may wrap a long Japanese paragraph in the Markdown source. Markdown keeps the newline as a
soft break, and a browser draws it as a space: 「実行\nします」 reads 「実行 します」, a space inside a
word. Japanese and Chinese put no space between words, so a newline between two of their characters is
never meant as one. The build removes it from the page's HTML (outside <pre>, where a line break is the
text), with any tags around it kept: 「…の\n<a>リンク</a>」 becomes 「…の<a>リンク</a>」.
"""

from __future__ import annotations

import re

# Kana, CJK ideographs, and the full-width punctuation and forms that sit between them.
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
# The elements a sentence runs through (between blocks or table cells a newline is layout, not text).
_INLINE = "(?:a|abbr|b|bdi|bdo|cite|code|em|i|kbd|mark|q|s|samp|small|span|strong|sub|sup|time|u|var)"
# The character before (and any inline closing tags), the break, and a look at the character after (past
# any inline opening tags), which the next break may need as its own "before".
_BREAK = re.compile(rf"([{_CJK}](?:</{_INLINE}>)*)[ \t]*\n[ \t]*(?=(?:<{_INLINE}(?:\s[^<>]*)?>)*[{_CJK}])")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.DOTALL | re.IGNORECASE)
# The languages written without spaces between words (BCP 47 primary subtags).
LANGUAGES = frozenset({"ja", "zh"})


def joins_lines(locale: str) -> bool:
    """Whether a page in `locale` has its line breaks between CJK characters joined."""
    return locale.split("-")[0].split("_")[0].lower() in LANGUAGES


def join_lines(html: str) -> str:
    """`html` without a newline (and the spaces around it) between two CJK characters, outside <pre>."""
    parts = _PRE.split(html)
    # Odd parts are <pre> blocks; a break at a join of two parts is left as it is.
    return "".join(part if i % 2 else _BREAK.sub(r"\1", part) for i, part in enumerate(parts))
