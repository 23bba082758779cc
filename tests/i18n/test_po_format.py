"""The catalogs are files a professional tool keeps as they are: GNU gettext accepts and reproduces them
byte for byte, a save in Poedit survives `make i18n`, and they carry references, notes and contexts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from guidekit.i18n import plurals
from guidekit.i18n.pofile import MAX_PLURALS, po_text, raw_header, read_catalog, update_catalog

ROOT = Path(__file__).resolve().parents[2]
POT = ROOT / "locales" / "messages.pot"
CATALOGS = sorted((ROOT / "locales").glob("*/LC_MESSAGES/messages.po"))
LOCALES = [po.parts[-3] for po in CATALOGS]
# The generator's own strings, in its package: the same format, for the same tools.
GENERATOR = ROOT / "generator" / "src" / "guidekit" / "locales"
GENERATOR_FILES = [GENERATOR / "guidekit.pot", *sorted(GENERATOR.glob("*/LC_MESSAGES/guidekit.po"))]

gnu = pytest.mark.skipif(
    shutil.which("msgcat") is None or shutil.which("msgfmt") is None,
    reason="needs GNU gettext (apt-get install gettext; .ci/run installs it)",
)


def msgcat_no_wrap(path: Path) -> str:
    return subprocess.run(["msgcat", "--no-wrap", str(path)], capture_output=True, text=True, check=True).stdout


@gnu
@pytest.mark.parametrize(
    "path",
    [POT, *CATALOGS, *GENERATOR_FILES],
    ids=lambda p: (
        ("guidekit-" if p.name.startswith("guidekit") else "") + (p.parent.parent.name if p.suffix == ".po" else "pot")
    ),
)
def test_gnu_msgcat_reproduces_every_catalog(path):
    """GNU's own writer (what Poedit and Weblate's no-wrap setting produce) changes nothing."""
    assert msgcat_no_wrap(path) == path.read_text(encoding="utf-8")


@gnu
@pytest.mark.parametrize("po", CATALOGS, ids=LOCALES)
def test_gnu_msgfmt_check_accepts_every_catalog(po, tmp_path):
    run = subprocess.run(
        ["msgfmt", "-c", "--check-format", "-o", str(tmp_path / "messages.mo"), str(po)], capture_output=True, text=True
    )
    assert run.returncode == 0 and not run.stderr, run.stderr


@gnu
@pytest.mark.parametrize("locale", LOCALES)
def test_a_poedit_save_survives_make_i18n(locale, tmp_path):
    """Poedit with wrapping off saves through GNU's writer, sets the translator's header fields and adds its
    own; a translator then edits one entry and leaves another as a fuzzy suggestion. `make i18n` keeps it all."""
    po = tmp_path / "messages.po"
    text = msgcat_no_wrap(ROOT / "locales" / locale / "LC_MESSAGES" / "messages.po")
    text = re.sub(r'"Last-Translator: [^"]*"', r'"Last-Translator: Nadia Haddad <nadia@example.org>\\n"', text, count=1)
    text = re.sub(r'"PO-Revision-Date: [^"]*"', r'"PO-Revision-Date: 2026-12-02 09:15+0100\\n"', text, count=1)
    text = re.sub(r'("Plural-Forms: [^"]*"\n)', r'\1"X-Generator: Poedit 3.4.2\\n"\n', text, count=1)
    head, sep, rest = text.partition('\nmsgid "Pilot runs"\nmsgstr "')
    assert sep, "the entry to edit"
    text = head + '\n#, fuzzy\n#| msgid "Pilot run"\nmsgid "Pilot runs"\nmsgstr "' + rest
    po.write_text(text, encoding="utf-8")
    saved = msgcat_no_wrap(po)  # exactly what GNU (and so Poedit) writes for this content
    po.write_text(saved, encoding="utf-8")

    update_catalog(ROOT, POT, po, locale)

    fields = dict(raw_header(saved)[1])
    assert fields["X-Generator"] == "Poedit 3.4.2" and fields["Last-Translator"].startswith("Nadia Haddad")
    assert fields["PO-Revision-Date"] == "2026-12-02 09:15+0100"
    assert po.read_text(encoding="utf-8") == saved


def test_headers_are_filled():
    for po in [POT, *CATALOGS]:
        text = po.read_text(encoding="utf-8")
        for placeholder in ("FULL NAME", "EMAIL@ADDRESS", "LL@li.org", "VERSION", "ORGANIZATION", "YEAR"):
            assert placeholder not in text.split("\n\n")[0], (po, placeholder)
        fields = dict(raw_header(text)[1])
        assert fields["Project-Id-Version"] == "gpu-finetune-guide 0.1.0"
    for po, locale in zip(CATALOGS, LOCALES):
        fields = dict(raw_header(po.read_text(encoding="utf-8"))[1])
        assert fields["Language"] == locale and fields["Last-Translator"] and fields["Language-Team"]
        assert fields["Plural-Forms"] == plurals.plural_forms_header(locale)


def test_template_has_references_translator_notes_and_contexts():
    text = POT.read_text(encoding="utf-8")
    template = read_catalog(POT)
    completed = template.get("Completed", "pilot run outcome")
    assert completed is not None and any(path == "gpuguide/results/_page.py" for path, _ in completed.locations)
    assert any(c.startswith("TRANSLATORS: the outcome of a pilot run") for c in completed.auto_comments)
    forbidden = template.get("{pointer}: expected nothing here")  # a schema code's whole sentence, with its note
    assert forbidden is not None and any(c.startswith("TRANSLATORS: a JSON property") for c in forbidden.auto_comments)
    assert "\n#: calculators/" in text and "\n#. TRANSLATORS: " in text
    assert "\n#: src/guidekit/render/" in (GENERATOR / "guidekit.pot").read_text(encoding="utf-8")
    assert not any(m.id == "Completed" and m.context is None for m in template)  # no context-free duplicate


def _catalog(entries: dict) -> Catalog:
    catalog = Catalog(locale="es", project="demo", version="1", fuzzy=False)
    for msgid, msgstr in entries.items():
        catalog.add(msgid, msgstr, locations=[("demo.py", 1)])
    return catalog


def test_fuzzy_entries_keep_their_previous_msgid_until_reviewed(tmp_path):
    pot, po = tmp_path / "messages.pot", tmp_path / "es.po"
    pot.write_text(
        po_text(_catalog({"Hello, {name}!": ""}), [], [("POT-Creation-Date", "2026-01-01 00:00+0000")]),
        encoding="utf-8",
    )
    po.write_text(po_text(_catalog({"Hello {name}": "Hola {name}"}), [], []), encoding="utf-8")

    update_catalog(tmp_path, pot, po, "es")
    first = po.read_text(encoding="utf-8")
    assert (
        '#, fuzzy, python-brace-format\n#| msgid "Hello {name}"\nmsgid "Hello, {name}!"\nmsgstr "Hola {name}"' in first
    )
    update_catalog(tmp_path, pot, po, "es")
    assert po.read_text(encoding="utf-8") == first  # still fuzzy: `#|` stays, nothing else moves

    po.write_text(first.replace("#, fuzzy, python-brace-format", "#, python-brace-format"), encoding="utf-8")
    update_catalog(tmp_path, pot, po, "es")
    assert "#|" not in po.read_text(encoding="utf-8")  # reviewed


@gnu
def test_a_fuzzy_entry_that_becomes_obsolete_stays_valid_gettext(tmp_path):
    """A string changed twice before review: the fuzzy entry goes obsolete with its `#|` previous msgid,
    which GNU refuses unless written `#~|` ("inconsistent use of #~"); the obsolete entry drops it."""
    pot, po = tmp_path / "messages.pot", tmp_path / "es.po"
    pot.write_text(
        po_text(_catalog({"Hello, {name}!": ""}), [], [("POT-Creation-Date", "2026-01-01 00:00+0000")]),
        encoding="utf-8",
    )
    po.write_text(po_text(_catalog({"Hello {name}": "Hola {name}"}), [], []), encoding="utf-8")
    update_catalog(tmp_path, pot, po, "es")  # fuzzy, with #| msgid "Hello {name}"
    pot.write_text(
        po_text(_catalog({"Goodbye": ""}), [], [("POT-Creation-Date", "2026-01-02 00:00+0000")]), encoding="utf-8"
    )
    update_catalog(tmp_path, pot, po, "es")  # the fuzzy entry is obsolete now
    assert '#~ msgid "Hello, {name}!"' in po.read_text(encoding="utf-8")
    msgcat_no_wrap(po)  # raises on GNU's refusal


def test_a_restored_string_gets_its_obsolete_translation_back_once(tmp_path):
    pot, po = tmp_path / "messages.pot", tmp_path / "es.po"
    header = [("POT-Creation-Date", "2026-01-01 00:00+0000")]
    pot.write_text(po_text(_catalog({"Kept": ""}), [], header), encoding="utf-8")
    po.write_text(po_text(_catalog({"Kept": "Guardado", "Restart": "Reiniciar"}), [], []), encoding="utf-8")
    update_catalog(tmp_path, pot, po, "es")  # "Restart" left the code: obsolete, its translation kept
    assert '#~ msgid "Restart"\n#~ msgstr "Reiniciar"' in po.read_text(encoding="utf-8")

    pot.write_text(po_text(_catalog({"Kept": "", "Restart": ""}), [], header), encoding="utf-8")
    update_catalog(tmp_path, pot, po, "es")  # ...and came back
    text = po.read_text(encoding="utf-8")
    assert text.count('msgid "Restart"') == 1 and '\nmsgid "Restart"\nmsgstr "Reiniciar"' in text
    assert "#~" not in text


def test_update_is_idempotent_on_this_repository(copy_of_project):
    from guidekit.i18n import cli as i18n_cli

    shutil.copy2(ROOT / "pyproject.toml", copy_of_project / "pyproject.toml")  # the project's name and version
    before = {p: p.read_bytes() for p in (copy_of_project / "locales").rglob("*.po*")}
    i18n_cli.update(copy_of_project)
    assert {p: p.read_bytes() for p in (copy_of_project / "locales").rglob("*.po*")} == before


def test_the_generators_catalogs_are_up_to_date_with_its_sources(tmp_path):
    """`make i18n` re-extracts the generator's strings into its package: on a fresh copy, nothing moves."""
    from guidekit.i18n import generator_strings

    checkout = tmp_path / "generator"
    shutil.copytree(ROOT / "generator", checkout, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    assert generator_strings.update_package(checkout) == []


@gnu
@pytest.mark.parametrize("locale", ["fr", "ru", "cy"])
def test_a_new_locales_catalog_is_valid_gettext(locale, tmp_path):
    """`add-locale` starts a catalog whose Plural-Forms is written from CLDR: GNU accepts it as is."""
    po = tmp_path / "messages.po"
    update_catalog(ROOT, POT, po, locale)
    run = subprocess.run(
        ["msgfmt", "-c", "--check-format", "-o", str(tmp_path / "messages.mo"), str(po)], capture_output=True, text=True
    )
    assert run.returncode == 0 and not run.stderr, run.stderr
    assert msgcat_no_wrap(po) == po.read_text(encoding="utf-8")
    assert f"nplurals={len(plurals.forms(locale))};" in po.read_text(encoding="utf-8")


@gnu
def test_a_percent_sign_is_not_a_format_to_gnu_either(tmp_path):
    """Babel flags "50 % speed" python-format; written without the flag, msgfmt --check-format takes
    the translation's "50 %" as the text it is, as the build does."""
    catalog = Catalog(locale="es")
    catalog.add("Runs at 50 % speed", "Funciona al 50 % de velocidad")
    po = tmp_path / "messages.po"
    po.write_text(po_text(catalog, [], [("Content-Type", "text/plain; charset=UTF-8")]), encoding="utf-8")
    assert "python-format" not in po.read_text(encoding="utf-8")
    run = subprocess.run(
        ["msgfmt", "--check-format", "-o", str(tmp_path / "messages.mo"), str(po)], capture_output=True, text=True
    )
    assert run.returncode == 0 and not run.stderr, run.stderr


def test_a_catalog_saved_in_another_encoding_is_named_with_its_line(tmp_path):
    """A Latin-1 save (an editor's setting) must point the editor at the file and line, not only say 'codec'."""
    po = tmp_path / "messages.po"
    po.write_bytes(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Coffee"\nmsgstr "caf'.encode()
        + b"\xe9"
        + b'"\n'
    )
    with pytest.raises(ValueError, match=rf"^{re.escape(str(po))}:5: not valid UTF-8 \(byte 0xe9\)"):
        read_catalog(po)


@pytest.mark.parametrize("count", ["100000000", "0", "-5", "7", "2x", ""])
def test_a_plural_count_outside_1_to_6_is_refused_before_babel_reads_the_file(tmp_path, count):
    """Attack finding 9: Babel builds a list of nplurals strings per plural entry; nplurals=100000000 ran
    guide-i18n check out of memory and hung the build. Refused with one line, at once."""
    from guidekit.site.locale_pack import catalog_messages

    po = tmp_path / "messages.po"
    header = f"Content-Type: text/plain; charset=UTF-8\\nPlural-Forms: nplurals={count}; plural=0;\\n"
    po.write_text(f'msgid ""\nmsgstr "{header}"\n\nmsgid "one"\nmsgid_plural "many"\nmsgstr[0] "x"\n', encoding="utf-8")
    why = rf"^{re.escape(str(po))}: the header's Plural-Forms says nplurals={re.escape(count)}, where a language"
    with pytest.raises(ValueError, match=why):
        read_catalog(po)
    with pytest.raises(ValueError, match=why):
        catalog_messages(po)


def test_every_shipped_plural_count_is_accepted():
    counts = {len(plurals.forms(locale)) for locale in ("ja", "es", "ar", "fr", "he", "zh", "de", "en", "ru", "pl")}
    assert max(counts) <= MAX_PLURALS and min(counts) >= 1


def test_what_gnu_msgfmt_refuses_and_babel_lets_through_is_broken(copy_of_project, capsys):
    """Attack finding 17: a msgid given twice (Babel keeps the first), msgstr[9999999] and a bidi override
    in a translation passed `guide-i18n check`. Each is now a `po` problem with its line, and GNU msgfmt,
    which refuses the same file, agrees."""
    from guidekit.i18n import cli as i18n_cli

    po = copy_of_project / "locales" / "ja" / "LC_MESSAGES" / "messages.po"
    text = po.read_text(encoding="utf-8")
    text = text.replace('msgstr "結果"', 'msgstr "結\u202e果"', 1)
    text += '\nmsgid "Outcome"\nmsgstr "結果"\n\nmsgid "one run"\nmsgid_plural "{count} runs"\nmsgstr[0] "{count} 件"\nmsgstr[9999999] "x"\n'
    po.write_text(text, encoding="utf-8")
    assert i18n_cli.main(["--root", str(copy_of_project), "check"]) == 1
    out = capsys.readouterr().out
    assert "po: '\"Outcome\"': the same msgid as line" in out, out
    assert "WARNING" not in out  # Babel's own prints, about what the check now says
    assert "po: '\"one run\"': msgstr[9999999], where the header has 1 forms" in out, out
    assert "the control character U+202E" in out, out
    gnu = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(po)], capture_output=True, text=True)
    assert gnu.returncode != 0
