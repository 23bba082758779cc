"""The build markers have one registry (`guidebuild.markers`): the plugin renders what it lists, and the
skeleton check counts the same markers, so a translation that loses one fails `status --strict`."""

from __future__ import annotations

import re

import pytest

from guidebuild import markers
from guidebuild.i18n.structure import parse

from .conftest import ROOT, guide_i18n

# Any HTML comment in a page, registered or not: an unregistered marker must fail here too.
COMMENT = re.compile(r"<!--.*?-->")
OCCURRENCES = [
    (page.relative_to(ROOT).as_posix(), index, match[0])
    for page in sorted(ROOT.glob("docs/*/*.md"))
    for index, match in enumerate(COMMENT.finditer(page.read_text(encoding="utf-8")))
]


def test_every_comment_in_the_pages_is_a_registered_marker():
    assert OCCURRENCES
    unknown = [
        (page, text)
        for page, _, text in OCCURRENCES
        if not any(marker.pattern.fullmatch(text) for marker in markers.MARKERS)
    ]
    assert not unknown


def test_every_registered_marker_is_used_in_every_locale():
    """So the deletion test below covers each of them in es, ja and ar."""
    for locale in ("es", "ja", "ar"):
        used = {
            marker.name
            for page, _, text in OCCURRENCES
            if page.startswith(f"docs/{locale}/")
            for marker in markers.MARKERS
            if marker.pattern.fullmatch(text)
        }
        assert used == set(markers.BY_NAME), locale


@pytest.mark.slow  # about 30 status runs per locale
@pytest.mark.parametrize("locale", ["es", "ja", "ar"])
def test_deleting_any_marker_from_any_page_fails_status_strict(capsys, copy_of_project, locale):
    # Spanish is the source: losing a marker there makes every translation differ from it.
    checked = "ja" if locale == "es" else locale
    assert guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", checked)[0] == 0
    for page, index, text in OCCURRENCES:
        if not page.startswith(f"docs/{locale}/"):
            continue
        path = copy_of_project / page
        original = path.read_text(encoding="utf-8")
        starts = [match.start() for match in COMMENT.finditer(original)]
        path.write_text(original[: starts[index]] + original[starts[index] + len(text) :], encoding="utf-8")
        code, out = guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", checked)
        path.write_text(original, encoding="utf-8")
        assert code == 1, f"{page}: deleting {text} (#{index + 1}) went unnoticed"
        assert "structure" in out and ("build markers" in out or "computed figures" in out), out


def test_skeleton_counts_each_marker_kind():
    text = "\n".join(
        [
            "---",
            "title: a",
            "---",
            "<!-- catalog-table -->",
            "<!-- pilot-results -->",
            "<!--memory-accuracy-->",
            "<!-- throughput-accuracy -->",
            "<!-- calculator:  memory -->",
            "Unos <!-- figure: memory.x --> GB",
        ]
    )
    page = parse(text)
    assert page.markers == [
        "catalog-table",
        "pilot-results",
        "memory-accuracy",
        "throughput-accuracy",
        "calculator: memory",
    ]
    assert page.figures == ["memory.x"]
