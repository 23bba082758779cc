"""Horizontal bar chart as inline SVG (no script, no external file), mirrored for right-to-left."""

from __future__ import annotations

from html import escape

ROW, LABEL_W, BAR_W, VALUE_W, PAD = 28, 190, 300, 110, 4


def bars_svg(title: str, items: list[tuple[str, float, str]], rtl: bool) -> str:
    """`items`: (label, value, value text). Bars scale to the largest value; zero bars keep their row."""
    width = LABEL_W + BAR_W + VALUE_W
    height = ROW * len(items) + PAD
    top = max((value for _, value, _ in items), default=0) or 1
    rows = []
    for i, (label, value, text) in enumerate(items):
        y = i * ROW + PAD
        w = max(0.0, value) / top * (BAR_W - 8)
        # Left to right: label | bar → | value. Right to left the same, mirrored.
        if rtl:
            label_x, anchor = width - 6, "end"
            bar_x = width - LABEL_W - w
            value_x, value_anchor = width - LABEL_W - w - 6, "end"
        else:
            label_x, anchor = 6, "start"
            bar_x = LABEL_W
            value_x, value_anchor = LABEL_W + w + 6, "start"
        rows.append(
            f'<g><text x="{label_x:.1f}" y="{y + 17}" text-anchor="{anchor}">{escape(label)}</text>'
            f'<rect class="guide-bar guide-bar--{i % 8}" x="{bar_x:.1f}" y="{y + 4}" width="{w:.1f}" height="{ROW - 10}" rx="2"></rect>'
            f'<text x="{value_x:.1f}" y="{y + 17}" text-anchor="{value_anchor}" direction="ltr" unicode-bidi="isolate">{escape(text)}</text></g>'
        )
    return (
        # direction="ltr": the coordinates above are already mirrored for right to left, and SVG
        # reads text-anchor relative to the text's direction.
        f'<svg class="guide-chart" role="img" aria-label="{escape(title)}" direction="ltr" viewBox="0 0 {width} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">'
        + "".join(rows) + "</svg>"
    )
