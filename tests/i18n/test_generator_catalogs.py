"""The generator's own strings travel in its package (issue 50 item 4): complete catalogs for the locales
it ships, laid beneath a project's own; brought into a project's catalog where the package has no
translation; and `guide-i18n` working from the plugin's `locales_dir`, with or without a babel.cfg."""

from __future__ import annotations

import pytest
import yaml

from guidekit.i18n import generator_strings, po_checks
from guidekit.site import generator_catalogs
from guidekit.site.locale_pack import locale_pack

from .conftest import guide_i18n, po, write

PROMISED = {"es", "ja", "ar", "en", "de", "fr", "he", "zh"}  # the minimum


def test_the_package_ships_a_catalog_for_every_promised_locale():
    assert PROMISED <= set(generator_catalogs.shipped())


@pytest.mark.parametrize("locale", sorted(PROMISED))
def test_each_shipped_catalog_translates_every_string_cleanly(locale):
    """Complete, not fuzzy, placeholders intact, no HTML: what `guide-i18n status --strict` asks of a project."""
    catalog = po_checks.read_catalog(generator_catalogs.catalog_path(locale))
    problems = po_checks.entry_problems(catalog, generator_strings.template())
    assert not problems, [f"{p.kind}: {p.msgid} {p.message}" for p in problems]
    assert generator_strings.missing(locale) == []


@pytest.mark.parametrize(
    ("locale", "found"),
    [
        ("ja", "ja"),
        ("JA", "ja"),
        ("de-AT", "de"),  # the language's catalog serves its regions
        ("zh-CN", "zh"),
        ("zh-Hans", "zh"),
        ("zh-Hant", None),  # traditional script: the simplified catalog would be wrong
        ("zh-TW", None),
        ("pt-BR", None),
    ],
)
def test_a_projects_locale_reads_the_package_catalog_of_its_language_and_script(locale, found):
    path = generator_catalogs.catalog_path(locale)
    assert (path.parent.parent.name if path else None) == found


def test_the_projects_catalog_wins_and_the_package_beats_the_source_fallback(tmp_path):
    locales = tmp_path / "locales"
    write(locales / "es" / "LC_MESSAGES" / "messages.po", po("es", {"Copy link": "Copiar", "Result": "Total"}))
    write(locales / "ja" / "LC_MESSAGES" / "messages.po", po("ja", {"Result": "合計"}))
    write(locales / "pt" / "LC_MESSAGES" / "messages.po", po("pt", {}))
    ja = locale_pack("ja", locales, "es")["messages"]
    assert ja["Result"] == "合計"  # the author's own wording
    assert ja["Copy link"] == "リンクをコピー"  # the package's Japanese, not the Spanish fallback
    pt = locale_pack("pt", locales, "es")["messages"]
    assert pt["Copy link"] == "Copiar" and pt["Result"] == "Total"  # no Portuguese anywhere: the source's
    assert locale_pack("fr", tmp_path / "none", "es")["messages"]["Result"] == "Résultat"  # no catalogs at all


def _configure(root, change) -> None:
    """Edits mkdocs.yml's i18n languages and guide options in place."""
    config = yaml.safe_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    plugins = {next(iter(p)): p[next(iter(p))] for p in config["plugins"] if isinstance(p, dict)}
    change(plugins["i18n"]["languages"], plugins["guide"])
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")


@pytest.fixture
def portuguese_project(tiny_project):
    """tiny_project with Portuguese added: a locale the package does not translate."""
    _configure(tiny_project, lambda languages, guide: languages.insert(1, {"locale": "pt", "name": "Português"}))
    return tiny_project


def test_update_brings_the_generators_strings_into_a_locale_the_package_lacks(capsys, portuguese_project):
    code, out = guide_i18n(capsys, portuguese_project, "update")
    assert code == 0
    count = len(generator_strings.template())
    assert f"with {count} of the generator's strings, which guidekit does not translate into pt" in out
    pt = po_checks.read_catalog(portuguese_project / "locales" / "pt" / "LC_MESSAGES" / "messages.po")
    copy = pt.get("Copy link")
    assert copy is not None and copy.string == ""
    assert generator_strings.NOTE.format(locale="pt") in copy.auto_comments
    fr = po_checks.read_catalog(portuguese_project / "locales" / "fr" / "LC_MESSAGES" / "messages.po")
    assert fr.get("Copy link") is None  # the package speaks French: nothing to do here
    code, out = guide_i18n(capsys, portuguese_project, "status", "--locale", "pt")
    assert f"({count} of them the generator's, which guidekit does not translate)" in out
    assert "'Copy link'" in out and "untranslated" in out

    # Translated in the project's catalog, it is that project's Portuguese the readers see.
    path = portuguese_project / "locales" / "pt" / "LC_MESSAGES" / "messages.po"
    path.write_text(
        path.read_text(encoding="utf-8").replace('msgid "Copy link"\nmsgstr ""', 'msgid "Copy link"\nmsgstr "Copiar"'),
        encoding="utf-8",
    )
    assert locale_pack("pt", portuguese_project / "locales", "es")["messages"]["Copy link"] == "Copiar"
    assert guide_i18n(capsys, portuguese_project, "update")[0] == 0  # and a later update keeps it
    assert po_checks.read_catalog(path).get("Copy link").string == "Copiar"


def test_guide_i18n_reads_locales_dir_and_needs_no_babel_cfg(capsys, tiny_project):
    """The plugin's `locales_dir` is where the catalogs are; without babel.cfg the strings are those of the
    calculator modules mkdocs.yml names (never the generator's, nor the tests')."""
    (tiny_project / "babel.cfg").unlink()
    (tiny_project / "locales").rename(tiny_project / "i18n")
    write(tiny_project / "tests" / "test_x.py", 'N_ = str\nN_("not a UI string")\n')
    _configure(
        tiny_project,
        lambda languages, guide: guide.update(locales_dir="i18n", packages=["src"], calculator_modules=["labels"]),
    )
    write(tiny_project / "src" / "pyproject.toml", "[project]\nname = 'labels'\nversion = '1'\n")
    code, out = guide_i18n(capsys, tiny_project, "update")
    assert code == 0 and "i18n/fr/LC_MESSAGES/messages.po is up to date" in out, out
    template = po_checks.read_catalog(tiny_project / "i18n" / "messages.pot")
    assert [m.id for m in template if m.id] == ["{count} cards fit"]
    assert [path for path, _ in template.get("{count} cards fit").locations] == ["src/labels.py"]
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 0 and "messages.pot is up to date with the sources" in out, out
