"""Rejected constructions, not only words: a terminology entry's `patterns` are regular expressions, so a
construction reviewers rejected cannot come back in another wording."""

from __future__ import annotations

import pytest

from guidekit.i18n import cli as i18n_cli, terminology

from .conftest import ROOT

# A page that brings back a rejected construction, per locale: (page, the right text, the slip, what the
# report says). ja: 経験則 only as the gloss 「目安（経験則）」. ar: the reviewers' systemic slip «يتسع X في Y»
# ("X fits in Y") reads backwards, as اتّسع takes the container as its subject («تتسع البطاقة للتشغيل»).
SLIPS = {
    "ja": ("faq.md", "目安（経験則）が", "この経験則が", "«経験則» for rule of thumb (+30–40 %): write «目安»"),
    "ar": (
        "index.md",
        "البطاقات التي تتسع لتشغيلك",
        "البطاقات التي يتسع فيها تشغيلك",
        "«يتسع فيها » for X fits in Y",
    ),
}


@pytest.mark.parametrize("locale", SLIPS)
def test_a_page_that_brings_back_a_rejected_construction_fails_status_strict(copy_of_project, capsys, locale):
    name, right, slip, message = SLIPS[locale]
    page = copy_of_project / "docs" / locale / name
    text = page.read_text(encoding="utf-8")
    assert right in text
    page.write_text(text.replace(right, slip, 1), encoding="utf-8")
    i18n_cli.main(["--root", str(copy_of_project), "stamp", "--force", f"docs/{locale}/{name}"])
    capsys.readouterr()
    assert i18n_cli.main(["--root", str(copy_of_project), "status", "--strict"]) == 1
    out = capsys.readouterr().out
    assert f"docs/{locale}/{name}" in out and message in out, out


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("لا يتسع التشغيل في بطاقة H100 واحدة.", True),
        ("ما يتسع في ذاكرة البطاقة.", True),
        ("يتّسع النموذج الصغير في بطاقة واحدة.", True),
        ("البطاقات التي يتسع فيها تشغيلك.", True),
        ("لا تتسع بطاقة H100 واحدة للتشغيل.", False),
        ("النتائج التي تتسع لها الخطة في الشهر.", False),
        ("تتسع البطاقة للتشغيل في الذاكرة المتاحة.", False),
        ("لا تتسع أي وحدة GPU في الكتالوج لهذا التشغيل.", False),
    ],
)
def test_the_arabic_rule_tells_the_backwards_construction_from_the_right_one(text, flagged):
    terms = terminology.load(ROOT / "locales" / "ar" / terminology.FILE_NAME)
    problems = [p for p in terminology.page_problems("ar", "page.md", text, terms) if "fits in Y" in p.message]
    assert bool(problems) is flagged, problems


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('patterns = ["(unclosed"]', "pattern '(unclosed': missing ) at position 9"),
        ('patterns = ["目"]', "pattern '目' matches the preferred form"),
        ("patterns = []", "a non-empty list `rejected` or `patterns`"),
    ],
)
def test_a_bad_pattern_is_refused_with_the_file_and_the_term(tmp_path, entry, message):
    path = tmp_path / "terminology.toml"
    path.write_text(f'[[term]]\nconcept = "rule"\npreferred = "目安"\n{entry}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="term 1") as error:
        terminology.load(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)


def test_a_pattern_that_backtracks_without_end_is_named_in_bounded_time(copy_of_project, capsys):
    """Attack finding 17: `(a+)+$` and a line of 41 a's kept `status` running for minutes. The regex engine
    reads that one in linear time; `(a|aa)+$` still backtracks there, and reaches the time limit of each
    search: the pattern is reported against the terminology file, naming the line it was slow on."""
    import time

    terms = copy_of_project / "locales" / "ja" / terminology.FILE_NAME
    terms.write_text(
        terms.read_text(encoding="utf-8")
        + '\n[[term]]\nconcept = "bomb"\npreferred = "目安"\npatterns = ["(a+)+$", "(a|aa)+$"]\n',
        encoding="utf-8",
    )
    page = copy_of_project / "docs" / "ja" / "faq.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n" + "a" * 41 + "b\n", encoding="utf-8")
    start = time.process_time()
    assert i18n_cli.main(["--root", str(copy_of_project), "status", "--strict"]) == 1
    assert time.process_time() - start < 20  # the whole status; the pattern itself gives up after 0.25 s
    out = capsys.readouterr().out
    assert "locales/ja/terminology.toml" in out and "the pattern '(a|aa)+$' took over 0.25 s on docs/ja/faq.md:" in out
