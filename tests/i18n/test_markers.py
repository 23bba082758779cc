"""The build markers have one registry (`guidekit.site.markers`): the plugin renders what it lists, and the
skeleton check counts the same markers, so a translation that loses one fails `status --strict`. This guide's
own markers are registered by its build extension, which `guide-i18n` imports from mkdocs.yml as the build does."""

from __future__ import annotations

import re

import pytest

from guidekit.i18n.project import Project
from guidekit.i18n.structure import differences, parse
from guidekit.site import markers

from .conftest import ROOT, guide_i18n

Project(ROOT)  # imports the extensions mkdocs.yml names, as guide-i18n and the build do
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
        if not any(marker.pattern.fullmatch(text) for marker in markers.table())
    ]
    assert not unknown


def test_every_registered_marker_is_used_in_every_locale():
    """So the deletion test below covers each of them in es, ja and ar."""
    for locale in ("es", "ja", "ar"):
        used = {
            marker.name
            for page, _, text in OCCURRENCES
            if page.startswith(f"docs/{locale}/")
            for marker in markers.table()
            if marker.pattern.fullmatch(text)
        }
        assert used == {marker.name for marker in markers.table()}, locale


@pytest.mark.slow  # a status run and ~30 skeleton comparisons per locale: kept out of make check's budget
@pytest.mark.parametrize("locale", ["es", "ja", "ar"])
def test_deleting_any_marker_from_any_page_fails_status_strict(capsys, copy_of_project, locale):
    """The first deletion runs `status --strict` end to end; every other one runs the skeleton comparison
    that status makes for each page (`structure.differences`), a second instead of a status run each."""
    # Spanish is the source: losing a marker there makes every translation differ from it.
    checked = "ja" if locale == "es" else locale
    assert guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", checked)[0] == 0
    deletions = [(page, index, text) for page, index, text in OCCURRENCES if page.startswith(f"docs/{locale}/")]
    for n, (page, index, text) in enumerate(deletions):
        path = copy_of_project / page
        original = path.read_text(encoding="utf-8")
        starts = [match.start() for match in COMMENT.finditer(original)]
        deleted = original[: starts[index]] + original[starts[index] + len(text) :]
        if n == 0:
            path.write_text(deleted, encoding="utf-8")
            code, out = guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", checked)
            path.write_text(original, encoding="utf-8")
            assert code == 1 and "structure" in out, f"{page}: deleting {text} (#{index + 1}) went unnoticed"
        else:
            other = copy_of_project / page.replace(f"docs/{locale}/", f"docs/{checked if locale == 'es' else 'es'}/")
            pair = (deleted, other.read_text(encoding="utf-8"))
            source, translation = pair if locale == "es" else pair[::-1]
            out = "\n".join(differences(parse(source), parse(translation)))
        assert "build markers" in out or "computed figures" in out, f"{page}: deleting {text} (#{index + 1}): {out}"


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
