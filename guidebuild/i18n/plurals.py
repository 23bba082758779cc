"""Plural forms: the gettext Plural-Forms header each catalog carries, and the CLDR rule behind it.

A catalog's msgstr[i] are the CLDR categories an integer count can reach, in CLDR's order (zero, one,
two, few, many, other): Spanish one/other, Japanese other, Arabic all six. That is the convention of GNU
gettext, Poedit and Weblate, so the header below is theirs; Babel's own table is used for other
languages, except Arabic, where Babel's expression sends 100–102 to "many" (CLDR says "other").
Spanish CLDR also has "many" (exact millions: "1 millón de días"); no integer below a million reaches
it, gettext's two-form header has no slot for it, and the runtime shows those numbers with "other".

At run time the form is picked by evaluating the CLDR rule (`calcui._plural`), which also knows
decimals (1.5 days) that gettext's integer-only expression cannot see; tests check the two agree on
every integer up to 1,000.
"""

from __future__ import annotations

import json
from functools import lru_cache

from babel import Locale
from babel.messages.plurals import get_plural
from babel.plural import PluralRule

from calcui._plural import ORDER, category

GETTEXT_PLURAL_FORMS = {
    "ar": (6, "(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)"),
}
INTEGER_SAMPLE = range(1000)  # integers that decide which categories a catalog needs forms for


def plural_forms_header(locale: str) -> str:
    count, expr = GETTEXT_PLURAL_FORMS.get(str(Locale.parse(locale)), None) or tuple(get_plural(locale))
    return f"nplurals={count}; plural={expr};"


@lru_cache(maxsize=None)
def cldr_rules(locale: str) -> list:
    """Babel's parsed CLDR rule as JSON-able lists: what `calcui._plural.category` walks."""
    return json.loads(json.dumps(PluralRule.parse(Locale.parse(locale).plural_form).abstract))


@lru_cache(maxsize=None)
def forms(locale: str) -> list[str]:
    """The category behind each msgstr[i] of `locale`'s catalog."""
    rules = cldr_rules(locale)
    reached = {category(rules, n) for n in INTEGER_SAMPLE}
    return [tag for tag in ORDER if tag in reached]
