"""The CI gate on this repository's own translations: `guide-i18n status --strict` must pass."""

from __future__ import annotations

from guidekit.i18n import cli as i18n_cli
from guidekit.i18n.status import broken

from .conftest import ROOT


def test_no_broken_translation_ships():
    problems = broken(ROOT)
    assert not problems, "translations that must not ship:\n" + "\n".join(map(str, problems))


def test_status_strict_passes(capsys):
    code = i18n_cli.main(["--root", str(ROOT), "status", "--strict"])
    out = capsys.readouterr().out
    assert code == 0, "`guide-i18n status --strict` found problems (see EDITORS.md):\n" + out
    assert "is up to date" in out
