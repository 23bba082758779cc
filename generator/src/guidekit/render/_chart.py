"""Horizontal bar chart as inline SVG (no script, no external file), mirrored for right-to-left."""

from __future__ import annotations

from guidekit.l10n import direction, escape

# Each item takes two lines: its label across the full width, then its bar and value. A label of
# any length in any script therefore never runs into a bar or a value.
# Text is FONT user units high (guide.css), and the chart is drawn WIDTH units wide and shown at
# most 1.25 times that (guide.css caps it at 20rem): from 13 px in a 300 px column up to 17.5 px,
# readable at default zoom on a phone and not oversized on a desktop.
LABEL_LINE, BAR_LINE, GAP, BAR_H = 18, 22, 6, 14
WIDTH, VALUE_W, FONT = 320, 120, 14


def _text(cls: str, x: float, y: float, anchor: str, text: str) -> str:
    """One isolated text in the direction of its own script («12 س» right to left, number first). SVG
    reads text-anchor relative to that direction, so a right-to-left text swaps start and end to keep
    the edge the mirrored coordinates chose."""
    way = direction(text)
    if way == "rtl":
        anchor = {"start": "end", "end": "start"}.get(anchor, anchor)
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y}" text-anchor="{anchor}" direction="{way}" '
        f'unicode-bidi="isolate">{escape(text)}</text>'
    )


def bars_svg(title: str, items: list[tuple[str, float, str]], rtl: bool) -> str:
    """`items`: (label, value, value text). Bars scale to the largest value; zero bars keep their row."""
    row = LABEL_LINE + BAR_LINE + GAP
    height = row * len(items)
    top = max((value for _, value, _ in items), default=0) or 1
    bar_max = WIDTH - VALUE_W
    rows = []
    for i, (label, value, text) in enumerate(items):
        y = i * row
        w = max(0.0, value) / top * bar_max
        # Left to right: bar from the start edge, value after it. Right to left the same, mirrored.
        if rtl:
            label_x, anchor, bar_x = WIDTH, "end", WIDTH - w
            value_x, value_anchor = WIDTH - w - 6, "end"
        else:
            label_x, anchor, bar_x = 0, "start", 0
            value_x, value_anchor = w + 6, "start"
        bar_y = y + LABEL_LINE + (BAR_LINE - BAR_H) / 2
        rows.append(
            f"<g>{_text('guide-chart__label', label_x, y + LABEL_LINE - 5, anchor, label)}"
            f'<rect class="guide-bar guide-bar--{i % 8}" x="{bar_x:.1f}" y="{bar_y:.1f}" width="{w:.1f}" height="{BAR_H}" rx="2"></rect>'
            f"{_text('guide-chart__value', value_x, y + LABEL_LINE + BAR_LINE - 6, value_anchor, text)}</g>"
        )
    return (
        # direction="ltr": the coordinates above are already mirrored for right to left (each text
        # sets its own direction, `_text`). overflow: a label longer than the chart is wide still
        # shows whole rather than cut at the edge.
        f'<svg class="guide-chart" role="img" aria-label="{escape(title)}" direction="ltr" font-size="{FONT}" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" overflow="visible" xmlns="http://www.w3.org/2000/svg">'
        + "".join(rows)
        + "</svg>"
    )
