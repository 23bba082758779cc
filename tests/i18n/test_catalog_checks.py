"""PO catalog checks: placeholders preserved, no HTML brought in by a translation, untranslated and fuzzy."""

from __future__ import annotations

import itertools

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from guidekit.i18n.po_checks import entry_problems, injected_tags, placeholder_problem
from guidekit.i18n.status import broken

from .conftest import guide_i18n


def edit_entry(po_path, msgid_fragment: str, change) -> str:
    """Rewrites the msgstr of the first entry whose msgid contains `msgid_fragment`; returns the msgid."""
    with po_path.open("rb") as fh:
        catalog = read_po(fh)
    message = next(m for m in catalog if m.id and isinstance(m.id, str) and msgid_fragment in m.id and m.string)
    message.string = change(message.string)
    with po_path.open("wb") as fh:
        write_po(fh, catalog, width=76)
    return message.id


def entry_line(po_path, msgid: str) -> int:
    """The line where `msgid` starts, as a translator's editor shows it."""
    lines = po_path.read_text(encoding="utf-8").splitlines()
    escaped = msgid.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")  # as the PO file writes it
    for number, line in enumerate(lines, 1):
        if line.startswith("msgid"):
            # A long msgid is wrapped over the following quoted lines.
            text = line[len("msgid ") :][1:-1] + "".join(
                more[1:-1] for more in itertools.takewhile(lambda x: x.startswith('"'), lines[number:])
            )
            if text == escaped:  # the whole msgid: two may share their first words
                return number
    raise AssertionError(f"{msgid!r} not in {po_path}")


def test_broken_placeholder_fails_strict_mode(capsys, copy_of_project):
    po = copy_of_project / "locales" / "ja" / "LC_MESSAGES" / "messages.po"
    msgid = edit_entry(po, "{count}", lambda s: s.replace("{count}", "{cuenta}"))
    code, out = guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", "ja")
    assert code == 1
    line = f"locales/ja/LC_MESSAGES/messages.po:{entry_line(po, msgid)}: placeholder: "
    problem = next(text for text in out.splitlines() if text.strip().startswith(line))
    assert problem.endswith("placeholders differ: missing {count}; not in msgid {cuenta}"), problem
    # The build refuses it too, whatever the editor ran.
    assert [p.kind for p in broken(copy_of_project, "ja") if p.where.startswith("locales/")] == ["placeholder"]
    assert guide_i18n(capsys, copy_of_project, "check", "--locale", "ja")[0] == 1


def test_html_injected_through_a_translation_fails(capsys, copy_of_project):
    po = copy_of_project / "locales" / "ar" / "LC_MESSAGES" / "messages.po"
    edit_entry(po, "Throughput", lambda s: s + '<img src=x onerror="alert(1)">')
    code, out = guide_i18n(capsys, copy_of_project, "status", "--strict", "--locale", "ar")
    assert code == 1
    assert "'Throughput': HTML not in the msgid: <img src=x onerror=\"alert(1)\">" in out
    assert [p.kind for p in broken(copy_of_project, "ar") if p.where.startswith("locales/")] == ["html"]


def test_fuzzy_and_untranslated_fail_strict_but_ship(capsys, tiny_project):
    po = tiny_project / "locales" / "fr" / "LC_MESSAGES" / "messages.po"
    text = po.read_text(encoding="utf-8")
    po.write_text(text.replace('msgstr "{count} cartes tiennent"', 'msgstr ""'), encoding="utf-8")
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert "locales/fr/LC_MESSAGES/messages.po:8: untranslated: '{count} cards fit'\n" in out
    assert "fr: 1 problem (2 of 2 pages current, 0 of 1 UI strings translated, complete)" in out
    po.write_text(text.replace('\nmsgid "{count}', '\n#, fuzzy\nmsgid "{count}'), encoding="utf-8")
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert code == 1
    assert (
        "locales/fr/LC_MESSAGES/messages.po:9: fuzzy: '{count} cards fit': check the translation, then remove the fuzzy flag"
        in out
    )
    assert guide_i18n(capsys, tiny_project, "check")[0] == 0  # behind, not broken: the build goes on
    # `make i18n` suggests a neighbour's translation as fuzzy; the build skips it, so its placeholders wait.
    po.write_text(
        text.replace('\nmsgid "{count}', '\n#, fuzzy\nmsgid "{count}').replace("{count} cartes", "{n} cartes"),
        encoding="utf-8",
    )
    code, out = guide_i18n(capsys, tiny_project, "status", "--strict")
    assert "fuzzy" in out and "placeholder" not in out


@pytest.mark.parametrize(
    ("msgid", "msgstr", "problem"),
    [
        ("{count} cards", "{count} cartes", None),
        ("{count} × {gpu}", "{gpu} × {count}", None),  # reordering is fine
        ("{count} cards", "cartes", "placeholders differ: missing {count}"),
        ("{count} cards", "{count} cartes {count}", "placeholders differ: not in msgid {count}"),
        (
            "{margin:.0%} headroom",
            "{margin} de marge",
            "placeholders differ: missing {margin:.0%}; not in msgid {margin}",
        ),
        ("{count} cards", "{count cartes", "malformed {placeholder} in msgstr (expected '}' before end of string)"),
        ("Use {{braces}}", "Utilisez {{accolades}}", None),
        # A field where the msgid has a literal brace, or none: the formatter would fill it (or leave "{x}" showing).
        ("Use {{braces}}", "Utilisez {accolades}", "placeholders differ: not in msgid {accolades}"),
        ("Share", "Part {x}", "placeholders differ: not in msgid {x}"),
        ("Share", "Part {}", "placeholders differ: not in msgid {}"),  # positional: format_map raises
        ("{gpu} fits", "{gpu.__class__} tient", "placeholders differ: missing {gpu}; not in msgid {gpu.__class__}"),
        # A lone brace where the msgid is a format string: "Single '{' encountered" when it is filled.
        ("Share", "Part {", "malformed {placeholder} in msgstr (Single '{' encountered in format string)"),
        ("a { b", "un { b", None),  # a msgid that is not a format string is never filled: its braces are text
        # `%` is text in every UI string (nothing formats one with `%`), wherever it stands.
        ("50% of the peak", "50 % du pic", None),
        ("Runs at 50 % speed", "el 50 % sí", None),
        ("%(name)s files", "%(nom)s fichiers %", None),
    ],
)
def test_placeholder_problem(msgid, msgstr, problem):
    assert placeholder_problem(msgid, msgstr) == problem


def test_a_percent_sign_is_text_even_where_babel_flags_python_format():
    """Babel flags "50 % speed" python-format (it reads "% s" as a directive); nothing formats it so."""
    catalog = Catalog(locale="es")
    catalog.add("Runs at 50 % speed", "Funciona al 50 % de velocidad", lineno=3)
    assert "python-format" in catalog["Runs at 50 % speed"].flags
    assert entry_problems(catalog) == []


@pytest.mark.parametrize(
    ("msgid", "msgstr", "tags"),
    [
        ("More options", "Plus d'options", []),
        ("More <b>options</b>", "Plus d'<b>options</b>", []),
        ("More options", "Plus <script>alert(1)</script>", ["</script>", "<script>"]),
        (
            'See <a href="memory/">memory</a>',
            'Voir <a href="https://evil.example/">mémoire</a>',
            ['<a href="https://evil.example/">'],
        ),
        ("Fits if < 80 GB", "Tient si < 80 Go", []),  # a less-than sign is not a tag
    ],
)
def test_injected_tags(msgid, msgstr, tags):
    assert injected_tags(msgid, msgstr) == tags
