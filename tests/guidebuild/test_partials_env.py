"""Partials escape what they show, translations included."""

from jinja2 import DictLoader, Environment

from guidebuild.partials_env import partials_env

PACK = {"locale": "es", "messages": {"Title": '<img src=x onerror="alert(1)">Título'}}


def test_a_translation_cannot_inject_markup():
    theme = Environment(loader=DictLoader({"t.html": "<p>{{ _('Title') }} {{ value }}</p>"}))
    html = partials_env(theme, PACK).get_template("t.html").render(value="<b>x</b>")
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img" in html and "Título" in html


def test_untranslated_strings_show_their_msgid():
    theme = Environment(loader=DictLoader({"t.html": "{{ _('Missing') }}"}))
    assert partials_env(theme, PACK).get_template("t.html").render() == "Missing"
