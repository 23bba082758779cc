"""Renders calculators to HTML: the form's result panel, field errors and charts.

Standard library only, so the very same code renders the answer at build time (CPython) and on
every input change in the reader's browser (Pyodide). A *locale pack* (a plain dict the build
exports from Babel's CLDR data and the gettext catalogs) carries everything locale-specific.
"""

from ._figures import figure
from ._render import render, render_result
from ._numbers import NumberFormat
from ._text import Translator

__all__ = ["NumberFormat", "Translator", "figure", "render", "render_result"]
