"""Completeness is a policy: a `complete` locale fails `status --strict` on anything missing or outdated, an
`in progress` one only reports it (readers get the notice); broken translations fail either way. And
`guide-i18n` reports on the project it is run in, not on the checkout it was installed from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from guidekit.i18n.project import Project

from .conftest import ROOT, guide_i18n


def set_policy(root: Path, policy: str) -> None:
    config = root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("fr: complete", f"fr: {policy}"), encoding="utf-8")


def fall_behind(root: Path) -> None:
    """A Spanish edit (the French page is now outdated) and a new UI string translated only in Spanish."""
    spanish = root / "docs" / "es" / "memory.md"
    spanish.write_text(
        spanish.read_text(encoding="utf-8").replace("Tercer párrafo.", "Tercer párrafo, reescrito."), encoding="utf-8"
    )
    for path, msgstr in (
        (root / "locales" / "messages.pot", ""),
        (root / "locales" / "es" / "LC_MESSAGES" / "messages.po", "Listo"),
        (root / "locales" / "fr" / "LC_MESSAGES" / "messages.po", ""),
    ):
        path.write_text(path.read_text(encoding="utf-8") + f'\nmsgid "Done"\nmsgstr "{msgstr}"\n', encoding="utf-8")
    labels = root / "src" / "labels.py"
    labels.write_text(labels.read_text(encoding="utf-8") + 'DONE = N_("Done")\n', encoding="utf-8")


def test_in_progress_locale_reports_what_is_behind_without_failing(capsys, tiny_project):
    set_policy(tiny_project, "in progress")
    fall_behind(tiny_project)
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 0, out
    assert (
        "fr: 2 problems, 2 tolerated while in progress (1 of 2 pages current, 1 of 2 UI strings translated, in progress)"
        in out
    )
    assert "docs/fr/memory.md:4: outdated: translates docs/es/memory.md as of" in out
    assert "untranslated: 'Done' (tolerated: in progress)" in out


def test_complete_locale_fails_on_the_same(capsys, tiny_project):
    fall_behind(tiny_project)
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert "fr: 2 problems (1 of 2 pages current, 1 of 2 UI strings translated, complete)" in out
    assert "tolerated" not in out


def test_broken_translations_fail_whatever_the_policy(capsys, tiny_project):
    set_policy(tiny_project, "in progress")
    french = tiny_project / "docs" / "fr" / "memory.md"
    french.write_text(
        french.read_text(encoding="utf-8").replace("## Entrées {#inputs}", "## Entrées {#entrees}"), encoding="utf-8"
    )
    catalog = tiny_project / "locales" / "fr" / "LC_MESSAGES" / "messages.po"
    catalog.write_text(
        catalog.read_text(encoding="utf-8").replace("{count} cartes", "<b>{count}</b> cartes"), encoding="utf-8"
    )
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert (
        "docs/fr/memory.md:12: structure: headings" in out
        and "html: '{count} cards fit': HTML not in the msgid: </b> <b>" in out
    )
    assert "tolerated" not in out


def test_this_repository_declares_a_policy_for_every_translation():
    project = Project(ROOT)
    assert set(project.completeness) == set(project.translations)


def test_the_installed_command_reports_on_the_folder_it_runs_in(tiny_project):
    """The console script, run from inside another project (even from a subfolder), reports on that project."""
    script = Path(sys.executable).with_name("guide-i18n")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "guidekit.i18n"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout's code, wherever the script was installed from
    result = subprocess.run(
        [*command, "status", "--summary"],
        cwd=tiny_project / "docs" / "fr",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "fr is up to date (2 of 2 pages current" in result.stdout and "ja" not in result.stdout
    outside = subprocess.run(
        [*command, "status"], cwd=tiny_project.parent, env=env, capture_output=True, text=True, timeout=120
    )
    assert (
        outside.returncode != 0
        and f"no mkdocs.yml in {tiny_project.parent.resolve()} or any folder above it" in outside.stderr
    )
