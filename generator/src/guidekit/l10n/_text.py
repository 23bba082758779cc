"""gettext lookups from the locale pack (the build compiles each locale's PO catalog into it).

The pack's `messages` map a key to a msgstr, or to the list of msgstr[i] for a plural entry; the key is
the msgid, or `context + "\\x04" + msgid` for an entry with a msgctxt (gettext's own encoding in .mo
files). Plural forms are chosen by the locale's CLDR rule, which the pack carries (`_plural`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._escape import escape
from ._markers import Msg
from ._pack import LocalePack, PluralData
from ._plural import form_index

CONTEXT_SEPARATOR = "\x04"


def message_key(msgid: str, context: str | None = None) -> str:
    return msgid if context is None else context + CONTEXT_SEPARATOR + msgid


class Translator:
    def __init__(self, pack: LocalePack):
        self.messages: dict[str, str | list[str]] = pack.get("messages", {})
        self.locale: str = pack["locale"]
        self.dir: str = pack.get("dir", "ltr")
        # Declared as always there, but a pack written by hand may leave `plural` out.
        declared: PluralData | None = pack.get("plural")
        plural: PluralData | dict[str, Any] = declared or {}
        self.plural_rules: list[list[Any]] = plural.get("rules", [])
        self.plural_forms: list[str] = plural.get("forms", ["one", "other"])

    def __call__(self, msg: Msg, n: float | str | None = None, **params: object) -> str:
        """The translation of `msg` (a msgid, or a `calculators.NP_`/`NN_`/`NNP_` declaration), with
        `{name}` params filled. A count string needs `n`: the number as shown (a str) or its value."""
        # (Private names below: Babel would extract the arguments of a call named `gettext`.)
        if isinstance(msg, str):
            return _fill(self._text(None, msg), params)
        if "plural" not in msg:
            return _fill(self._text(msg["context"], msg["msgid"]), params)
        if n is None:
            raise TypeError(f"{msg['msgid']!r} is a count string: pass n")
        return _fill(self._form(msg.get("context"), msg["msgid"], msg["plural"], n), params)

    # gettext's four lookups (the build's Jinja environment installs them), params not filled.
    def gettext(self, msgid: str) -> str:
        return self._text(None, msgid)

    def pgettext(self, context: str, msgid: str) -> str:
        return self._text(context, msgid)

    def ngettext(self, singular: str, plural: str, n: float | str) -> str:
        return self._form(None, singular, plural, n)

    def npgettext(self, context: str, singular: str, plural: str, n: float | str) -> str:
        return self._form(context, singular, plural, n)

    def html(self, msg: Msg, n: float | str | None = None, **params: str) -> str:
        """The translation as HTML: the template escaped, `params` inserted as the HTML they are
        (escaped or `<bdi>`-isolated by the caller)."""
        return escape(self(msg, n)).format_map(_Missing(params))

    def _text(self, context: str | None, msgid: str) -> str:
        """The translation of `msgid` in `context` (itself when untranslated)."""
        text = self.messages.get(message_key(msgid, context))
        return text if isinstance(text, str) and text else msgid

    def _form(self, context: str | None, singular: str, plural: str, n: float | str) -> str:
        """The form of a count string for `n`; untranslated, English's own two forms."""
        forms = self.messages.get(message_key(singular, context))
        if isinstance(forms, list) and len(forms) == len(self.plural_forms) and all(forms):
            return forms[form_index(self.plural_rules, self.plural_forms, n)]
        return singular if str(n) == "1" or (not isinstance(n, str) and n == 1) else plural


def plural_count(msg: Msg, params: Mapping[str, Any]) -> float | str | None:
    """The number a count string (`calculators.NN_`) shows: its `n` param, bare or typed ({"value": …})."""
    if not isinstance(msg, dict) or "n" not in msg:
        return None
    value = params.get(msg["n"])
    count: float | str | None = value["value"] if isinstance(value, dict) else value
    return count


def _fill(text: str, params: Mapping[str, object]) -> str:
    return text.format_map(_Missing(params)) if params else text


class _Missing(dict[str, object]):
    """Leaves an unknown placeholder visible instead of failing on a translator's typo."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
