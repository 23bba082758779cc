"""Renders calculators to HTML: the form's result panel, field errors and charts.

Standard library only, so the very same code renders the answer at build time (CPython) and on
every input change in the reader's browser (Pyodide). A *locale pack* (a plain dict the build
exports from Babel's CLDR data and the gettext catalogs) carries everything locale-specific.
"""

from ._figures import figure
from ._render import render, render_result
from ._numbers import NumberFormat
from ._text import Translator

__all__ = ["BROWSER_FILES", "NumberFormat", "Translator", "figure", "render", "render_result"]

# What the browser's Python reads from the site's wheels besides the calculator modules it is given:
# the build keeps these and drops the rest (guidebuild.assets.browser_only). The pilot package only
# for its result schema, which calcui.results validates an imported file against.
BROWSER_FILES = ("calcui/", "calculators/", "pilot/__init__.py", "pilot/schema/")
