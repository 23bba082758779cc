"""Localization, the generator's bottom layer: standard library only, in CPython and in the browser.

A *locale pack* (a plain dict the build exports from Babel's CLDR data and the gettext catalogs, shaped
as `LocalePack` declares) carries everything locale-specific; a `Localizer` made from it (its
translator `t` and number formatter `fmt`) is what renderers take. `N_` and its kin mark the English
message ids that Babel extracts.
"""

from ._dates import DATE_TIME, date_text, timestamp_html
from ._escape import escape
from ._isolate import bdi, clip, direction, isolate, plain, plain_strings
from ._lists import STYLES as LIST_STYLES
from ._localizer import Localizer
from ._markers import N_, NN_, NNP_, NP_, Msg
from ._numbers import NumberFormat
from ._pack import DateData, LocalePack, NumberSymbols, PluralData
from ._plural import ORDER as PLURAL_FORMS, category as plural_category
from ._text import Translator, message_key, plural_count

__all__ = [
    "DATE_TIME",
    "LIST_STYLES",
    "NN_",
    "NNP_",
    "NP_",
    "N_",
    "PLURAL_FORMS",
    "DateData",
    "LocalePack",
    "NumberSymbols",
    "PluralData",
    "Localizer",
    "Msg",
    "NumberFormat",
    "Translator",
    "bdi",
    "clip",
    "date_text",
    "direction",
    "escape",
    "isolate",
    "message_key",
    "plain",
    "plain_strings",
    "plural_category",
    "plural_count",
    "timestamp_html",
]
