"""The locale pack: everything locale-specific the calculators' renderer needs, as one JSON-able dict.

Built from Babel's CLDR data and the locale's gettext catalog; used as is by `guidekit.l10n` at build
time and shipped beside the page for the browser worker, so both format identically.
"""

from __future__ import annotations

import contextlib
import io
from functools import lru_cache
from pathlib import Path

from babel.messages.pofile import read_po
from babel.numbers import get_currency_symbol, parse_pattern

from guidekit.i18n import plurals
from guidekit.i18n.pofile import plural_header_problem
from guidekit.l10n import LIST_STYLES, NP_, PLURAL_FORMS, DateData, LocalePack, NumberSymbols, PluralData, message_key

from . import generator_catalogs
from .locales import babel_locale

CURRENCY = "USD"  # the catalog's prices are in US dollars
UNITS = {"gb": "digital-gigabyte", "hour": "duration-hour", "day": "duration-day", "second": "duration-second"}
# Units whose form after a number the translators choose, so the calculators write them as the pages'
# prose does: CLDR's Arabic «غ.ب», in a left-to-right figure, read backwards beside the prose's "24 GB".
UNIT_TEXT = {
    # TRANSLATORS: gigabytes after a number in the calculators and the catalog table ({value} is the
    # number). Write the unit exactly as this language's pages write it in prose.
    "gb": NP_("unit after a number", "{value} GB"),
}


def number_data(locale: str) -> NumberSymbols:
    loc = babel_locale(locale)
    symbols = (
        loc.number_symbols[loc.default_numbering_system]
        if "latn" not in loc.number_symbols
        else loc.number_symbols["latn"]
    )
    decimal = parse_pattern(loc.decimal_formats[None])
    percent = parse_pattern(loc.percent_formats[None])
    currency = parse_pattern(loc.currency_formats["standard"])
    symbol = get_currency_symbol(CURRENCY, loc)
    if loc.character_order == "right-to-left" and any(ch.isascii() and ch.isalpha() for ch in symbol):
        # CLDR's Arabic «‏96.80 US$» reads right to left, where "$", a neutral after the Latin letters,
        # takes the figure's direction and is drawn before them: "$US 96.80". A left-to-right mark
        # after it keeps the symbol whole: "US$ 96.80", the amount read first.
        symbol += "\u200e"
    return {
        "decimal": symbols["decimal"],
        "group": symbols["group"],
        # The sign as CLDR's negative pattern writes it (Babel, the reference, applies it so).
        "minus": decimal.prefix[1][: len(decimal.prefix[1]) - len(decimal.prefix[0])] or "-",
        "grouping": list(decimal.grouping),
        "percent": {"prefix": percent.prefix[0], "suffix": percent.suffix[0]},
        "currency": {
            "prefix": currency.prefix[0].replace("¤", symbol),
            "suffix": currency.suffix[0].replace("¤", symbol),
            "neg_prefix": currency.prefix[1].replace("¤", symbol),
            "neg_suffix": currency.suffix[1].replace("¤", symbol),
        },
    }


def unit_patterns(locale: str) -> dict[str, dict[str, str]]:
    """unit code -> {plural category: pattern}: Arabic writes "3 أيام" but "11 يومًا" and "100 يوم"."""
    data = babel_locale(locale)._data["unit_patterns"]
    return {
        code: {tag: data[cldr]["short"][tag] for tag in PLURAL_FORMS if tag in data[cldr]["short"]}
        for code, cldr in UNITS.items()
    }


@lru_cache(maxsize=None)
def prose_unit_patterns(locale: str) -> dict[str, dict[str, str]]:
    """The time units as running prose writes them: CLDR's long form («15.9 ساعة», "20,4 horas") over the
    short one the calculators' tables use («15.9 س», "20,4 h"), form by form where the long one is missing.
    GB stays as the catalog writes it (`UNIT_TEXT`)."""
    data = babel_locale(locale)._data["unit_patterns"]
    prose = {}
    for code, cldr in UNITS.items():
        if code in UNIT_TEXT:
            continue
        short, long = data[cldr]["short"], data[cldr].get("long") or {}
        forms = {tag: long[tag] if tag in long else short[tag] for tag in PLURAL_FORMS if tag in long or tag in short}
        prose[code] = forms
    return prose


def list_patterns(locale: str) -> dict[str, dict[str, str]]:
    """CLDR list style -> its patterns, as Babel's `format_list` applies them (`guidekit.l10n._lists`)."""
    data = babel_locale(locale).list_patterns
    return {style: {key: data[style][key] for key in ("2", "start", "middle", "end")} for style in LIST_STYLES}


def date_data(locale: str) -> DateData:
    """What `guidekit.l10n._dates` needs to write a timestamp as CLDR does: medium date, short time, the
    pattern that joins them, abbreviated and wide month names, and the AM/PM marks."""
    loc = babel_locale(locale)
    months = loc.months["format"]
    periods = loc.day_periods["format"]["abbreviated"]
    return {
        "date": loc.date_formats["medium"].pattern,
        "time": loc.time_formats["short"].pattern,
        "datetime": str(loc.datetime_formats["medium"]),
        "months": [months["abbreviated"][i] for i in range(1, 13)],
        "months_wide": [months["wide"][i] for i in range(1, 13)],
        "periods": [periods["am"], periods["pm"]],
    }


def catalog_messages(po_file: Path) -> dict[str, str | list[str]]:
    """Key (msgid, or msgctxt + EOT + msgid) -> msgstr, or the list of forms of a plural entry, for
    translated, non-fuzzy entries (an untranslated string shows its msgid)."""
    if not po_file.is_file():
        return {}
    raw = po_file.read_bytes()
    if problem := plural_header_problem(po_file, raw):
        raise ValueError(problem)
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # Babel prints its warnings; the translation check names them
            catalog = read_po(io.BytesIO(raw))
    except UnicodeDecodeError as exc:  # a ValueError: the plugin reports it as one line
        raise ValueError(
            f"{po_file}: not UTF-8 text ({exc.reason}: byte {exc.object[exc.start : exc.start + 1]!r}); "
            "save the catalog as UTF-8"
        ) from None
    messages: dict[str, str | list[str]] = {}
    for m in catalog:
        if not m.id or m.fuzzy:
            continue
        if isinstance(m.id, str):
            assert isinstance(m.string, str)  # read_po gives a single msgid a single msgstr
            if m.string:
                messages[message_key(m.id, m.context)] = m.string
        else:
            assert isinstance(m.string, tuple)  # and a plural msgid the tuple of its msgstr[i]
            if all(m.string):
                messages[message_key(m.id[0], m.context)] = list(m.string)
    return messages


@lru_cache(maxsize=None)
def _cldr(
    locale: str,
) -> tuple[NumberSymbols, dict[str, dict[str, str]], dict[str, dict[str, str]], str, PluralData, DateData]:
    plural: PluralData = {"rules": plurals.cldr_rules(locale), "forms": plurals.forms(locale)}
    return (
        number_data(locale),
        unit_patterns(locale),
        list_patterns(locale),
        babel_locale(locale).text_direction,
        plural,
        date_data(locale),
    )


def locale_pack(locale: str, locales_dir: Path, fallback: str | None = None) -> LocalePack:
    """`fallback` is the source locale: a string this locale has not translated yet shows in Spanish,
    like the untranslated pages, rather than as its English msgid."""
    numbers, units, lists, direction, plural, dates = _cldr(locale)
    messages = _messages(locale, locales_dir)
    if fallback and fallback != locale:
        borrowed = _messages(fallback, locales_dir)
        messages = _reindexed(borrowed, plurals.forms(fallback), plural["forms"]) | messages
    return {
        "locale": locale,
        "dir": direction,
        "numbers": numbers,
        "units": _translated_units(units, messages),
        "lists": lists,
        "plural": plural,
        "dates": dates,
        "messages": messages,
    }


def _messages(locale: str, locales_dir: Path) -> dict[str, str | list[str]]:
    """The project's translations over the generator's own for the same locale."""
    own = generator_catalogs.catalog_path(locale)
    shipped = catalog_messages(own) if own else {}
    return shipped | catalog_messages(locales_dir / locale / "LC_MESSAGES" / "messages.po")


def _translated_units(
    units: dict[str, dict[str, str]], messages: dict[str, str | list[str]]
) -> dict[str, dict[str, str]]:
    """CLDR's unit patterns, with those of `UNIT_TEXT` the catalog translates in their place."""
    chosen = {}
    for code, msg in UNIT_TEXT.items():
        text = messages.get(message_key(msg["msgid"], msg["context"]))
        if isinstance(text, str) and "{value}" in text:
            chosen[code] = {"other": text.replace("{value}", "{0}")}
    return units | chosen


def _reindexed(
    messages: dict[str, str | list[str]], source_forms: list[str], target_forms: list[str]
) -> dict[str, str | list[str]]:
    """Borrowed plural entries given one form per category of the borrowing locale: each takes the
    source's form for that category, or its "other" (Spanish one/other lent to Arabic's six)."""

    def forms(strings: list[str]) -> list[str]:
        by_tag = dict(zip(source_forms, strings))
        return [by_tag.get(tag, by_tag.get("other", strings[-1])) for tag in target_forms]

    return {key: forms(value) if isinstance(value, list) else value for key, value in messages.items()}
