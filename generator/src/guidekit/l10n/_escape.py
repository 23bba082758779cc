"""HTML escaping for the calculators' markup: the same output as the standard library's `html.escape`.

Not imported from `html`: that package loads `html.entities` (its 2,231 named references) on import,
which was 85 ms of the browser worker's start in Pyodide, for five replacements.
"""

from __future__ import annotations


def escape(text: str, quote: bool = True) -> str:
    """`text` with &, < and > (and, with `quote`, both quote marks) as character references."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # & first: it starts the others
    if quote:
        text = text.replace('"', "&quot;").replace("'", "&#x27;")
    return text
