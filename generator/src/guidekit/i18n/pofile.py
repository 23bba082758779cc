"""Extracting and merging the UI catalogs, written byte for byte the way GNU gettext writes them.

Babel extracts (with `#:` source references and `TRANSLATORS:` comments) and merges (fuzzy matching);
this module writes. The format is GNU `msgcat --no-wrap`'s, which Poedit and Weblate keep when told
not to wrap (EDITORS.md): strings are never wrapped (split only after an embedded `\\n`), comments are
kept as written, `#:` reference lines are filled to 79 columns, `#|` keeps a fuzzy entry's previous
msgid. Babel's own writer wraps everything at 76 columns, so a save in another tool rewrapped every
long string and `make i18n` wrapped it back. Unknown header fields (X-Generator, X-Poedit-…) and a
translator's Last-Translator, Language-Team and PO-Revision-Date are kept.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords, parse_mapping_cfg
from babel.messages.pofile import normalize, read_po, unescape

from guidekit.site.locales import babel_locale

from . import plurals

REFERENCE_WIDTH = 79  # GNU's page width; it fills `#:` lines to it even with --no-wrap
# Marker keywords (generator/src/guidekit/l10n/_markers.py); Babel's defaults add _, gettext, ngettext, pgettext, npgettext.
KEYWORDS = ("N_", "NP_:1c,2", "NN_:1,2", "NNP_:1c,2,3")
TRANSLATOR_TAG = "TRANSLATORS:"
# GNU gettext's order of the header fields (Poedit writes them so); other fields follow in file order.
HEADER_ORDER = (
    "Project-Id-Version",
    "Report-Msgid-Bugs-To",
    "POT-Creation-Date",
    "PO-Revision-Date",
    "Last-Translator",
    "Language-Team",
    "Language",
    "MIME-Version",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Plural-Forms",
)
PLACEHOLDER = re.compile(
    r"FULL NAME|EMAIL@ADDRESS|LL@li\.org|LANGUAGE|YEAR-MO-DA|ORGANIZATION|FIRST AUTHOR|PACKAGE VERSION"
)
DATE_FORMAT = "%Y-%m-%d %H:%M%z"


def project_id(root: Path) -> tuple[str, str, str]:
    """(name, version, where to report a bad msgid) from pyproject.toml: `[project.urls]` "Issues",
    else the Homepage, else nothing (GNU allows an empty Report-Msgid-Bugs-To). A project without a
    pyproject.toml (a bare docs checkout) is named after its folder."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return root.resolve().name, "0", ""
    meta = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    urls = meta.get("urls", {})
    return meta["name"], meta["version"], urls.get("Issues", urls.get("Homepage", ""))


# -- reading what Babel does not keep ----------------------------------------------------------------


def raw_header(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(comment lines above the header entry, header fields in file order) of a PO file's text."""
    lines = text.splitlines()
    comments, fields, i = [], [], 0
    while i < len(lines) and lines[i].startswith("#"):
        comments.append(lines[i])
        i += 1
    if i >= len(lines) or lines[i] != 'msgid ""':
        return [], []
    i += 2  # msgid "" / msgstr "" (possibly followed by the value on the same line)
    value = unescape(lines[i - 1][len("msgstr ") :]) if lines[i - 1] != 'msgstr ""' else ""
    while i < len(lines) and lines[i].startswith('"'):
        value += unescape(lines[i])
        i += 1
    for line in value.split("\n"):
        name, sep, field = line.partition(":")
        if sep:
            fields.append((name.strip(), field.strip()))
    return comments, fields


# Babel builds a list of `nplurals` strings for every plural entry it reads, so a header's
# nplurals=100000000 took every byte of memory. CLDR's languages have 1 to 6 forms (Arabic has 6).
MAX_PLURALS = 6
_NPLURALS = re.compile(r"(?:^|;)\s*nplurals\s*=\s*([^;]*)")


def plural_header_problem(path: Path, raw: bytes) -> str | None:
    """One line when the header's Plural-Forms names a count of forms outside 1..MAX_PLURALS, else None.
    Read before Babel is given the file."""
    _comments, fields = raw_header(raw.decode("utf-8", errors="replace"))
    for name, value in fields:
        if name.lower() != "plural-forms":
            continue
        match = _NPLURALS.search(value)
        count = match.group(1).strip() if match else ""
        if not (count.isascii() and count.isdigit() and 1 <= int(count) <= MAX_PLURALS):
            return (
                f"{path}: the header's Plural-Forms says nplurals={count[:20]!s}, where a language has 1 to "
                f"{MAX_PLURALS} plural forms; `make i18n` writes this header, so restore it rather than edit it"
            )
    return None


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    """A PO file, with each fuzzy entry's `#|` previous msgid (Babel reads those as translator comments)."""
    raw = path.read_bytes()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        # Babel's own message names neither the file nor the line; an editor needs both to fix it.
        line = raw[: error.start].count(b"\n") + 1
        raise ValueError(
            f"{path}:{line}: not valid UTF-8 (byte 0x{raw[error.start]:02x}); "
            "save the catalog as UTF-8, as its header declares"
        ) from None
    if problem := plural_header_problem(path, raw):
        raise ValueError(problem)
    with contextlib.redirect_stdout(io.StringIO()):  # Babel prints its warnings; po_checks.file_problems names them
        catalog = read_po(io.BytesIO(raw), locale=locale)
    for message in [*catalog, *catalog.obsolete.values()]:
        previous = [c[1:].strip() for c in message.user_comments if c.startswith("|")]
        if previous:
            message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
            message.previous_id = _previous_ids(previous)
    return catalog


def _previous_ids(lines: list[str]) -> list[str]:
    """`msgid "…"` / `msgid_plural "…"` lines (and `"…"` continuations) -> [msgid, msgid_plural]."""
    ids: list[str] = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgid", "msgid_plural"):
            ids.append(unescape(rest))
        elif line.startswith('"') and ids:
            ids[-1] += unescape(line)
    return ids


# -- writing -----------------------------------------------------------------------------------------


def _string(keyword: str, text: str, prefix: str = "") -> list[str]:
    return [f"{prefix}{keyword} " + normalize(text, prefix=prefix, width=0)]


def _references(message: Message) -> list[str]:
    refs = []
    for filename, lineno in sorted(message.locations, key=lambda loc: (loc[0], loc[1] or -1)):
        ref = f"{filename}:{lineno}" if lineno else filename
        if ref not in refs:
            refs.append(ref)
    lines, line = [], "#:"
    for ref in refs:
        if line != "#:" and len(line) + 1 + len(ref) > REFERENCE_WIDTH:
            lines.append(line)
            line = "#:"
        line += " " + ref
    return lines + ([line] if refs else [])


def _entry(message: Message, num_plurals: int, obsolete: bool = False) -> list[str]:
    out = [f"# {c}".rstrip() for c in message.user_comments] + [f"#. {c}".rstrip() for c in message.auto_comments]
    out += [] if obsolete else _references(message)
    # Babel guesses python-format from a msgid ("50 % speed" reads as "% s"); nothing formats a UI string with
    # `%` (i18n/po_checks.py), and the flag would have GNU's msgfmt --check-format refuse "al 50 % de velocidad".
    flags = sorted(message.flags - {"fuzzy", "python-format"})
    if flags or message.fuzzy:
        out.append("#, " + ", ".join((["fuzzy"] if message.fuzzy else []) + flags))
    # An obsolete entry keeps no previous msgid: GNU would need `#~|` there, and nothing reviews it any more.
    previous = () if obsolete else (message.previous_id or ())
    for keyword, text in zip(("msgid", "msgid_plural"), [previous] if isinstance(previous, str) else previous):
        out += _string(keyword, text, "#| ")
    prefix = "#~ " if obsolete else ""
    if message.context is not None:
        out += _string("msgctxt", message.context, prefix)
    if isinstance(message.id, (list, tuple)):
        out += _string("msgid", message.id[0], prefix) + _string("msgid_plural", message.id[1], prefix)
        forms = list(message.string or ())
        for i in range(num_plurals):
            out += _string(f"msgstr[{i}]", forms[i] if i < len(forms) else "", prefix)
    else:
        out += _string("msgid", message.id, prefix) + _string("msgstr", message.string or "", prefix)
    return out


def po_text(catalog: Catalog, comments: list[str], fields: list[tuple[str, str]]) -> str:
    header = "".join(f"{name}: {value}\n" for name, value in fields)
    blocks = ["\n".join(comments + _string("msgid", "") + _string("msgstr", header))]
    blocks += ["\n".join(_entry(m, catalog.num_plurals)) for m in catalog if m.id]
    # An obsolete entry with no translation is dropped, as GNU msgcat drops it: nothing to reuse.
    blocks += [
        "\n".join(_entry(m, catalog.num_plurals, obsolete=True))
        for m in catalog.obsolete.values()
        if any(m.string if isinstance(m.string, (list, tuple)) else [m.string])
    ]
    return "\n\n".join(blocks) + "\n"


def merged_fields(
    old: list[tuple[str, str]], managed: dict[str, str], defaults: dict[str, str]
) -> list[tuple[str, str]]:
    """Header fields in GNU's order: `managed` values always, a kept value unless it is a template
    placeholder (then `defaults`), then any other field the file has (Poedit's X-Generator...)."""
    have = dict(old)
    values = {
        **{k: v for k, v in defaults.items() if not have.get(k) or PLACEHOLDER.search(have[k])},
        **{k: v for k, v in have.items() if k not in defaults or not PLACEHOLDER.search(v)},
        **managed,
    }
    values.pop("Generated-By", None)  # Babel's stamp: it changed with every Babel release
    ordered = [(k, values[k]) for k in HEADER_ORDER if k in values]
    return ordered + [(k, v) for k, v in values.items() if k not in HEADER_ORDER]


def _write_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and path.read_bytes() == text.encode("utf-8"):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return True


# -- extraction and merging --------------------------------------------------------------------------


def extract(root: Path, output: Path, mapping: str | None = None) -> bool:
    """Every UI string under `root` into the template `output`, from where `mapping` (babel.cfg's
    syntax; by default `root`'s babel.cfg) says to look. Its POT-Creation-Date moves only when the
    strings, references or comments changed."""
    if mapping is None:
        mapping = (root / "babel.cfg").read_text(encoding="utf-8")
    method_map, options_map = parse_mapping_cfg(io.StringIO(mapping))
    keywords = {**DEFAULT_KEYWORDS, **parse_keywords(list(KEYWORDS))}
    template = Catalog(fuzzy=False)
    # Paths relative to the root (`#: generator/src/guidekit/l10n/_text.py:12`), the same in every checkout.
    for filename, lineno, msg, comments, context in extract_from_dir(
        str(root), method_map, options_map, keywords=keywords, comment_tags=(TRANSLATOR_TAG,), strip_comment_tags=False
    ):
        template.add(msg, None, [(filename, lineno)], auto_comments=comments, context=context)
    name, version, bugs_to = project_id(root)
    old_comments, old_fields = raw_header(output.read_text(encoding="utf-8")) if output.is_file() else ([], [])
    comments = [
        f"# Translations template for {name}.",
        f"# This file is distributed under the same license as the {name} project.",
        "#",
    ]
    fields = [
        ("Project-Id-Version", f"{name} {version}"),
        ("Report-Msgid-Bugs-To", bugs_to),
        ("POT-Creation-Date", dict(old_fields).get("POT-Creation-Date", "")),
        ("MIME-Version", "1.0"),
        ("Content-Type", "text/plain; charset=UTF-8"),
        ("Content-Transfer-Encoding", "8bit"),
    ]
    text = po_text(template, comments, fields)
    if output.is_file() and output.read_text(encoding="utf-8") == text:
        return False
    fields[2] = ("POT-Creation-Date", dt.datetime.now(dt.timezone.utc).strftime(DATE_FORMAT))
    return _write_if_changed(output, po_text(template, comments, fields))


def _revive(catalog: Catalog, template: Catalog) -> None:
    """Obsolete entries whose msgid the template has again become active, translation and all, as GNU
    msgmerge revives them. Babel's update keeps the old obsolete entry and adds an empty new one beside
    it: two definitions of one msgid, which msgfmt and msgcat refuse (a string removed, then restored)."""
    wanted = {template._key_for(m.id, m.context) for m in template if m.id}
    for key, message in list(catalog.obsolete.items()):
        if catalog._key_for(message.id, message.context) in wanted:
            del catalog.obsolete[key]
            catalog[message.id] = message


def update_catalog(
    root: Path, template_path: Path, po_path: Path, locale: str, extra: Iterable[Message] = (), provided: Iterable = ()
) -> bool:
    """Merges the template into `locale`'s catalog (creating it); True when the file changed.

    `extra`: entries merged as if the template had them (the generator's strings its package does not
    translate into `locale`). `provided`: keys (`Catalog._key_for`) of strings someone else translates
    (the generator's package): a translation left obsolete by them is dropped rather than kept as `#~`."""
    with template_path.open("rb") as fh:
        template = read_po(fh)
    for message in extra:
        if template.get(message.id, message.context) is None:
            template[message.id] = message
    text = po_path.read_text(encoding="utf-8") if po_path.is_file() else ""
    babel_code = str(babel_locale(locale))  # pt-BR is pt_BR to Babel and to gettext
    catalog = read_catalog(po_path, babel_code) if text else Catalog(locale=babel_code)
    previous = {(m.id if isinstance(m.id, str) else m.id[0], m.context): m.previous_id for m in catalog if m.id}
    _revive(catalog, template)
    catalog.update(template, update_creation_date=True)
    provided = set(provided)
    for key, message in list(catalog.obsolete.items()):
        if catalog._key_for(message.id, message.context) in provided:
            del catalog.obsolete[key]
    count, expr = plurals.plural_forms_header(locale).removesuffix(";").split("; plural=")
    catalog._num_plurals = int(count.removeprefix("nplurals="))  # Babel sizes msgstr[i] from this
    for message in catalog:
        # Babel forgets `#|` once an entry is fuzzy-matched; keep it until a translator clears the flag.
        key = (message.id if isinstance(message.id, str) else message.id[0], message.context) if message.id else None
        if message.fuzzy and not message.previous_id and previous.get(key):
            message.previous_id = previous[key]
        elif not message.fuzzy:
            message.previous_id = []  # reviewed: the old msgid has served (msgmerge drops it too)
    name, version, bugs_to = project_id(root)
    _, template_fields = raw_header(template_path.read_text(encoding="utf-8"))
    old_comments, old_fields = raw_header(text)
    language = babel_locale(locale).english_name
    comments = (
        old_comments
        if old_comments and not any(PLACEHOLDER.search(c) for c in old_comments)
        else [
            f"# {language} translations for {name}.",
            f"# This file is distributed under the same license as the {name} project.",
            "#",
        ]
    )
    managed = {
        "Project-Id-Version": f"{name} {version}",
        "Report-Msgid-Bugs-To": bugs_to,
        "POT-Creation-Date": dict(template_fields).get("POT-Creation-Date", ""),
        "Language": babel_code,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": plurals.plural_forms_header(locale),
    }
    defaults = {
        "PO-Revision-Date": managed["POT-Creation-Date"],
        "Last-Translator": f"{name} translators",
        "Language-Team": f"{language} ({name})",
    }
    return _write_if_changed(po_path, po_text(catalog, comments, merged_fields(old_fields, managed, defaults)))
