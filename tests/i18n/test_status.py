"""`guide-i18n status`: missing and outdated pages, with what changed in Spanish, on copies of this project."""

from __future__ import annotations

import re

from guidekit.i18n import sources as i18n_sources
from guidekit.i18n.status import page_state

from .conftest import guide_i18n


def test_tiny_project_is_up_to_date(capsys, tiny_project):
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 0, out
    assert "messages.pot is up to date with the sources" in out
    assert "es is up to date (pages are the source, 1 of 1 UI strings translated)" in out
    assert "fr is up to date (2 of 2 pages current, 1 of 1 UI strings translated, complete)" in out


def test_page_edited_in_spanish_after_translation_is_outdated(capsys, copy_of_project):
    source = copy_of_project / "docs" / "es" / "memory.md"
    text = source.read_text(encoding="utf-8")
    stamped = i18n_sources.recorded_hash((copy_of_project / "docs" / "ja" / "memory.md").read_text(encoding="utf-8"))
    # Rewrite the first paragraph under the H1, and add one at the end of the page.
    paragraphs = text.split("\n\n")
    first = next(i for i, p in enumerate(paragraphs) if p.startswith("# ")) + 1
    # Its links stay: a link gone would change the page's skeleton too, which is another check's.
    links = re.findall(r"\[[^\]]*\]\([^)]*\)", paragraphs[first])
    paragraphs[first] = " ".join(["Un párrafo reescrito después de la traducción.", *links])
    source.write_text("\n\n".join(paragraphs).rstrip("\n") + "\n\nUn párrafo nuevo al final.\n", encoding="utf-8")
    now = i18n_sources.file_hash(source)

    code, out = guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", "ja", "--diff")
    assert code == 1
    # The line named is the page's `source_hash` stamp.
    line = next(line for line in out.splitlines() if re.search(r"docs/ja/memory\.md:4: outdated:", line))
    assert f"translates docs/es/memory.md as of {stamped}, which is now {now}" in line
    assert re.search(r"1 paragraph changed and 1 added in #memory-budget, #\S+; \+\d+ -\d+ lines", line), line
    assert "+Un párrafo reescrito después de la traducción." in out  # --diff shows the Spanish diff
    assert "docs/ja/cost.md" not in out  # the other pages are still current
    assert page_state(copy_of_project / "docs", "ja", "ja/memory.md")["state"] == "outdated"
    assert page_state(copy_of_project / "docs", "ja", "ja/cost.md")["state"] == "current"

    # Once the translator has caught up, stamping makes the page current again; the old snapshot stays, as
    # history (--force: the translation is unchanged here; test_stamp checks the refusals).
    snapshot = copy_of_project / "locales" / "sources" / f"{stamped}.md"
    assert snapshot.is_file()
    assert guide_i18n(capsys, copy_of_project, "stamp", "--force", "docs/ja/memory.md", "docs/ar/memory.md")[0] == 0
    assert snapshot.is_file()
    assert page_state(copy_of_project / "docs", "ja", "es/memory.md")["state"] == "current"
    code, out = guide_i18n(capsys, copy_of_project, "status", "--locale", "ja")
    assert "memory.md" not in out


def test_removed_translation_is_missing(capsys, copy_of_project):
    (copy_of_project / "docs" / "ar" / "glossary.md").unlink()
    code, out = guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", "ar")
    assert code == 1
    assert "docs/ar/glossary.md: missing: no translation of docs/es/glossary.md" in out
    state = page_state(copy_of_project / "docs", "ar", "es/glossary.md")
    assert (state["state"], state["source_url"]) == ("fallback", "glossary/")


def test_outdated_without_snapshot_points_at_git(capsys, tiny_project):
    page = tiny_project / "docs" / "fr" / "index.md"
    page.write_text(i18n_sources.with_hash(page.read_text(encoding="utf-8"), "0123456789ab"), encoding="utf-8")
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert "docs/fr/index.md:4: outdated: translates docs/es/index.md as of 0123456789ab" in out
    assert "no snapshot locales/sources/0123456789ab.md; see `git log -p docs/es/index.md`" in out


def test_unstamped_orphan_and_skeleton_problems_each_get_a_line(capsys, tiny_project):
    page = tiny_project / "docs" / "fr" / "memory.md"
    page.write_text(
        page.read_text(encoding="utf-8")
        .replace("## Résultats {#results}", "## Résultats {#resultats}")
        .replace("source_hash:", "x_source_hash:"),
        encoding="utf-8",
    )
    (tiny_project / "docs" / "fr" / "extra.md").write_text("# Extra {#extra}\n", encoding="utf-8")
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert (
        "docs/fr/memory.md:21: structure: headings (level and anchor, in order): first difference at #3: es has 'h2 #results', translation has 'h2 #resultats'"
        in out
    )
    assert (
        "docs/fr/memory.md:1: unstamped: no source_hash: once it matches docs/es/memory.md, run `guide-i18n stamp docs/fr/memory.md`"
        in out
    )
    assert "docs/fr/extra.md: orphan: no es source page extra.md" in out
    assert "fr: 3 problems (1 of 2 pages current" in out
    # Without --strict the report is the same but the command succeeds; `check` fails on what must not ship.
    assert guide_i18n(capsys, tiny_project, "status")[0] == 0
    code, out = guide_i18n(capsys, tiny_project, "check")
    assert code == 1 and "structure" in out and "orphan" in out and "unstamped" not in out


def test_string_marked_in_the_sources_but_not_extracted_is_reported(capsys, tiny_project):
    labels = tiny_project / "src" / "labels.py"
    labels.write_text(labels.read_text(encoding="utf-8") + 'OTHER = N_("New label")\n', encoding="utf-8")
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert (
        "locales/messages.pot: template: 'New label': marked in the sources but not extracted; run `make i18n`" in out
    )
