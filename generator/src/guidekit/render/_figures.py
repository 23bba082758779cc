"""One typed figure (value + unit code from the calculators' display contract) to localized text."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from guidekit.calc.display import UNITS
from guidekit.l10n import Localizer, direction, escape


@lru_cache(maxsize=4096)  # a pure function of its text, which the next answer mostly repeats
def num(text: str, figure_name: str | None = None) -> str:
    """A figure's text as HTML, isolated in <bdi> with the direction of its own script: "35.7 GB" left to
    right, Arabic «3 أيام» right to left, so the number comes first in reading order either way."""
    # bdi()'s markup, written out: escaping its constant attributes was a tenth of an answer's time.
    name = f' data-figure="{escape(figure_name)}"' if figure_name else ""
    return f'<bdi class="guide-num"{name} dir="{direction(text)}">{escape(text)}</bdi>'


def figure(value: Any, unit: str, loc: Localizer) -> str:
    """Plain text for a value; the caller escapes it."""
    if value is None:
        return "—"
    fmt = loc.fmt
    if fmt.memo is None:
        return UNITS[unit].format(value, loc)
    # The type is part of the key: 1, 1.0 and True are one dict key, but not one "raw" text.
    key = (unit, type(value), repr(value) if isinstance(value, (list, dict)) else value)
    text = fmt.memo.get(key)
    if text is None:
        if len(fmt.memo) > 8192:
            fmt.memo.clear()
        text = fmt.memo[key] = UNITS[unit].format(value, loc)
    return text
