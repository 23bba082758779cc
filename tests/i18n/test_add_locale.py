"""`guide-i18n add-locale` on a copy of this project: catalog, docs folder, mkdocs.yml entry, and a build."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from babel.messages.pofile import read_po
from mkdocs.utils.yaml import yaml_load  # mkdocs.yml uses !ENV

from guidekit.i18n import generator_strings
from guidekit.i18n.add_locale import insert_language, language_block
from guidekit.l10n import message_key
from guidekit.site import search_split

from .conftest import ROOT, guide_i18n


def languages(root):
    config = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    return next(p["i18n"]["languages"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)


def test_add_locale_scaffolds_catalog_folder_and_config(capsys, copy_of_project):
    config = copy_of_project / "mkdocs.yml"
    before = config.read_text(encoding="utf-8")
    code, out = guide_i18n(
        capsys,
        copy_of_project,
        "add-locale",
        "fr",
        "--name",
        "Français",
        "--site-name",
        "Guide des GPU pour l'ajustement fin",
        "--site-description",
        "Choisir : A100 ou H100 ?",
    )
    assert code == 0, out
    assert "wrote locales/fr/LC_MESSAGES/messages.po" in out and "wrote mkdocs.yml" in out

    # mkdocs.yml: one block inserted after the last language, and the locale declared in progress under the
    # guide plugin's completeness; every other line as it was.
    after = config.read_text(encoding="utf-8")
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    added = [line[2:] for line in diff if line.startswith("+ ")]
    assert not [line for line in diff if line.startswith("- ")]
    assert added == [
        "        - locale: fr",
        "          name: Français",
        "          build: true",
        "          site_name: Guide des GPU pour l'ajustement fin",
        '          site_description: "Choisir : A100 ou H100 ?"',
        "        fr: in progress",
    ]
    assert after.replace("\n".join(added[:-1]) + "\n", "").replace(added[-1] + "\n", "") == before
    assert languages(copy_of_project)[-1] == {
        "locale": "fr",
        "name": "Français",
        "build": True,
        "site_name": "Guide des GPU pour l'ajustement fin",
        "site_description": "Choisir : A100 ou H100 ?",
    }

    # The catalog has every msgid of the template, none translated yet; the docs folder is empty.
    with (copy_of_project / "locales" / "messages.pot").open("rb") as fh:
        template = {m.id for m in read_po(fh) if m.id}
    with (copy_of_project / "locales" / "fr" / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        catalog = read_po(fh)
    assert {m.id for m in catalog if m.id} == template and str(catalog.locale) == "fr"
    assert [p.name for p in (copy_of_project / "docs" / "fr").iterdir()] == [".gitkeep"]

    # status now lists the new locale: every page missing (readers get Spanish), every string untranslated.
    code, out = guide_i18n(capsys, copy_of_project, "status", "--locale", "fr")
    assert "docs/fr/index.md: missing: no translation of docs/es/index.md" in out
    assert f"0 of {len(template)} UI strings translated" in out


def test_add_locale_refuses_known_or_unknown_locales(capsys, copy_of_project):
    config = copy_of_project / "mkdocs.yml"
    before = config.read_text(encoding="utf-8")
    assert guide_i18n(capsys, copy_of_project, "add-locale", "JA", "--name", "日本語") == (
        2,
        "guide-i18n add-locale: ja is already in mkdocs.yml\n",
    )
    # Attack finding 17: an empty name was accepted, and the switcher showed an empty entry.
    assert guide_i18n(capsys, copy_of_project, "add-locale", "fr", "--name", " ") == (
        2,
        "guide-i18n add-locale: --name is empty: give the language's name in itself, such as Français\n",
    )
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "zz-nope", "--name", "Nope")
    assert code == 2 and "'zz-nope': Material has no translation of its interface" in out
    # Material translates its interface into Portuguese and Brazilian Portuguese, not into European Portuguese.
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "pt_PT", "--name", "Português")
    assert (
        code == 2 and "'pt_PT': Material has no translation of its interface for this locale; it has pt, pt-BR" in out
    )
    assert config.read_text(encoding="utf-8") == before
    assert (
        not (copy_of_project / "locales" / "zz-nope").exists() and not (copy_of_project / "docs" / "zz-nope").exists()
    )


def test_pt_br_and_pt_underscore_br_are_one_locale(capsys, copy_of_project):
    """Material spells it pt-BR (its interface translation), Babel pt_BR (CLDR): either spelling scaffolds `pt-BR`,
    and the catalog carries Babel's code so its plural rules and headers are Brazilian Portuguese."""
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "pt_BR", "--name", "Português (Brasil)")
    assert code == 0, out
    assert "wrote locales/pt-BR/LC_MESSAGES/messages.po" in out and "wrote docs/pt-BR/.gitkeep" in out
    assert languages(copy_of_project)[-1]["locale"] == "pt-BR"
    with (copy_of_project / "locales" / "pt-BR" / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        assert str(read_po(fh).locale) == "pt_BR"
    assert guide_i18n(capsys, copy_of_project, "add-locale", "pt-br", "--name", "Português")[0] == 2
    code, out = guide_i18n(capsys, copy_of_project, "status", "--locale", "pt_br", "--summary")
    assert "pt-BR: " in out and "in progress" in out
    assert search_split.lunr_language("pt-BR") == "pt" and search_split.lunr_language("fr") == "fr"
    assert search_split.lunr_language("sq") == "en"  # Material has no Albanian pipeline: lunr's default


def test_insert_language_follows_the_lists_own_indentation():
    text = "plugins:\n- i18n:\n    languages:\n    - locale: es\n      default: true\n    # a comment stays\n- guide\n"
    new = insert_language(text, lambda indent: language_block(indent, "de", "Deutsch", None, None))
    assert new == (
        "plugins:\n- i18n:\n    languages:\n    - locale: es\n      default: true\n"
        "    - locale: de\n      name: Deutsch\n      build: true\n    # a comment stays\n- guide\n"
    )
    with pytest.raises(ValueError):
        insert_language("plugins:\n- i18n:\n    languages: []\n", lambda indent: [])


# What the full build needs beyond the translatable files: the packaged wheel's project, the pilot results,
# the accuracy matrix, Pyodide.
BUILD_PATHS = ("pyproject.toml", "README.md", "pilot", "results", "benchmarks/results")


@pytest.mark.slow  # a full three-plus-one-locale build: about 40 s
def test_added_locale_builds_green_with_spanish_fallbacks(capsys, copy_of_project):
    """French added to a copy of the project: the whole build (the guide plugin included) passes --strict,
    French search finds the pages French readers get in Spanish, that Spanish text is marked `lang="es"`
    inside the French page, and untranslated UI strings come out in Spanish rather than English."""
    for name in BUILD_PATHS:
        source, target = ROOT / name, copy_of_project / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (copy_of_project / "node_modules").symlink_to(ROOT / "node_modules")
    assert guide_i18n(capsys, copy_of_project, "add-locale", "fr", "--name", "Français")[0] == 0
    # status --strict stays green: French is declared in progress.
    code, out = guide_i18n(capsys, copy_of_project, "status", "--strict")
    assert code == 0 and "fr: " in out and "in progress" in out, out

    site = copy_of_project / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=copy_of_project,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr

    # Search: every page French readers are served is in the French index, in Spanish.
    index = json.loads((site / "fr" / "search" / "search_index.json").read_text(encoding="utf-8"))
    spanish = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index["config"]["lang"] == ["fr"]
    pages = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert pages == {doc["location"].split("#")[0] for doc in spanish["docs"]}
    assert len(pages) == len(list((copy_of_project / "docs" / "es").glob("*.md")))
    # The titles are the Spanish ones, but for the generator's own strings: its package speaks French.
    french_titles = {(d["location"], d["title"]) for d in index["docs"]}
    spanish_titles = {(d["location"], d["title"]) for d in spanish["docs"]}
    assert french_titles - spanish_titles == {
        ("memory/#calc-memory-result", "Résultat"),
        ("cost/#calc-cost-result", "Résultat"),
    }
    assert len(french_titles) == len(spanish_titles)
    assert any("Presupuesto de memoria" in doc["title"] for doc in index["docs"])

    # lang: the page is French, its Spanish text says it is Spanish; a translated locale's page has no such mark.
    page = (site / "fr" / "memory" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="fr" dir="ltr"' in page
    assert re.search(r'<div lang="es" dir="ltr"><h1 id="memory-budget">', page)
    assert "guide-fallback" not in page
    assert 'lang="es" dir="ltr"><h1' not in (site / "ja" / "memory" / "index.html").read_text(encoding="utf-8")

    # UI strings: the French pack falls back to the Spanish catalog (the calculators' labels), not to
    # English, but for the generator's own strings, which its package translates into French.
    pack = json.loads((site / "assets" / "calc" / "pack-fr.json").read_text(encoding="utf-8"))
    spanish_pack = json.loads((site / "assets" / "calc" / "pack-es.json").read_text(encoding="utf-8"))
    assert set(pack["messages"]) == set(spanish_pack["messages"]) and pack["locale"] == "fr"
    french = {key for key, text in pack["messages"].items() if text != spanish_pack["messages"][key]}
    generator = {message_key(*k) if isinstance(k, tuple) else k for k in generator_strings.provided("fr")}
    assert french and french <= generator
    assert (
        pack["messages"]["Result"] == "Résultat"
        and pack["messages"]["Restart the calculator"] != (spanish_pack["messages"]["Restart the calculator"])
    )
    # The banner: the generator's French, naming the source language as French writes it.
    assert "Traduction pas encore disponible" in page and "en espagnol" in page


def test_add_locale_refuses_to_write_through_a_linked_folder(capsys, copy_of_project, tmp_path):
    """Issue 53 item 3: `docs/fr` a link out of the project got its `.gitkeep` written there."""
    outside = tmp_path / "outside-fr"
    outside.mkdir()
    (copy_of_project / "docs" / "fr").symlink_to(outside)
    config = copy_of_project / "mkdocs.yml"
    before = config.read_text(encoding="utf-8")
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "fr", "--name", "Français")
    assert code == 2 and out == (
        f"guide-i18n add-locale: docs/fr is a symbolic link to {outside}: the build reads and publishes only the "
        "project's own folders. Replace the link with the folder itself\n"
    )
    assert config.read_text(encoding="utf-8") == before  # nothing written, here or there
    assert not any(outside.iterdir()) and not (copy_of_project / "locales" / "fr").exists()
