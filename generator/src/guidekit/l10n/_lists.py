"""Lists joined as the locale writes them, from the CLDR list patterns exported into the locale pack.

Babel's `format_list` cannot run in Pyodide, so the build exports each style's four patterns
("2", "start", "middle", "end") and this applies them the same way: "a, b y c", "a、b、c",
"a وb وc"; the "or" style for alternatives ("a, b o c", "aまたはb", "a أو b"). A test holds it
equal to Babel for every locale, but for one rule of Japanese and Chinese typesetting Babel does not
apply: a space where the pattern's word meets a Latin item ("cost または memory").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Kana and ideographs (not the full-width punctuation 、, which takes no space): Japanese and Chinese put a
# half-width space between such a character and a Latin letter or digit, so CLDR's 「{0}または{1}」 joins
# 「cost または memory」 but 「オンデマンドまたはスポット」.
_WORD = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile("[A-Za-z0-9]")

STYLES = ("standard", "or")
# English (CLDR "en"), for a pack built without list patterns (the build's English problem lines).
ENGLISH = {
    "standard": {"2": "{0} and {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0}, and {1}"},
    "or": {"2": "{0} or {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0}, or {1}"},
}


def _apply(pattern: str, first: str, second: str) -> str:
    """One pattern ("{0}、または{1}") around two texts, spaced where its word meets a Latin item."""
    head, zero, rest = pattern.partition("{0}")
    between, one, tail = rest.partition("{1}")
    if not (zero and one):  # a pattern with its slots the other way round: as CLDR writes it
        return pattern.format(first, second)
    if between and _WORD.match(between[0]) and first and _LATIN.match(first[-1]):
        between = " " + between
    if between and _WORD.match(between[-1]) and second and _LATIN.match(second[0]):
        between += " "
    return head + first + between + second + tail


def join(patterns: dict[str, str], items: Iterable[object]) -> str:
    """`items` (already localized text) joined by the `patterns` of one CLDR list style."""
    texts = [str(item) for item in items]
    if len(texts) < 2:
        return texts[0] if texts else ""
    if len(texts) == 2:
        return _apply(patterns["2"], *texts)
    # Patterns hold only {0} and {1}; the items are arguments, never parsed as patterns themselves.
    text = _apply(patterns["start"], texts[0], texts[1])
    for item in texts[2:-1]:
        text = _apply(patterns["middle"], text, item)
    return _apply(patterns["end"], text, texts[-1])
