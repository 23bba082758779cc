"""`<!-- figure: NAME -->` inside a sentence: a figure the calculators compute, written into the prose.

Generic: it knows the calculators' figure registry (`calculators.figure`), not which figures exist.
The value goes through the same localized formatter as the calculators' answers, isolated for
right-to-left text. An unknown name stops the build, naming the page and the figure.
"""

from __future__ import annotations

import calculators
from calcui import NumberFormat, Translator, figure
from calcui._figures import num
from mkdocs.exceptions import PluginError


def render_figure(name: str, pack: dict, page: str) -> str:
    found = calculators.figure(name)
    if found is None:
        raise PluginError(f"{page}: unknown figure {name!r} in <!-- figure: ... -->; "
                          f"known: {', '.join(calculators.figure_names())}")
    text = figure(found["value"], found["unit"], NumberFormat(pack), Translator(pack))
    return num(text, figure_name=name)
