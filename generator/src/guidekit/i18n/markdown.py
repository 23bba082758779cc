"""The one Markdown scanner of the i18n tools: front matter and fenced code blocks, each read here only.

`split_front_matter` finds the front matter; `scan` walks the body and says of each line whether it opens a
fenced block, sits inside one (its closing fence included), or is prose. The skeleton check (`structure`)
and the change report (`sources`) both read pages through these two, so they agree on what is code.
"""

from __future__ import annotations

import re
from typing import Iterator, Literal

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# A code span on one line: its text is shown as written, never read as Markdown or as a marker.
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
FRONT_MATTER_FIELD = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*?)\s*$")

Kind = Literal["open", "code", "text"]


def front_matter_end(lines: list[str]) -> int | None:
    """Index of the `---` line closing the front matter, or None when the page has none."""
    if not lines or lines[0].strip() != "---":
        return None
    return next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)


def split_front_matter(text: str) -> tuple[dict[str, str], list[str]]:
    """The front matter's `key: value` fields (quotes stripped) and the lines after it."""
    lines = text.splitlines()
    end = front_matter_end(lines)
    if end is None:
        return {}, lines
    fields = {}
    for line in lines[1:end]:
        if match := FRONT_MATTER_FIELD.match(line):
            fields[match[1]] = match[2].strip().strip("\"'")
    return fields, lines[end + 1 :]


def closes_fence(line: str, fence: str) -> bool:
    """A fence of the same kind, at least as long, with nothing after it, closes an open block."""
    match = FENCE.match(line)
    return bool(
        match and match[1][0] == fence[0] and len(match[1]) >= len(fence) and not line.strip()[len(match[1]) :].strip()
    )


def scan(lines: list[str]) -> Iterator[tuple[Kind, str]]:
    """Each line with its kind: "open" (a fence opening a block), "code" (inside a block, its closing
    fence included) or "text" (everything else). A block left open runs to the end of the page."""
    fence: str | None = None
    for line in lines:
        if fence is not None:
            if closes_fence(line, fence):
                fence = None
            yield "code", line
        elif opening := FENCE.match(line):
            fence = opening[1]
            yield "open", line
        else:
            yield "text", line
