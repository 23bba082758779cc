"""A transliterated term links to its glossary entry where a page first uses it (issue 35 item 4).

`glossary = "<id>"` on a terminology entry makes `guide-i18n status` require that each page's first use of
the preferred form, in prose, is a link to `glossary.md#term-<id>`, and that the glossary holds the anchor.
"""

from __future__ import annotations

import re

import pytest

from guidekit.i18n import cli as i18n_cli, terminology
from guidekit.i18n.structure import differences, parse

from .conftest import ROOT

LOGITS = terminology.Term("logits", "اللوجيتات", (), (), "logits")
LINK = "[اللوجيتات](glossary.md#term-logits)"


def _first_use(body: str) -> list[str]:
    page = f"---\ndescription: اللوجيتات في الوصف\n---\n\n# اللوجيتات في العنوان {{#h}}\n\n{body}\n"
    return [p.message for p in terminology.first_use_problems("ar", "p.md", page, [LOGITS])]


@pytest.mark.parametrize(
    "body",
    [
        f"تبقى {LINK} في الذاكرة، ثم اللوجيتات مرة ثانية بلا رابط.",
        f"```text\nاللوجيتات\n```\nنص `اللوجيتات` ثم <!-- figure: x --> و{LINK}.",
        f"<!--\nاللوجيتات في تعليق\n-->\nثم {LINK}.",
        "صفحة لا تذكر المصطلح.",
    ],
)
def test_a_page_whose_first_use_is_a_link_or_that_never_uses_the_term_passes(body):
    assert _first_use(body) == []


@pytest.mark.parametrize(
    "body",
    [
        f"تبقى اللوجيتات في الذاكرة، ثم {LINK}.",
        "تبقى [اللوجيتات](glossary.md#term-tokens) في الذاكرة.",  # a link, to another entry
        "تبقى [اللوجيتات](memory.md#logits) في الذاكرة.",
    ],
)
def test_a_first_use_that_is_not_a_link_to_its_entry_is_named_with_the_fix(body):
    assert _first_use(body) == [
        "the first use of «اللوجيتات» (logits) is not linked to its glossary entry: "
        "write [اللوجيتات](glossary.md#term-logits)"
    ]


def test_the_glossary_must_hold_each_entry_the_terms_name():
    def missing(text):
        return [p.message for p in terminology.glossary_problems("ar", "glossary.md", text, [LOGITS])]

    assert missing('| <span id="term-logits"></span>اللوجيتات | logits | … |') == []
    assert missing("| اللوجيتات | logits | … |") == [
        'no entry for logits: give the row of «اللوجيتات» its anchor, <span id="term-logits"></span>'
    ]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('glossary = "has space"', "`glossary` must be an entry id"),
        ("glossary = 3", "`glossary` must be an entry id"),
        ('glossary = "token"\nuses = ["رموز"]', "misses the preferred form"),
        ('glossary = "token"\nuses = ["(رمز"]', "pattern '\\(رمز'"),
        ('glossary = "token"\nuses = "رمز"', "`uses` is a list"),
        ('rejected = ["الطرفية"]\nuses = ["رمز"]', "for a term with a `glossary` entry"),
    ],
)
def test_a_bad_glossary_entry_is_refused(tmp_path, entry, message):
    path = tmp_path / "terminology.toml"
    path.write_text(f'[[term]]\nconcept = "token"\npreferred = "الرمز"\n{entry}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        terminology.load(path)


def test_a_term_may_name_only_its_glossary_entry(tmp_path):
    path = tmp_path / "terminology.toml"
    path.write_text('[[term]]\nconcept = "logits"\npreferred = "اللوجيتات"\nglossary = "logits"\n', encoding="utf-8")
    assert terminology.load(path) == [LOGITS]


def test_glossary_entry_links_are_a_locales_own_and_leave_the_structure_alone():
    source = parse("# Título {#t}\n\nLos logits y la [memoria](memory.md#x).\n")
    translation = parse(f"# عنوان {{#t}}\n\n{LINK} و[الذاكرة](memory.md#x).\n")
    assert differences(source, translation) == []
    assert differences(source, parse("# عنوان {#t}\n\nاللوجيتات.\n"))  # a real link still counts


TOKEN = terminology.Term(
    "token",
    "الرمز",
    (),
    (),
    "token",
    (
        terminology.regex.compile(
            r"(?<![\p{L}\p{N}_])[وبل]?(?:ال)?(?:رمز|رموز)(?![\p{L}\p{N}_])", flags=terminology.regex.VERSION0
        ),
    ),
)


@pytest.mark.parametrize(
    ("body", "form"),
    [
        ("لنرمز إلى عدد العيّنات بالحرف n.", None),  # نرمز, "we denote": the letters, not the word
        ("يعالج النموذج 4096 رمزًا، ثم الرموز التالية.", "رمز"),  # a case ending is a use
        ("نعدّ الرموز في كل دفعة، ثم الرمز الأخير.", "الرموز"),  # the broken plural is a use
        ("لكل رمز، ثم [الرموز](glossary.md#term-token).", "رمز"),  # the bare word, before the link
    ],
)
def test_uses_names_every_form_that_counts_as_a_first_use(body, form):
    page = f"# عنوان {{#h}}\n\n{body}\n"
    found = [p.message for p in terminology.first_use_problems("ar", "p.md", page, [TOKEN])]
    assert found == (
        []
        if form is None
        else [
            f"the first use of «{form}» (token) is not linked to its glossary entry: write [{form}](glossary.md#term-token)"
        ]
    )


def test_a_link_over_the_whole_word_covers_a_form_with_a_prefix():
    page = "# عنوان {#h}\n\nنعدّ [بالرموز](glossary.md#term-token) كل دفعة، ثم الرمز.\n"
    assert terminology.first_use_problems("ar", "p.md", page, [TOKEN]) == []


@pytest.mark.parametrize("locale", ["ja", "ar"])
def test_the_guide_links_its_terms_and_unlinking_one_fails_status_strict(copy_of_project, capsys, locale):
    terms = [t for t in terminology.load(ROOT / "locales" / locale / terminology.FILE_NAME) if t.glossary]
    assert len(terms) >= 5  # the transliterations the reviews asked for (ar) and the katakana terms (ja)
    term = terms[0]
    link = re.compile(rf"\[([^\]]+)\]\(glossary\.md#term-{term.glossary}\)")
    page = next(
        p for p in sorted((copy_of_project / "docs" / locale).glob("*.md")) if link.search(p.read_text("utf-8"))
    )
    page.write_text(link.sub(lambda m: m.group(1), page.read_text("utf-8"), count=1), encoding="utf-8")
    i18n_cli.main(["--root", str(copy_of_project), "stamp", "--force", f"docs/{locale}/{page.name}"])
    capsys.readouterr()
    assert i18n_cli.main(["--root", str(copy_of_project), "status", "--strict"]) == 1
    out = capsys.readouterr().out
    assert f"docs/{locale}/{page.name}" in out and f"({term.concept}) is not linked to its glossary entry" in out, out
