"""The translator's view: `guide-i18n diff` (changed Spanish paragraphs beside the translation, by section)
and `list-removable` (translated pages whose Spanish page is gone)."""

from __future__ import annotations

from .conftest import guide_i18n


def test_diff_shows_each_changed_paragraph_beside_the_translation(capsys, tiny_project):
    spanish = tiny_project / "docs" / "es" / "memory.md"
    spanish.write_text(
        spanish.read_text(encoding="utf-8").replace("Segundo párrafo.", "Segundo párrafo, con un dato nuevo."),
        encoding="utf-8",
    )
    code, out = guide_i18n(capsys, tiny_project, "diff", "docs/fr/memory.md")
    assert code == 0, out
    assert out.splitlines() == [
        "docs/fr/memory.md: 1 paragraph changed in #inputs; +1 -1 lines",
        "",
        "#inputs — docs/es/memory.md:12",
        "  es before:",
        "    Segundo párrafo.",
        "  es now:",
        "    Segundo párrafo, con un dato nuevo.",
        "  fr now (docs/fr/memory.md:14):",
        "    Deuxième paragraphe.",
    ]
    # The Spanish page with --locale, and a locale spelt loosely, give the same view.
    assert guide_i18n(capsys, tiny_project, "diff", "docs/es/memory.md", "--locale", "FR")[1] == out


def test_diff_of_a_current_page_says_so(capsys, tiny_project):
    code, out = guide_i18n(capsys, tiny_project, "diff", "docs/fr/index.md")
    assert code == 0 and out == "docs/fr/index.md is current: docs/es/index.md has not changed since it was stamped\n"


def test_list_removable_names_translations_whose_source_is_gone(capsys, tiny_project):
    assert guide_i18n(capsys, tiny_project, "list-removable") == (0, "")
    (tiny_project / "docs" / "es" / "memory.md").unlink()
    assert guide_i18n(capsys, tiny_project, "list-removable") == (0, "docs/fr/memory.md\n")
    assert guide_i18n(capsys, tiny_project, "list-removable", "--locale", "es") == (0, "")
