"""Every string marked for translation reaches the catalog template.

Babel's Python extractor skips `N_("...")` written inside an f-string (on Python 3.11 an f-string
is one token), which silently leaves a string English in every locale."""

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
MARKED = re.compile(r"""\bN_\(\s*(?P<q>["'])(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)\s*\)""")


def _marked_literals(packages):
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            for match in MARKED.finditer(path.read_text(encoding="utf-8")):
                text = match.group("text").encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
                yield path.relative_to(ROOT), text


@pytest.mark.parametrize(
    ("template", "packages"),
    [
        ("locales/messages.pot", ("calculators", "gpuguide")),  # this guide's strings
        ("generator/src/guidekit/locales/guidekit.pot", ("generator/src",)),  # the generator's, in its package
    ],
)
def test_every_marked_string_is_in_the_template(template, packages):
    with (ROOT / template).open("rb") as fh:
        ids = {m.id for m in read_po(fh) if m.id}
    missing = [f"{path}: {text}" for path, text in _marked_literals(packages) if text not in ids]
    assert not missing, "not extracted (inside an f-string?) or template not updated:\n" + "\n".join(missing)
