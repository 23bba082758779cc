"""`<!-- figure: NAME -->` inside a sentence: a figure the calculators compute, written into the prose.

Generic: it knows the calculators' figure registry (`calculators.figure`), not which figures exist.
The value goes through the same localized formatter as the calculators' answers, isolated for
right-to-left text. An unknown name stops the build, naming the page and the figure.
"""

from __future__ import annotations

import re
from html import escape

import calculators
from calcui import NumberFormat, Translator, figure
from mkdocs.exceptions import PluginError

MARKER = re.compile(r"<!--\s*figure:\s*([\w.-]+)\s*-->")


def embed(html: str, pack: dict, page: str) -> str:
    fmt, t = NumberFormat(pack), Translator(pack)

    def replace(match: re.Match) -> str:
        found = calculators.figure(match[1])
        if found is None:
            raise PluginError(f"{page}: unknown figure {match[1]!r} in <!-- figure: ... -->; "
                              f"known: {', '.join(calculators.figure_names())}")
        text = figure(found["value"], found["unit"], fmt, t)
        return f'<bdi class="guide-num" data-figure="{escape(match[1])}">{escape(text)}</bdi>'

    return MARKER.sub(replace, html)
