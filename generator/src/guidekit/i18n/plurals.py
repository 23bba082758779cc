"""Plural forms: the gettext Plural-Forms header each catalog carries, and the CLDR rule behind it.

A catalog's msgstr[i] are the CLDR categories an integer count can reach, in CLDR's order (zero, one,
two, few, many, other): Spanish one/other, Japanese other, Arabic all six, as GNU gettext, Poedit and
Weblate count them. The site's locales carry GNU's standard Plural-Forms (the text those tools expect);
any other locale gets one written from its CLDR rule. Babel's own table is not used: its Arabic
expression sends 100–102 to "many" (CLDR says "other") and it lags CLDR for Welsh or Hebrew.
Spanish CLDR also has "many" (exact millions: "1 millón de días"); no integer below a million reaches
it, gettext's two-form header has no slot for it, and the runtime shows those numbers with "other".

At run time the form is picked by evaluating the CLDR rule (`guidekit.l10n._plural`), which also knows
decimals (1.5 days) that gettext's integer-only expression cannot see; tests check the two agree on
every integer up to 1,000.
"""

from __future__ import annotations

import json
from functools import lru_cache

from babel.plural import PluralRule

from guidekit.l10n import PLURAL_FORMS as ORDER, plural_category as category
from guidekit.site.locales import babel_locale

GETTEXT_PLURAL_FORMS = {
    "es": "nplurals=2; plural=(n != 1);",
    "ja": "nplurals=1; plural=0;",
    "ar": "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);",
}
INTEGER_SAMPLE = range(1000)  # integers that decide which categories a catalog needs forms for


def plural_forms_header(locale: str) -> str:
    if (known := GETTEXT_PLURAL_FORMS.get(str(babel_locale(locale)))) is not None:
        return known
    tags, rules = forms(locale), dict(cldr_rules(locale))
    expr = str(len(tags) - 1)
    for index in range(len(tags) - 2, -1, -1):
        expr = f"{_c_condition(rules[tags[index]])} ? {index} : {expr}"
    return f"nplurals={len(tags)}; plural=({expr});"


def _c_condition(node) -> str:
    """A CLDR rule node as a C expression on an integer `n` (no fraction digits, no exponent)."""
    name, args = node
    if name in ("and", "or"):
        return f"({_c_condition(args[0])} {'&&' if name == 'and' else '||'} {_c_condition(args[1])})"
    if name == "not":
        return f"!{_c_condition(args[0])}"
    method, expr, (_, ranges) = args
    value = _c_value(expr)
    return (
        "("
        + " || ".join(
            f"{value}=={lo[1][0]}" if lo == hi else f"({value}>={lo[1][0]} && {value}<={hi[1][0]})" for lo, hi in ranges
        )
        + ")"
    )


def _c_value(node) -> str:
    name, args = node
    if name == "mod":
        return f"{_c_value(args[0])}%{args[1][1][0]}"
    return "n" if name in ("n", "i") else "0"  # v, w, f, t, c, e are 0 for an integer


@lru_cache(maxsize=None)
def cldr_rules(locale: str) -> list:
    """Babel's parsed CLDR rule as JSON-able lists: what `guidekit.l10n._plural.category` walks."""
    return json.loads(json.dumps(PluralRule.parse(babel_locale(locale).plural_form).abstract))


@lru_cache(maxsize=None)
def forms(locale: str) -> list[str]:
    """The category behind each msgstr[i] of `locale`'s catalog."""
    rules = cldr_rules(locale)
    reached = {category(rules, n) for n in INTEGER_SAMPLE}
    return [tag for tag in ORDER if tag in reached]
