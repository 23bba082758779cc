"""Text from outside the project (a result file, a URL, a form key) made safe to show.

Bidi controls are removed (a U+202E in a key would display the rest of its line reversed), echoes
are clipped (a 4 MB key must not become a 4 MB message) and every such string is isolated in
`<bdi>`, so its own direction cannot reorder the localized sentence around it. The renderers call
these helpers and nothing else for that.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ._escape import escape

# Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the marks LRM, RLM, ALM.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
MAX_ECHO = 80  # characters of an outside string that a message repeats


def plain(text: object) -> str:
    """`text` without bidi control characters."""
    return BIDI_CONTROLS.sub("", str(text))


def clip(text: object, limit: int = MAX_ECHO) -> str:
    """`text` without bidi controls, cut to `limit` characters followed by "…"."""
    text = str(text)
    # Strip only the start of a huge string: its controls cannot shrink more than it holds.
    text = plain(text[: limit * 2] if len(text) > limit * 2 else text)
    return text if len(text) <= limit else text[:limit] + "…"


def bdi(text: str, cls: str = "", attrs: dict[str, str] | None = None) -> str:
    """Plain text as HTML isolated in <bdi>; the text is escaped, not stripped (locale number formats
    carry their own marks)."""
    extra = f' class="{escape(cls)}"' if cls else ""
    extra += "".join(f' {name}="{escape(value)}"' for name, value in (attrs or {}).items())
    return f"<bdi{extra}>{escape(text)}</bdi>"


def direction(text: str) -> str:
    """ "rtl" or "ltr", as the first strongly directional character sets it (HTML's dir="auto"): a figure
    «3 أيام» reads right to left, number first; "35.7 GB" and a bare number read left to right."""
    if text.isascii():  # no right-to-left letter in ASCII: most figures end here
        return "ltr"
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return "ltr"


def isolate(text: object) -> str:
    """An outside string as HTML: stripped of bidi controls, escaped, in <bdi>."""
    return bdi(plain(text))


def plain_strings(data: Any) -> Any:
    """A copy of parsed JSON with every string (keys too) stripped of bidi controls; iterative, as a
    result file may nest deeply or hold a million numbers."""

    def clean(node: Any) -> Any:
        if isinstance(node, str):
            return plain(node)
        if isinstance(node, dict):
            return {}
        if isinstance(node, list):
            return []
        return node

    root = clean(data)
    stack: list[tuple[Any, Any]] = [(data, root)] if isinstance(data, (dict, list)) else []
    while stack:
        source, target = stack.pop()
        if isinstance(source, list) and all(type(v) in _SCALARS for v in source):
            target.extend(source)  # the common case of a long series of numbers
            continue
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in items:
            copy = clean(value)
            if isinstance(target, dict):
                target[plain(key)] = copy
            else:
                target.append(copy)
            if isinstance(value, (dict, list)):
                stack.append((value, copy))
    return root


_SCALARS = (int, float, bool, type(None))
