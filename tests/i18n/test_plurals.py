"""Plural forms: every count string in every locale, at build time and through the browser's locale pack."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest

from calculators import NN_, NP_
from guidekit.i18n import plurals
from guidekit.i18n.pofile import read_catalog
from guidekit.l10n import Translator
from guidekit.l10n._plural import category, form_index
from guidekit.site.locale_pack import locale_pack

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ("es", "ja", "ar")
COUNTS = (0, 1, 2, 3, 11, 100)
# CLDR: Arabic uses all six categories on these counts; Spanish one/other; Japanese other only.
EXPECTED_CATEGORY = {
    "es": ["other", "one", "other", "other", "other", "other"],
    "ja": ["other"] * 6,
    "ar": ["zero", "one", "two", "few", "many", "other"],
}


def plural_entries(locale: str):
    catalog = read_catalog(ROOT / "locales" / locale / "LC_MESSAGES" / "messages.po", locale)
    return [m for m in catalog if m.id and not isinstance(m.id, str)]


@pytest.mark.parametrize("locale", LOCALES)
def test_categories_follow_cldr(locale):
    rules = plurals.cldr_rules(locale)
    assert [category(rules, n) for n in COUNTS] == EXPECTED_CATEGORY[locale]
    assert (
        plurals.forms(locale)
        == {"es": ["one", "other"], "ja": ["other"], "ar": ["zero", "one", "two", "few", "many", "other"]}[locale]
    )


@pytest.mark.parametrize("locale", [*LOCALES, "fr", "de", "ru", "pl", "cy", "he"])
def test_gettext_header_picks_the_form_cldr_picks(locale):
    """The catalog's Plural-Forms (what msgfmt, Poedit and Weblate use) and the CLDR rule the site
    evaluates choose the same msgstr[i] for every integer; Babel's own Arabic expression did not."""
    header = plurals.plural_forms_header(locale)
    count, expr = header.removesuffix(";").split("; plural=")
    pick = gettext.c2py(expr)
    forms, rules = plurals.forms(locale), plurals.cldr_rules(locale)
    assert int(count.removeprefix("nplurals=")) == len(forms)
    for n in [*range(1000), 1001, 1_000_000]:
        assert pick(n) == form_index(rules, forms, n), (locale, n)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_count_string_has_every_form_and_each_count_gets_its_own(locale):
    entries = plural_entries(locale)
    assert len(entries) >= 14  # the count strings: tokens, checks, steps, cards, limits in import errors...
    t = Translator(locale_pack(locale, ROOT / "locales"))
    forms = plurals.forms(locale)
    for message in entries:
        assert len(message.string) == len(forms) and all(message.string), message.id
        msg = NN_(*message.id)
        for n, expected_category in zip(COUNTS, EXPECTED_CATEGORY[locale]):
            params = dict(
                count=str(n),
                limit=str(n),
                layers=str(n),
                derived=str(n),
                source="S",
                threshold="5 %",
                mode="M",
                where="W",
                worst="1 %",
                goal="2 %",
                family="F",
                hidden="H",
                vocab="V",
                component="C",
                step="7",
                rtol="0.01",
                total=str(n),
                first="F",
                reason="R",
                value="V",
                loo="3 %",
                inside="90 %",
                pointer="/runs/0",
                seconds="1 s",
                size="2 GB",
                found="F",
                cards=str(n),
                streams="2",
                hours="H",
                sequential="S",
                gpu="G",
                billed="8",
            )
            shown = t(msg, n=n, **params)
            raw = message.string[forms.index(expected_category)]
            assert shown == raw.format(**params), (message.id, n)
    if locale == "ar":  # the six Arabic forms are written out, not copied: one and two spell the number
        for message in entries:
            zero, one, two, few, many, other = message.string
            assert len({one, two, few, other}) == 4, message.id  # "many" may share "other"'s spelling


def test_arabic_counts_read_right():
    t = Translator(locale_pack("ar", ROOT / "locales"))
    checks = NN_("No: {count} check failed", "No: {count} checks failed")
    assert [t(checks, n=n, count=str(n)) for n in (1, 2, 3, 11, 100)] == [
        "لا: فشل فحص واحد",
        "لا: فشل فحصان",
        "لا: فشلت 3 فحوص",
        "لا: فشل 11 فحصًا",
        "لا: فشل 100 فحص",
    ]


def test_the_locale_pack_carries_plural_entries_rule_and_contexts():
    pack = locale_pack("ar", ROOT / "locales")
    assert pack["plural"]["forms"] == ["zero", "one", "two", "few", "many", "other"]
    assert isinstance(pack["messages"]["{count} token"], list) and len(pack["messages"]["{count} token"]) == 6
    assert "pilot run outcome\x04Completed" in pack["messages"]
    es = Translator(locale_pack("es", ROOT / "locales"))
    assert es(NP_("pilot run outcome", "Completed")) == "Completada"
    assert es("Completed") == "Completed"  # the context-free msgid is another string: not translated by accident


def test_untranslated_count_strings_use_english_forms():
    t = Translator({"locale": "xx", "messages": {}})
    msg = NN_("{count} token", "{count} tokens")
    assert [t(msg, n=n, count=str(n)) for n in (0, 1, 2)] == ["0 tokens", "1 token", "2 tokens"]


def test_jinja_partials_get_plural_and_context_aware_gettext():
    from jinja2 import Environment

    from guidekit.site.partials_env import partials_env

    env = partials_env(Environment(), locale_pack("ar", ROOT / "locales"))
    template = env.from_string(
        '{{ ngettext("{count} token", "{count} tokens", n) }}|{{ pgettext("pilot run", "Run") }}'
    )
    # ngettext fills {count} with n, as guidekit.l10n's Translator does for the calculators' own plurals.
    assert template.render(n=3) == "3 رموز|التشغيل"
    assert template.render(n=2).startswith("رمزان|")


def test_a_rendered_pilot_page_uses_the_right_arabic_form():
    from gpuguide.results._page import _restore

    data = {"restore": {"performed": True, "passed": False, "failures": ["a", "b", "c"]}}
    pack = locale_pack("ar", ROOT / "locales")
    from guidekit.l10n import Localizer

    assert _restore(data, Localizer(pack)) == "لا: فشلت 3 فحوص"
