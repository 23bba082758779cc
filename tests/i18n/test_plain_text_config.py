"""Issue 53 item 2: the titles and names editors and translators write in mkdocs.yml are text. Material
puts them into every page as they are (in elements and in attributes), so the build, `guide-i18n check`
and `guide-i18n add-locale` refuse markup in them, one line each naming the key and the locale."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from guidekit.i18n.plain_text import config_markup, markup_in
from guidekit.i18n.project import Project
from guidekit.site.plugin import GuidePlugin

from .conftest import guide_i18n


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Guía de GPU para ajuste fino", None),
        ("Q&A y R&D: 8 × H100", None),  # an ampersand that starts no reference is text
        ("ガイド「GPU」", None),
        ("<img src=x onerror=alert(1)>", "<"),
        ('x" onmouseover="alert(1)', '"'),
        ("1 &lt; 2", "&lt;"),
        ("&#60;script", "&#60;"),
        ("a > b", ">"),
    ],
)
def test_markup_is_what_a_browser_would_read_as_markup(text, found):
    assert markup_in(text) == found


def _plant(root: Path, old: str, new: str) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_markup_in_a_locales_titles_is_named_by_key_and_locale(tiny_project, capsys):
    assert config_markup(Project(tiny_project)) == []
    _plant(tiny_project, "          site_name: Mini", '          site_name: "<b onclick=x>Mini</b>"')
    _plant(tiny_project, "site_description: Un site d'essai.", "site_description: 'Un \"site\" d''essai.'")
    lines = config_markup(Project(tiny_project))
    assert lines == [
        "mkdocs.yml: the fr site_name holds markup ('<'): write it as plain text",
        "mkdocs.yml: the fr site_description holds markup ('\"'): write it as plain text",
    ]
    code, out = guide_i18n(capsys, tiny_project, "check")
    assert code == 1 and lines[0] in out and lines[1] in out


def test_the_build_stops_on_markup_in_nav_translations(tiny_project):
    _plant(
        tiny_project,
        "          site_description: Un site d'essai.",
        "          site_description: Un site d'essai.\n"
        "          nav_translations:\n"
        "            Memoria: '<script>alert(1)</script>'",
    )
    (tiny_project / "results").mkdir()
    i18n = SimpleNamespace(building=False, current_language="es", default_language="es")
    config = SimpleNamespace(
        plugins={"i18n": i18n},
        config_file_path=str(tiny_project / "mkdocs.yml"),
        docs_dir=str(tiny_project / "docs"),
        theme=SimpleNamespace(custom_dir=None, dirs=[]),
    )
    guide = GuidePlugin()
    errors, warnings = guide.load_config({})
    assert not errors
    with pytest.raises(PluginError, match=r"^mkdocs\.yml: the fr nav_translations\['Memoria'\] holds markup \('<'\)"):
        guide.on_config(config)


def test_add_locale_refuses_a_site_name_with_markup_and_writes_nothing(tiny_project, capsys):
    before = (tiny_project / "mkdocs.yml").read_text(encoding="utf-8")
    code, out = guide_i18n(capsys, tiny_project, "add-locale", "de", "--name", "Deutsch", "--site-name", "<i>Mini</i>")
    assert code == 2 and "--site-name holds markup ('<'): write it as plain text" in out
    assert (tiny_project / "mkdocs.yml").read_text(encoding="utf-8") == before
    assert not (tiny_project / "docs" / "de").exists()
