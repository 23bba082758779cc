"""Renders calculators to HTML: the form's result panel, field errors, figures and charts.

Standard library only, so the very same code renders the answer at build time (CPython) and on
every input change in the reader's browser (Pyodide, through `worker`). The renderers take a
`guidekit.l10n.Localizer` for everything locale-specific.
"""

from ._chart import bars_svg
from ._figures import figure, num
from ._render import input_labels, list_text, render, render_result
from ._scroll import scroll_region

__all__ = [
    "bars_svg",
    "figure",
    "input_labels",
    "list_text",
    "num",
    "render",
    "render_result",
    "scroll_region",
]
