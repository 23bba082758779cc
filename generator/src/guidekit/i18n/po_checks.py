"""Checks on a locale's PO catalog: untranslated and fuzzy entries, entries not merged from the template,
placeholders a translation dropped or invented, and HTML a translation brings in.

HTML matters because a translation is data: the renderers escape it, and a tag its msgid does not have
is refused as well, so no renderer that missed one could put a translator's `<script>` into a page.

Placeholders are `{name}` fields (str.format syntax, `{{`/`}}` for a literal brace), in every UI string:
guidekit.l10n fills them in the build and in the browser, and the templates' `_()` is the same Translator
(generator/src/guidekit/site/partials_env.py). `%` is text everywhere ("el 50 %"): nothing formats a UI string with `%`.
So a translation is judged by its braces only: the fields of its msgid, no other, and well formed
wherever the msgid is (a lone `{` would stop the formatting).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass

from babel.messages.catalog import Catalog, Message

from . import pofile

# A tag opens with "<" and a letter (or "</"), as HTML parses it: "{min} < x < {max}" is text, not a tag.
TAG = re.compile(r"</?[A-Za-z][^<>]*>?")
# Keywords that mark a UI string: N_ (Python declarations), _ (templates).
KEYWORDS = ("N_", "_")


@dataclass(frozen=True)
class EntryProblem:
    kind: str  # untranslated | fuzzy | unmerged | placeholder | html | po
    lineno: int
    msgid: str
    message: str


read_catalog = pofile.read_catalog  # one reader: it knows `#|`, which Babel's parser takes for a note


def brace_placeholders(text: str) -> Counter:
    """`{name}` fields as written (conversion and format spec included); ValueError on unbalanced braces."""
    fields = Counter()
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields["{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"] += 1
    return fields


def placeholders(text: str) -> Counter:
    try:
        return brace_placeholders(text)
    except ValueError:
        return Counter()  # a lone brace: never formatted (its translation is judged by placeholder_problem)


def placeholder_problem(msgid: str, msgstr: str, allow_missing: bool = False) -> str | None:
    """Why `msgstr` does not carry exactly the placeholders of `msgid`, or None.

    `allow_missing` is for plural forms, where a language's "one" form may spell the number out."""
    try:
        brace_placeholders(msgid)
    except ValueError:
        pass
    else:
        try:
            brace_placeholders(msgstr)
        except ValueError as error:
            return f"malformed {{placeholder}} in msgstr ({error})"
    want, got = placeholders(msgid), placeholders(msgstr)
    missing = [] if allow_missing else sorted((want - got).elements())
    extra = sorted(set(got) - set(want)) if allow_missing else sorted((got - want).elements())
    if not missing and not extra:
        return None
    parts = ([f"missing {' '.join(missing)}"] if missing else []) + (
        [f"not in msgid {' '.join(extra)}"] if extra else []
    )
    return "placeholders differ: " + "; ".join(parts)


def injected_tags(msgid: str, msgstr: str) -> list[str]:
    """HTML tags in the translation that the source string does not have (attributes included)."""

    def tags(text: str) -> Counter:
        return Counter(re.sub(r"\s+", " ", tag) for tag in TAG.findall(text))

    return sorted((tags(msgstr) - tags(msgid)).elements())


def _forms(message: Message) -> tuple[str, list[str]]:
    """(msgid as shown, every msgstr form)."""
    if isinstance(message.id, (list, tuple)):
        return " | ".join(message.id), list(message.string or ())
    return message.id, [message.string or ""]


# Characters no translation needs and GNU msgfmt or a reader's screen mishandles: C0 and C1 controls other
# than a tab, and the bidi embeddings and overrides (U+202A-U+202E), which can reverse the text around them.
# The isolates (U+2066-U+2069) are how right-to-left translations keep a figure in order, and stay.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")
_ENTRY_KEY = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[(\d+)\])?) "')


def file_problems(text: str, nplurals: int) -> list[EntryProblem]:
    """What GNU msgfmt refuses and Babel lets through, read from the file's text: a msgid given twice (Babel
    keeps the first and drops the other silently), a plural form beyond the header's count, a control or
    bidi override character in a translation. Obsolete `#~` entries are not read."""
    problems: list[EntryProblem] = []
    seen: dict[tuple[str, str], int] = {}
    context, msgid, start, field = "", "", 0, ""

    def close() -> None:
        if msgid and (context, msgid) in seen:
            problems.append(EntryProblem("po", start, _shown(msgid), f"the same msgid as line {seen[context, msgid]}"))
        elif msgid:
            seen[context, msgid] = start

    for number, line in enumerate(text.splitlines(), 1):
        if match := _ENTRY_KEY.match(line):
            keyword, index = match.group(1), match.group(2)
            if keyword in ("msgctxt", "msgid") and field == "msgstr":  # a new entry without a blank line
                close()
                context, msgid = "", ""
            field = keyword.split("[")[0]
            if keyword == "msgctxt":
                context = line
            elif keyword == "msgid":
                msgid, start = line, number
            if index is not None and int(index) >= nplurals:
                problems.append(
                    EntryProblem("po", number, _shown(msgid), f"msgstr[{index}], where the header has {nplurals} forms")
                )
        elif line.startswith('"'):
            if field == "msgid":
                msgid += line
            elif field == "msgctxt":
                context += line
        elif not line.strip():
            close()
            context, msgid, field = "", "", ""
        if field == "msgstr" and (bad := _CONTROL.search(line)):
            problems.append(
                EntryProblem("po", number, _shown(msgid), f"the control character U+{ord(bad.group(0)):04X}")
            )
    close()
    return problems


def _shown(msgid_lines: str) -> str:
    return msgid_lines.removeprefix("msgid ").replace('""', "")[:60]


def entry_problems(catalog: Catalog, template: Catalog | None = None) -> list[EntryProblem]:
    problems = []
    for message in catalog:
        if not message.id:
            continue  # the header
        shown, forms = _forms(message)
        where = message.lineno or 0
        if message.fuzzy:
            problems.append(EntryProblem("fuzzy", where, shown, "check the translation, then remove the fuzzy flag"))
        if not all(forms):
            problems.append(EntryProblem("untranslated", where, shown, ""))
        plural = not isinstance(message.id, str)
        source = " ".join(message.id) if plural else message.id
        # A fuzzy entry is a suggestion the build does not use: it is checked once a translator accepts it.
        for form in filter(None, [] if message.fuzzy else forms):
            if reason := placeholder_problem(source, form, allow_missing=plural):
                problems.append(EntryProblem("placeholder", where, shown, reason))
            if tags := injected_tags(source, form):
                problems.append(EntryProblem("html", where, shown, "HTML not in the msgid: " + " ".join(tags)))
    if template is not None:
        for message in template:
            if message.id and catalog.get(message.id, message.context) is None:
                problems.append(
                    EntryProblem(
                        "unmerged", 0, _forms(message)[0], "in messages.pot but not in this catalog (run `make i18n`)"
                    )
                )
    return problems


extract = pofile.extract  # status re-extracts into a temporary file to compare with messages.pot
