"""`<!-- figure: NAME -->` inside a sentence: a figure the calculators compute, written into the prose.

Generic: it knows the calculators' figure registry (`guidekit.calc.figure`), not which figures exist.
The value goes through the same localized formatter as the calculators' answers, isolated for
right-to-left text, with time units written out as prose writes them. An unknown name, or a figure with nothing to write, stops the build, naming the page
and the figure: a sentence with a hole in it ("the cheapest plan is , and") must not be published.
"""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from guidekit import calc
from guidekit.l10n import LocalePack, Localizer
from guidekit.render import figure, num

from ..locale_pack import prose_unit_patterns


def prose_localizer(pack: LocalePack) -> Localizer:
    """The pack's localizer, with time units in the long form a sentence takes («15.9 ساعة», not «15.9 س»)."""
    return Localizer({**pack, "units": {**pack["units"], **prose_unit_patterns(pack["locale"])}})


def render_figure(name: str, pack: LocalePack, page: str) -> str:
    try:
        found = calc.figure(name)
    except ValueError as exc:  # a figure that refuses to back its sentence (e.g. a "cheapest" that does not hold)
        raise PluginError(f"{page}: figure {name!r} in <!-- figure: ... -->: {exc}") from None
    if found is None:
        raise PluginError(
            f"{page}: unknown figure {name!r} in <!-- figure: ... -->; known: {', '.join(calc.figure_names())}"
        )
    loc = prose_localizer(pack)
    text = figure(found["value"], found["unit"], loc)
    # Blank, or the mark the renderer writes for a missing value ("—"): either leaves a hole in the sentence.
    if text.strip() in ("", figure(None, found["unit"], loc)):
        raise PluginError(
            f"{page}: figure {name!r} in <!-- figure: ... --> is empty: the calculators gave it "
            f"{found['value']!r} ({found['unit']}), which writes nothing into the sentence"
        )
    return num(text, figure_name=name)
