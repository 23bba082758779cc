"""Renders calculators to HTML: the form's result panel, field errors and charts.

Standard library only, so the very same code renders the answer at build time (CPython) and on
every input change in the reader's browser (Pyodide). A *locale pack* (a plain dict the build
exports from Babel's CLDR data and the gettext catalogs, shaped as `LocalePack` declares) carries
everything locale-specific; a `Localizer` made from it (its translator `t` and number formatter
`fmt`) is what the renderers take.
"""

from ._figures import figure, num
from ._lists import STYLES as LIST_STYLES
from ._localizer import Localizer
from ._numbers import NumberFormat
from ._pack import LocalePack
from ._plural import ORDER as PLURAL_FORMS, category as plural_category
from ._render import render, render_result
from ._scroll import scroll_region
from ._text import Translator, message_key

# Public beside the renderers: what the build uses to write a locale pack (its shape, list styles,
# plural forms and message keys), to localize with one (`Localizer`) and to mark up the figures and
# scroll regions it adds to pages.
__all__ = [
    "BROWSER_FILES",
    "LIST_STYLES",
    "LocalePack",
    "Localizer",
    "PLURAL_FORMS",
    "NumberFormat",
    "Translator",
    "figure",
    "message_key",
    "num",
    "plural_category",
    "render",
    "render_result",
    "scroll_region",
]

# What the browser's Python reads from the site's wheels besides the calculator modules it is given:
# the build keeps these and drops the rest (guidebuild.runtime.assets.browser_only). Of the pilot, only the
# result contract, which calcui.results reads an imported file with.
BROWSER_FILES = ("calcui/", "calculators/", "pilot/__init__.py", "pilot/result/")
