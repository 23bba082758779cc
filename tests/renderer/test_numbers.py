"""guidekit.l10n's formatter applies the CLDR data the build exports; Babel is the reference."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from babel import Locale
from babel.numbers import format_currency, format_decimal, format_percent

from guidekit.l10n import NumberFormat
from guidekit.site import generator_catalogs
from guidekit.site.locale_pack import UNITS, locale_pack

# The site's three locales, and others with different grouping (hi), signs and spacing (de, fr).
LOCALES = ("es", "ja", "ar", "en", "de", "hi", "fr")
VALUES = (0, 1, -1, 7.5, 12.345, 999.999, 1000, 1234.5, -1234.5, 1_000_000, 123_456_789.125, 0.004, 41_943_040)


def cldr_pack(locale: str):
    """The pack with no catalog at all, the generator's own included: CLDR's data alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generator_catalogs, "catalog_path", lambda locale: None)
        return locale_pack(locale, Path("/nonexistent"))


@pytest.fixture(scope="module", params=LOCALES)
def locale_fmt(request):
    return request.param, NumberFormat(cldr_pack(request.param))


@pytest.mark.parametrize("value", VALUES)
def test_decimal_matches_babel(locale_fmt, value):
    locale, fmt = locale_fmt
    assert fmt.number(value, max_frac=3) == format_decimal(value, locale=locale)


@pytest.mark.parametrize("value", (0, 0.004, 0.25, 0.256, 1, 12.5, -0.1))
def test_percent_matches_babel(locale_fmt, value):
    locale, fmt = locale_fmt
    assert fmt.percent_of(value, max_frac=0) == format_percent(value, locale=locale)


@pytest.mark.parametrize("value", (0, 3, 1234.5, 98765.4321, -42.1))
def test_currency_matches_babel(locale_fmt, value):
    """As Babel writes it, but for the left-to-right mark that keeps Arabic's «US$» whole."""
    locale, fmt = locale_fmt
    money = fmt.money(value)
    assert money.replace("\u200e", "") == format_currency(value, "USD", locale=locale)
    assert ("US$\u200e" in money) == (locale == "ar")


@pytest.mark.parametrize(
    ("locale", "code", "value", "expected"),
    [
        ("es", "gb", 37.3, "37,3 GB"),
        ("ja", "hour", 12.5, "12.5 時間"),
        ("ar", "day", 3, "3 أيام"),  # CLDR's "few" form; "other" would read «3 يوم»
        ("ar", "day", 11, "11 يومًا"),
        ("ar", "day", 100, "100 يوم"),
    ],
)
def test_unit_patterns_come_from_cldr(locale, code, value, expected):
    assert NumberFormat(cldr_pack(locale)).unit(code, value) == expected


@pytest.mark.parametrize("value", (0, 1, 2, 3, 11, 100, 1.5, 0.25, 102, 1_000_000))
@pytest.mark.parametrize("code", sorted(UNITS))
def test_unit_plural_form_matches_babel(locale_fmt, code, value):
    """The pattern is the one for the plural category Babel gives the number (Arabic's "one" and "two"
    spell the number out: «يوم», «يومان»); a category the short length lacks takes its "other"
    (CLDR's fallback; Babel's format_unit would borrow the long length's "1 horas")."""
    locale, fmt = locale_fmt
    loc = Locale.parse(locale)
    short = loc._data["unit_patterns"][UNITS[code]]["short"]
    pattern = short.get(loc.plural_form(value), short["other"])
    assert fmt.unit(code, value) == pattern.replace("{0}", format_decimal(value, locale=locale))


def test_digits_round_the_shortest_decimal_half_to_even_as_babel_does():
    """`_digits` formats most values with Python's float formatting, which rounds the binary value,
    and takes Decimal only where that could differ from rounding the repr (ties, coarse floats). Over
    random values of every size and ties made on purpose, it must give what Babel does for each
    number of decimals shown."""
    rng = random.Random(7)
    values = [rng.uniform(-1, 1) * 10 ** rng.randint(-6, 16) for _ in range(3000)]
    values += [round(rng.uniform(-5000, 5000), rng.randint(0, 5)) for _ in range(3000)]  # short reprs, ties
    values += [2.675, 1.005, 0.125, 0.5, 1.5, 2.5, -0.005, -0.0001, 1e10 + 0.00005, 9999999999.99995, 0.0, -0.0]
    fmt = NumberFormat(locale_pack("en", Path("/nonexistent")))
    for value in values:
        for decimals in range(5):
            babel = format_decimal(value, format="0." + "#" * decimals if decimals else "0", locale="en")
            if not babel.strip("-0."):
                babel = babel.lstrip("-")  # Babel writes "-0"; the calculators show a rounded-away sign as 0
            assert fmt.plain(value, decimals) == babel, (value, decimals)


@pytest.mark.parametrize(("locale", "expected"), [("ar", "24 GB"), ("fr", "24\u202fGo"), ("de", "24\u00a0GB")])
def test_the_generators_catalog_chooses_the_gigabyte_as_its_prose_writes_it(locale, expected):
    """CLDR's Arabic «غ.ب» read backwards beside the prose's "24 GB": the package's Arabic catalog writes GB."""
    assert NumberFormat(locale_pack(locale, Path("/nonexistent"))).unit("gb", 24) == expected
