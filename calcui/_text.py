"""gettext lookups from the locale pack (the build compiles each locale's PO catalog into it)."""

from __future__ import annotations

import string
from html import escape


class Translator:
    def __init__(self, pack: dict):
        self.messages: dict[str, str] = pack.get("messages", {})
        self.locale: str = pack["locale"]
        self.dir: str = pack.get("dir", "ltr")

    def __call__(self, msgid: str, **params) -> str:
        """The translation of `msgid` (itself when untranslated), with `{name}` params filled."""
        text = self.messages.get(msgid) or msgid
        if params:
            text = string.Formatter().vformat(text, (), _Missing(params))
        return text

    def html(self, msgid: str, **params: str) -> str:
        """The translation as HTML: the template escaped, `params` inserted as the HTML they are
        (escaped or `<bdi>`-isolated by the caller)."""
        return string.Formatter().vformat(escape(self.messages.get(msgid) or msgid), (), _Missing(params))


class _Missing(dict):
    """Leaves an unknown placeholder visible instead of failing on a translator's typo."""

    def __missing__(self, key):
        return "{" + key + "}"
