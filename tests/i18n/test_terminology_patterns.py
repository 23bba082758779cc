"""Rejected constructions, not only words: a terminology entry's `patterns` are regular expressions, so a
construction reviewers rejected cannot come back in another wording."""

from __future__ import annotations

import pytest

from guidebuild.i18n import cli as i18n_cli, terminology

# The Arabic reviewers' systemic slip: «يتسع X في Y» for "X fits in Y" reads backwards, as اتّسع takes the
# container as its subject («تتسع البطاقة للتشغيل»). Written here until the Arabic pass clears the pages
# and it moves to locales/ar/terminology.toml.
AR_FITS = '''
[[term]]
concept = "X fits in Y: the container is the subject of اتّسع"
preferred = "تتسع البطاقة للتشغيل"
patterns = ["[يت]تّ?سع\\\\s+(?:(?!ل)\\\\S+\\\\s+){0,3}في\\\\s"]
'''


def test_a_japanese_page_that_brings_back_a_rejected_construction_fails_status_strict(copy_of_project, capsys):
    """ja: 経験則 only as the gloss 「目安（経験則）」; on its own it is the rejected form of 目安."""
    page = copy_of_project / "docs" / "ja" / "faq.md"
    text = page.read_text(encoding="utf-8")
    assert "目安（経験則）が" in text
    page.write_text(text.replace("目安（経験則）が", "この経験則が", 1), encoding="utf-8")
    i18n_cli.main(["--root", str(copy_of_project), "stamp", "--force", "docs/ja/faq.md"])
    capsys.readouterr()
    assert i18n_cli.main(["--root", str(copy_of_project), "status", "--strict"]) == 1
    out = capsys.readouterr().out
    assert "docs/ja/faq.md" in out and "«経験則» for rule of thumb" in out and "write «目安»" in out


@pytest.mark.parametrize(("text", "flagged"), [
    ("لا يتسع التشغيل في بطاقة H100 واحدة.", True),
    ("ما يتسع في ذاكرة البطاقة.", True),
    ("يتّسع النموذج الصغير في بطاقة واحدة.", True),
    ("لا تتسع بطاقة H100 واحدة للتشغيل.", False),
    ("النتائج التي تتسع لها الخطة في الشهر.", False),
    ("تتسع البطاقة للتشغيل في الذاكرة المتاحة.", False),
])
def test_an_arabic_fixture_rule_catches_the_backwards_fits_construction(tmp_path, text, flagged):
    path = tmp_path / "terminology.toml"
    path.write_text(AR_FITS, encoding="utf-8")
    problems = terminology.page_problems("ar", "page.md", text, terminology.load(path))
    assert bool(problems) is flagged, problems


@pytest.mark.parametrize(("entry", "message"), [
    ('patterns = ["(unclosed"]', "pattern '(unclosed': missing ), unterminated subpattern"),
    ('patterns = ["目"]', "pattern '目' matches the preferred form"),
    ("patterns = []", "a non-empty list `rejected` or `patterns`"),
])
def test_a_bad_pattern_is_refused_with_the_file_and_the_term(tmp_path, entry, message):
    path = tmp_path / "terminology.toml"
    path.write_text(f'[[term]]\nconcept = "rule"\npreferred = "目安"\n{entry}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="term 1") as error:
        terminology.load(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)
