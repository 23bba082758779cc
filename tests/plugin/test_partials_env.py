"""Partials escape what they show, translations included."""

import pytest
from jinja2 import DictLoader, Environment, TemplateSyntaxError

from guidekit.site.partials_env import partials_env

PACK = {"locale": "es", "messages": {"Title": '<img src=x onerror="alert(1)">Título'}}


def test_a_translation_cannot_inject_markup():
    theme = Environment(loader=DictLoader({"t.html": "<p>{{ _('Title') }} {{ value }}</p>"}))
    html = partials_env(theme, PACK).get_template("t.html").render(value="<b>x</b>")
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img" in html and "Título" in html


def test_untranslated_strings_show_their_msgid():
    theme = Environment(loader=DictLoader({"t.html": "{{ _('Missing') }}"}))
    assert partials_env(theme, PACK).get_template("t.html").render() == "Missing"


def _render(source: str, messages: dict, **context) -> str:
    theme = Environment(loader=DictLoader({"t.html": source}), extensions=["jinja2.ext.i18n"])  # as MkDocs' theme env
    return partials_env(theme, {"locale": "es", "messages": messages}).get_template("t.html").render(**context)


@pytest.mark.parametrize(
    ("msgstr", "shown"),
    [
        ("el 50 % sí", "el 50 % sí"),  # Jinja's gettext read "% s" as a directive: "el 50 {}í"
        ("50 %.", "50 %."),  # ... and "%." as a broken one: ValueError, a traceback naming the template
        ("%(name)s y 100 %%", "%(name)s y 100 %%"),  # `%` is text in every UI string
        ("Elegido: {name}", "Elegido: {name}"),  # a placeholder the page's script fills stays for it
    ],
)
def test_a_percent_sign_in_a_translation_is_text(msgstr, shown):
    assert _render("{{ _('Chosen: {name}') }}", {"Chosen: {name}": msgstr}) == shown


def test_params_fill_braces_as_the_translator_does():
    """One placeholder syntax for every UI string: the templates' `{name}` is guidekit.l10n's, escaped."""
    messages = {"{count} cards": "{count} tarjetas al 50 %", "ctx\x04Open": "Abrir"}
    assert _render("{{ _('{count} cards', count=n) }}", messages, n="<3>") == "&lt;3&gt; tarjetas al 50 %"
    assert _render("{{ pgettext('ctx', 'Open') }}", messages) == "Abrir"
    assert _render("{{ ngettext('{count} card', '{count} cards', n) }}", {}, n=2) == "2 cards"
    assert _render("{{ ngettext('{count} card', '{count} cards', 1, count='one') }}", {}) == "one card"


def test_trans_blocks_are_refused():
    """`{% trans %}` writes `%(name)s`/`%%` msgids that only Jinja's `%` formatting fills: not here."""
    with pytest.raises(TemplateSyntaxError, match="trans"):
        _render("{% trans %}50 %{% endtrans %}", {})
