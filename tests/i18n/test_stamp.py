"""Source hashes, `guide-i18n stamp` and the snapshots it keeps."""

from __future__ import annotations

import hashlib

from guidekit.i18n import sources as i18n_sources

from .conftest import PAGE_ES, PAGE_FR, guide_i18n


def test_hash_ignores_line_endings_and_trailing_blank_lines():
    text = "---\ntitle: T\n---\n\n# T {#t}\n\nUno.\n"
    assert i18n_sources.content_hash(text) == i18n_sources.content_hash(text.replace("\n", "\r\n") + "\n\n")
    assert i18n_sources.content_hash(text) == hashlib.sha256(text.encode()).hexdigest()[:12]
    assert i18n_sources.content_hash(text) != i18n_sources.content_hash(text.replace("Uno", "Dos"))
    # The front matter is translated too (title, description), so it counts.
    assert i18n_sources.content_hash(text) != i18n_sources.content_hash(text.replace("title: T", "title: U"))


def test_with_hash_adds_or_replaces_one_front_matter_line_and_keeps_line_endings():
    page = "---\r\ntitle: T\r\n---\r\n\r\n# T {#t}\r\n"
    stamped = i18n_sources.with_hash(page, "0123456789ab")
    assert stamped == "---\r\ntitle: T\r\nsource_hash: 0123456789ab\r\n---\r\n\r\n# T {#t}\r\n"
    assert i18n_sources.recorded_hash(stamped) == "0123456789ab"
    assert i18n_sources.with_hash(stamped, "ba9876543210") == stamped.replace("0123456789ab", "ba9876543210")
    assert i18n_sources.recorded_hash("# No front matter\n\nsource_hash: 0123456789ab\n") is None


def test_stamp_records_the_spanish_version_and_keeps_a_snapshot(capsys, tiny_project):
    spanish = tiny_project / "docs" / "es" / "memory.md"
    french = tiny_project / "docs" / "fr" / "memory.md"
    digest = i18n_sources.file_hash(spanish)
    assert i18n_sources.recorded_hash(french.read_text(encoding="utf-8")) == digest
    lines = french.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["---", "title: Mémoire", "description: " + PAGE_FR.split("description: ")[1].split("\n")[0]]
    assert lines[3:6] == [
        f"source_hash: {digest}",
        f"translation_hash: {i18n_sources.translation_hash(french.read_text(encoding='utf-8'))}",
        "---",
    ]
    snapshot = tiny_project / "locales" / "sources" / f"{digest}.md"
    assert i18n_sources.content_hash(snapshot.read_text(encoding="utf-8")) == digest
    before = french.read_bytes()
    code, out = guide_i18n(capsys, tiny_project, "stamp", str(french))
    assert code == 0 and french.read_bytes() == before  # idempotent
    assert out == f"docs/fr/memory.md: source_hash {digest} (docs/es/memory.md)\n"


def test_stamp_refuses_a_page_whose_skeleton_differs(capsys, tiny_project):
    french = tiny_project / "docs" / "fr" / "memory.md"
    spanish = tiny_project / "docs" / "es" / "memory.md"
    spanish.write_text(spanish.read_text(encoding="utf-8") + "\n## Nuevo {#new}\n\nMás.\n", encoding="utf-8")
    before = french.read_bytes()
    code, out = guide_i18n(capsys, tiny_project, "stamp", "docs/fr/memory.md")
    assert code == 1 and french.read_bytes() == before
    assert "docs/fr/memory.md: not stamped, its skeleton differs from docs/es/memory.md" in out
    assert "only es has ['h2 #new']" in out


def test_stamp_rejects_source_pages_and_paths_outside_docs(capsys, tiny_project):
    for path in ("docs/es/memory.md", "mkdocs.yml"):
        try:
            guide_i18n(capsys, tiny_project, "stamp", path)
        except SystemExit as error:
            assert path in str(error)
        else:
            raise AssertionError(f"stamp accepted {path}")


def test_describe_change_names_sections_and_headings():
    old = PAGE_ES.replace("\n    ", "\n")
    new = old.replace("Segundo párrafo.", "Segundo párrafo, reescrito.").replace(
        "## Resultados {#results}", "## Salida {#output}\n\nNuevo.\n\n## Resultados {#results}"
    )
    new = new.replace('print("hola")', 'print("adiós")')
    change = i18n_sources.describe_change(old, new)
    assert (change.changed, change.added, change.removed) == (2, 2, 0)
    assert change.sections == ["#inputs", "#output"]
    assert change.headings_added == ["## Salida {#output}"] and change.headings_removed == []
    assert change.summary() == (
        "2 paragraphs changed and 2 added in #inputs, #output; new heading ## Salida {#output}; +6 -2 lines"
    )
    # A comment inside a fenced block is not a heading.
    assert "# no es un encabezado" not in " ".join(change.headings_added + change.headings_removed)
