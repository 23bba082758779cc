"""The locale pack's declared shape: what the build writes (`guidekit.site.locale_pack`) and the renderers read.

The build exports it from Babel's CLDR data and the locale's gettext catalog, as one JSON-able dict;
the renderers read it at build time and in the browser worker, so both format identically.
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired only from evaluated annotations.
from typing import Any, NotRequired, TypedDict

from ._lists import ENGLISH as _ENGLISH_LISTS


class NumberSymbols(TypedDict):
    decimal: str
    group: str
    minus: str
    grouping: list[int]  # [primary, secondary] group sizes
    percent: dict[str, str]  # {"prefix", "suffix"} around the number
    currency: dict[str, str]  # {"prefix", "suffix", "neg_prefix", "neg_suffix"} around the amount


class PluralData(TypedDict):
    rules: list[list[Any]]  # the CLDR rule: [tag, rule node] pairs, as nested JSON lists (`_plural.category` walks it)
    forms: list[str]  # the catalog's plural forms, in msgstr[i] order ("one", "other")


class DateData(TypedDict):
    date: str  # CLDR medium date pattern
    time: str  # CLDR short time pattern
    datetime: str  # the pattern joining them: "{1}, {0}"
    months: list[str]  # abbreviated, January first
    months_wide: list[str]
    periods: list[str]  # [AM, PM]


class LocalePack(TypedDict):
    """What the build writes for one locale, and all the renderers read. `dates` may be missing (a
    timestamp then shows as written); the readers default `dir`, `plural`, `lists` and `messages`
    the same way for packs written by hand."""

    locale: str
    dir: str  # "ltr" or "rtl"
    numbers: NumberSymbols
    units: dict[str, dict[str, str]]  # unit code -> {plural category: pattern with {0}}
    plural: PluralData
    lists: dict[str, dict[str, str]]  # CLDR list style -> its "2", "start", "middle", "end" patterns
    dates: NotRequired[DateData]
    messages: dict[str, str | list[str]]  # message key (`message_key`) -> msgstr, or msgstr[i] forms


# English as the CLI and the build's reports write it: untranslated msgids, CLDR "en" symbols.
ENGLISH_PACK: LocalePack = {
    "locale": "en",
    "dir": "ltr",
    "numbers": {
        "decimal": ".",
        "group": ",",
        "minus": "-",
        "grouping": [3, 3],
        "percent": {"prefix": "", "suffix": "%"},
        "currency": {"prefix": "$", "suffix": "", "neg_prefix": "-$", "neg_suffix": ""},
    },
    "units": {"gb": {"other": "{0} GB"}, "hour": {"other": "{0} h"}, "day": {"other": "{0} d"}},
    "plural": {"rules": [], "forms": ["one", "other"]},
    "lists": _ENGLISH_LISTS,
    "messages": {},
}
