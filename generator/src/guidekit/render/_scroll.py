"""A table too wide for a phone scrolls sideways inside a box that the keyboard can reach."""

from __future__ import annotations

from guidekit.l10n import escape


def scroll_region(inner_html: str, label: str | None = None) -> str:
    """Wrap `inner_html` (a table) in a horizontally scrolling box. A box that scrolls must take
    focus, or keyboard users cannot scroll it (WCAG 2.1.1; axe: scrollable-region-focusable);
    with a `label` (the table's caption) screen readers announce it as a named region."""
    named = f' role="region" aria-label="{escape(label)}"' if label else ""
    return f'<div class="guide-scroll" tabindex="0"{named}>{inner_html}</div>'
