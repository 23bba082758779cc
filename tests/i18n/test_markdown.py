"""The one Markdown scanner: front matter and fences, as the skeleton check and the change report read them."""

from __future__ import annotations

import pytest

from guidekit.i18n.markdown import front_matter_end, scan, split_front_matter
from guidekit.i18n.sources import describe_change
from guidekit.i18n.structure import parse


@pytest.mark.parametrize(
    ("lines", "kinds"),
    [
        (["a", "```py", "# x", "```", "b"], ["text", "open", "code", "code", "text"]),
        # A shorter fence, or one of the other kind, or one with text after it, does not close the block.
        (["````", "```", "~~~~", "``` x", "````"], ["open", "code", "code", "code", "code"]),
        (["~~~", "```", "~~~", "```"], ["open", "code", "code", "open"]),
        # A block left open runs to the end of the page.
        (["```", "# not a heading"], ["open", "code"]),
        (["  ~~~ text", "x", "  ~~~~"], ["open", "code", "code"]),
    ],
)
def test_scan_says_which_lines_are_code(lines, kinds):
    """Each line's kind, fence by fence."""
    assert [kind for kind, _ in scan(lines)] == kinds
    assert [line for _, line in scan(lines)] == lines


@pytest.mark.parametrize(
    ("text", "fields", "end"),
    [
        ("---\ntitle: \"T\"\ndescription: 'D'\n---\n# T\n", {"title": "T", "description": "D"}, 3),
        ("---\ntitle: T\n", {}, None),  # never closed: no front matter
        ("# T\n---\ntitle: T\n---\n", {}, None),  # not on the first line
        ("", {}, None),
    ],
)
def test_front_matter(text, fields, end):
    """The fields, and where the front matter ends."""
    assert split_front_matter(text)[0] == fields
    assert front_matter_end(text.splitlines()) == end


def test_the_skeleton_and_the_change_report_agree_on_what_is_code():
    old = "---\ntitle: T\n---\n\n# T {#t}\n\n~~~\n```\n## Inside {#inside}\n~~~\n"
    new = old + "\n## Outside {#outside}\n"
    assert parse(new).heading_ids == ["h1 #t", "h2 #outside"]
    assert parse(new).code_blocks == 1
    assert describe_change(old, new).headings_added == ["## Outside {#outside}"]
