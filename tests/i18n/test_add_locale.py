"""`guide-i18n add-locale` on a copy of this project: catalog, docs folder, mkdocs.yml entry, and a build."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys

import pytest
import yaml
from babel.messages.pofile import read_po
from mkdocs.utils.yaml import yaml_load  # mkdocs.yml uses !ENV

from guidebuild.i18n.locale import insert_language, language_block

from .conftest import guide_i18n


def languages(root):
    config = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    return next(p["i18n"]["languages"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)


def test_add_locale_scaffolds_catalog_folder_and_config(capsys, copy_of_project):
    config = copy_of_project / "mkdocs.yml"
    before = config.read_text(encoding="utf-8")
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "fr", "--name", "Français",
                           "--site-name", "Guide des GPU pour l'ajustement fin", "--site-description", "Choisir : A100 ou H100 ?")
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
    assert languages(copy_of_project)[-1] == {"locale": "fr", "name": "Français", "build": True,
                                             "site_name": "Guide des GPU pour l'ajustement fin",
                                             "site_description": "Choisir : A100 ou H100 ?"}

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
    assert guide_i18n(capsys, copy_of_project, "add-locale", "JA", "--name", "日本語") == (2, "guide-i18n add-locale: ja is already in mkdocs.yml\n")
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "zz-nope", "--name", "Nope")
    assert code == 2 and "'zz-nope': Material has no translation of its interface" in out
    # Material translates its interface into Portuguese and Brazilian Portuguese, not into European Portuguese.
    code, out = guide_i18n(capsys, copy_of_project, "add-locale", "pt_PT", "--name", "Português")
    assert code == 2 and "'pt_PT': Material has no translation of its interface for this locale; it has pt, pt-BR" in out
    assert config.read_text(encoding="utf-8") == before
    assert not (copy_of_project / "locales" / "zz-nope").exists() and not (copy_of_project / "docs" / "zz-nope").exists()


def test_insert_language_follows_the_lists_own_indentation():
    text = "plugins:\n- i18n:\n    languages:\n    - locale: es\n      default: true\n    # a comment stays\n- guide\n"
    new = insert_language(text, lambda indent: language_block(indent, "de", "Deutsch", None, None))
    assert new == ("plugins:\n- i18n:\n    languages:\n    - locale: es\n      default: true\n"
                   "    - locale: de\n      name: Deutsch\n      build: true\n    # a comment stays\n- guide\n")
    with pytest.raises(ValueError):
        insert_language("plugins:\n- i18n:\n    languages: []\n", lambda indent: [])


@pytest.mark.slow
def test_added_locale_builds(capsys, copy_of_project):
    """MkDocs builds the new locale from Spanish fallbacks. The guide plugin is left out (it packs wheels and
    copies Pyodide, which the site tests cover); static-i18n, the theme and the overrides are all in."""
    assert guide_i18n(capsys, copy_of_project, "add-locale", "fr", "--name", "Français")[0] == 0
    config = yaml_load((copy_of_project / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"] = [p for p in config["plugins"] if p != "guide"]
    build_config = copy_of_project / "mkdocs-i18n-test.yml"
    build_config.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    site = copy_of_project / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(build_config), "-d", str(site)],
                            cwd=copy_of_project, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    page = (site / "fr" / "memory" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="fr"' in page
    assert 'id="memory-budget"' in page  # the Spanish page, served under /fr/
