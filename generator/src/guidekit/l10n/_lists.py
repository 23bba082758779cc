"""Lists joined as the locale writes them, from the CLDR list patterns exported into the locale pack.

Babel's `format_list` cannot run in Pyodide, so the build exports each style's four patterns
("2", "start", "middle", "end") and this applies them the same way: "a, b y c", "a、b、c",
"a وb وc"; the "or" style for alternatives ("a, b o c", "aまたはb", "a أو b"). A test holds it
equal to Babel for every locale.
"""

from __future__ import annotations

from collections.abc import Iterable

STYLES = ("standard", "or")
# English (CLDR "en"), for a pack built without list patterns (the build's English problem lines).
ENGLISH = {
    "standard": {"2": "{0} and {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0}, and {1}"},
    "or": {"2": "{0} or {1}", "start": "{0}, {1}", "middle": "{0}, {1}", "end": "{0}, or {1}"},
}


def join(patterns: dict[str, str], items: Iterable[object]) -> str:
    """`items` (already localized text) joined by the `patterns` of one CLDR list style."""
    texts = [str(item) for item in items]
    if len(texts) < 2:
        return texts[0] if texts else ""
    if len(texts) == 2:
        return patterns["2"].format(*texts)
    # Patterns hold only {0} and {1}; the items are arguments, never parsed as patterns themselves.
    text = patterns["start"].format(texts[0], texts[1])
    for item in texts[2:-1]:
        text = patterns["middle"].format(text, item)
    return patterns["end"].format(text, texts[-1])
