"""Each rule `guide-i18n status` enforces, broken once on the tiny project: the kind, the file and line it
names, and whether `--strict` fails on it. EDITORS.md lists the same rules."""

from __future__ import annotations

import json
import shutil

import pytest

from guidekit.i18n import sources as i18n_sources

from .conftest import guide_i18n, po


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, path)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _nav(root, titles: dict[str, str] | None = None):
    """A nav for the tiny project, with French titles for `titles`."""
    edit(root / "mkdocs.yml", "plugins:", "nav:\n  - Inicio: index.md\n  - Memoria: memory.md\nplugins:")
    if titles:
        block = "".join(f"\n            {es}: {fr}" for es, fr in titles.items())
        edit(
            root / "mkdocs.yml",
            "site_description: Un site d'essai.",
            "site_description: Un site d'essai.\n          nav_translations:" + block,
        )


def short_description(root):
    edit(
        root / "docs" / "fr" / "memory.md",
        "description: Une page d'essai pour les outils de traduction, avec des paragraphes, un bloc de code et trois sections.",
        "description: Trop courte.",
    )


def h1_not_title(root):
    edit(root / "docs" / "es" / "memory.md", "# Memoria {#memory}", "# Memoria y más {#memory}")
    # The translation follows the Spanish skeleton; only the Spanish page breaks the rule.


def heading_without_anchor(root):
    edit(root / "docs" / "fr" / "memory.md", "## Entrées {#inputs}", "## Entrées")


def misspelt_marker(root):
    edit(root / "docs" / "es" / "memory.md", "Tercer párrafo.", "Tercer párrafo.\n\n<!-- calculater: memory -->")


def missing_nav_translation(root):
    _nav(root, {"Inicio": "Accueil"})


def page_not_in_nav(root):
    _nav(root, {"Inicio": "Accueil", "Memoria": "Mémoire"})
    edit(root / "mkdocs.yml", "  - Memoria: memory.md\n", "")
    edit(root / "mkdocs.yml", "            Memoria: Mémoire", "")


def missing_site_name(root):
    edit(root / "mkdocs.yml", "          site_name: Mini\n", "")


def policy_for_unknown_locale(root):
    edit(root / "mkdocs.yml", "fr: complete", "fr: complete\n        de: in progress")


def undeclared_policy(root):
    edit(root / "mkdocs.yml", "      completeness:\n        fr: complete\n", "      completeness: {}\n")


def misspelt_policy_value(root):
    edit(root / "mkdocs.yml", "fr: complete", "fr: almost")


def stray_docs_folder(root):
    shutil.copytree(root / "docs" / "fr", root / "docs" / "de")


def stray_catalog_folder(root):
    (root / "locales" / "it" / "LC_MESSAGES").mkdir(parents=True)
    (root / "locales" / "it" / "LC_MESSAGES" / "messages.po").write_text(po("it", {}), encoding="utf-8")


def comparison_in_a_string(root):
    """Not a problem: a translation may compare with `<` as long as it is no tag."""
    for path in (root / "src" / "labels.py", root / "locales" / "messages.pot"):
        edit(path, "{count} cards fit", "{min} < x < {max}")
    edit(
        root / "locales" / "es" / "LC_MESSAGES" / "messages.po",
        'msgid "{count} cards fit"\nmsgstr "Caben {count} tarjetas"',
        'msgid "{min} < x < {max}"\nmsgstr "{min} < x < {max}"',
    )
    edit(
        root / "locales" / "fr" / "LC_MESSAGES" / "messages.po",
        'msgid "{count} cards fit"\nmsgstr "{count} cartes tiennent"',
        'msgid "{min} < x < {max}"\nmsgstr "{min} < x < {max}"',
    )


TERMS_FR = """
[[term]]
concept = "card"
preferred = "carte"
rejected = ["tarjeta", "carde"]
"""


def terminology(root, text=TERMS_FR):
    (root / "locales" / "fr" / "terminology.toml").write_text(text, encoding="utf-8")


def rejected_term_in_a_page(root):
    terminology(root)
    edit(root / "docs" / "fr" / "memory.md", "Deuxième paragraphe.", "Deuxième paragraphe, une tarjeta.")


def rejected_term_in_a_ui_string(root):
    terminology(root)
    edit(root / "locales" / "fr" / "LC_MESSAGES" / "messages.po", "{count} cartes tiennent", "{count} cardes tiennent")


def rejected_term_containing_the_preferred_form(root):
    terminology(root, TERMS_FR.replace('"carde"]', '"carde", "cartee"]'))  # as パラメーター holds パラメータ
    edit(root / "docs" / "fr" / "memory.md", "Deuxième paragraphe.", "Deuxième paragraphe, une cartee.")


def rejected_term_in_a_nav_title(root):
    terminology(root)
    _nav(root, {"Inicio": "Accueil", "Memoria": "La tarjeta"})


def malformed_terminology(root):
    terminology(root, '[[term]]\nconcept = "card"\npreferred = "carte"\n')


# (breaker, kind, location, words of the message); location None: the rule names no line there.
RULES = [
    (short_description, "rule", "docs/fr/memory.md:3", "description is 12 columns wide"),
    (h1_not_title, "rule", "docs/es/memory.md:6", "H1 'Memoria y más' differs from the front-matter title 'Memoria'"),
    (heading_without_anchor, "rule", "docs/fr/memory.md:12", "headings without an explicit {#anchor}: ['Entrées']"),
    (misspelt_marker, "rule", "docs/es/memory.md:23", "'<!-- calculater: memory -->' is not a build marker"),
    (missing_nav_translation, "nav", "mkdocs.yml:15", "nav_translations of fr lack 'Memoria'"),
    (page_not_in_nav, "nav", "docs/es/memory.md", "not in mkdocs.yml `nav:`"),
    (missing_site_name, "site", "mkdocs.yml:12", "fr has no `site_name`"),
    (
        policy_for_unknown_locale,
        "policy",
        "mkdocs.yml:20",
        "completeness names 'de', which is not a locale of this project",
    ),
    (undeclared_policy, "policy", "mkdocs.yml:18", "fr declares no completeness"),
    (stray_docs_folder, "stray", "docs/de", "no locale 'de' in mkdocs.yml"),
    (stray_catalog_folder, "stray", "locales/it", "no locale 'it' in mkdocs.yml"),
    (rejected_term_in_a_page, "term", "docs/fr/memory.md:14", "«tarjeta» for card: write «carte»"),
    (rejected_term_in_a_ui_string, "term", "locales/fr/LC_MESSAGES/messages.po:8", "«carde» for card: write «carte»"),
    (rejected_term_containing_the_preferred_form, "term", "docs/fr/memory.md:14", "«cartee» for card: write «carte»"),
    (rejected_term_in_a_nav_title, "term", "mkdocs.yml", "«tarjeta» for card: write «carte»"),
    (malformed_terminology, "term", "locales/fr/terminology.toml", "term 1 needs `concept`, a non-empty `preferred`"),
]


def test_terms_in_code_blocks_and_inside_the_preferred_form_are_not_flagged(capsys, tiny_project):
    terminology(tiny_project, TERMS_FR.replace('"tarjeta", "carde"', '"tarjeta", "cart"'))  # "cart" is inside "carte"
    edit(tiny_project / "docs" / "fr" / "memory.md", 'print("hola")', 'print("tarjeta")')
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 0, out


def test_a_term_slip_is_tolerated_while_a_locale_is_in_progress(capsys, tiny_project):
    rejected_term_in_a_page(tiny_project)
    edit(tiny_project / "mkdocs.yml", "fr: complete", "fr: in progress")
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 0 and "«tarjeta» for card" in out, out


@pytest.mark.parametrize("breaker, kind, location, words", RULES, ids=[rule[0].__name__ for rule in RULES])
def test_each_rule_is_reported_with_its_place_and_fails_strict(capsys, tiny_project, breaker, kind, location, words):
    assert guide_i18n(capsys, tiny_project, "status", "--strict")[0] == 0
    breaker(tiny_project)
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1, out
    assert any(line.strip().startswith(f"{location}: {kind}: ") and words in line for line in out.splitlines()), out


def test_a_misspelt_policy_stops_status_with_the_option_named(capsys, tiny_project):
    misspelt_policy_value(tiny_project)
    with pytest.raises(SystemExit) as error:
        guide_i18n(capsys, tiny_project, "status")
    assert (
        "plugins → guide → completeness: fr: 'almost' is not a completeness policy; expected `complete` or `in progress`"
        in str(error.value)
    )


def test_a_comparison_in_a_string_is_not_html(capsys, tiny_project):
    comparison_in_a_string(tiny_project)
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 0, out


def test_json_and_summary_modes(capsys, tiny_project):
    short_description(tiny_project)
    code, out = guide_i18n(capsys, tiny_project, "status", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is False
    fr = next(locale for locale in report["locales"] if locale["locale"] == "fr")
    assert fr["policy"] == "complete" and fr["pages"] == 2
    assert fr["problems"] == [
        {
            "locale": "fr",
            "kind": "rule",
            "where": "docs/fr/memory.md",
            "line": 3,
            "location": "docs/fr/memory.md:3",
            "message": "description is 12 columns wide (wide characters count 2), expected 80-160",
            "blocking": True,
        }
    ]
    code, out = guide_i18n(capsys, tiny_project, "status", "--summary", "--strict")
    assert code == 1
    assert out.splitlines() == [
        "messages.pot is up to date with the sources",
        "es is up to date (pages are the source, 1 of 1 UI strings translated)",
        "fr: 1 problem (1 of 2 pages current, 1 of 1 UI strings translated, complete)",
    ]


def test_locale_names_are_normalised_and_unknown_ones_fail(capsys, tiny_project):
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict", "--locale", "FR")
    assert code == 0 and "fr is up to date" in out and "es is" not in out
    for command in (["status"], ["check"], ["list-removable"], ["stamp", "--all"]):
        code, out = guide_i18n(capsys, tiny_project, *command, "--locale", "xx")
        assert code == 2, command
        assert out == f"guide-i18n {command[0]}: unknown locale 'xx': this project has es, fr (see mkdocs.yml)\n"


def test_stamp_refuses_an_untouched_translation_and_keeps_every_snapshot(capsys, tiny_project):
    spanish, french = tiny_project / "docs" / "es" / "memory.md", tiny_project / "docs" / "fr" / "memory.md"
    first = i18n_sources.file_hash(spanish)
    edit(spanish, "Segundo párrafo.", "Segundo párrafo, más largo.")
    before = french.read_bytes()
    code, out = guide_i18n(capsys, tiny_project, "stamp", "docs/fr/memory.md")
    assert code == 1 and french.read_bytes() == before
    assert out.startswith(
        f"docs/fr/memory.md: not stamped, it is unchanged since it was stamped against {first}, "
        "and docs/es/memory.md changed since (1 paragraph changed in #inputs; +1 -1 lines)"
    )
    # Once the translation changes, it stamps; the snapshot of the first version stays for other stamps.
    edit(french, "Deuxième paragraphe.", "Deuxième paragraphe, plus long.")
    assert guide_i18n(capsys, tiny_project, "stamp", "docs/fr/memory.md")[0] == 0
    assert (tiny_project / "locales" / "sources" / f"{first}.md").is_file()
    assert i18n_sources.recorded_hash(french.read_text(encoding="utf-8")) == i18n_sources.file_hash(spanish)
    # --force stamps an untouched page (a Spanish typo fix that needs no translation change).
    edit(spanish, "Tercer párrafo.", "Tercer párrafo")
    assert guide_i18n(capsys, tiny_project, "stamp", "docs/fr/memory.md")[0] == 1
    assert guide_i18n(capsys, tiny_project, "stamp", "--force", "docs/fr/memory.md")[0] == 0


def test_renamed_heading_reads_as_a_rename():
    old = "# T {#t}\n\n## Entradas {#inputs}\n\nUno.\n"
    change = i18n_sources.describe_change(old, old.replace("## Entradas {#inputs}", "## Datos de entrada {#inputs}"))
    assert change.headings_added == [] and change.headings_removed == []
    assert (
        change.summary()
        == "1 paragraph changed in #inputs; heading renamed ## Entradas {#inputs} → ## Datos de entrada {#inputs}; +1 -1 lines"
    )


def test_paragraph_counts_read_as_english():
    old = "# T {#t}\n\nUno.\n\nDos.\n\nTres.\n"
    new = "# T {#t}\n\nUno, otro.\n\nDos, otro.\n\nCuatro.\n\nCinco.\n"
    assert i18n_sources.describe_change(old, new).summary().startswith("3 paragraphs changed and 1 added in #t;")
    assert i18n_sources.describe_change(old, "# T {#t}\n\nUno.\n").summary().startswith("2 paragraphs removed in #t;")
