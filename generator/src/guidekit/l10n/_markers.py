"""Markers for translatable message ids.

Every human-readable string in the package is an English msgid wrapped in a marker so that Babel
extracts it (keywords `N_`, `NP_:1c,2`, `NN_:1,2`, `NNP_:1c,2,3`); the site translates it at render
time. A comment starting `TRANSLATORS:` just above a marker reaches the translator in the catalog.

`N_` returns the msgid itself. The others return a small JSON-able dict (they cross the worker
boundary inside results), which `guidekit.l10n.Translator` takes wherever it takes a msgid:
`NP_` adds a msgctxt, for a short string whose sense depends on where it is shown;
`NN_` is a count string with a plural form, its number taken from the parameter named `n`.
"""

# What a display block takes wherever it takes text: a msgid, or one of the dicts below.
Msg = str | dict[str, str]


def N_(msgid: str) -> str:
    """Return ``msgid`` unchanged; only marks it for extraction."""
    return msgid


def NP_(context: str, msgid: str) -> dict[str, str]:
    """A msgid with a msgctxt (gettext's pgettext)."""
    return {"context": context, "msgid": msgid}


def NN_(singular: str, plural: str, n: str = "count") -> dict[str, str]:
    """A count string (gettext's ngettext): English singular and plural, the count in param `n`."""
    return {"msgid": singular, "plural": plural, "n": n}


def NNP_(context: str, singular: str, plural: str, n: str = "count") -> dict[str, str]:
    """A count string with a msgctxt (gettext's npgettext)."""
    return {"context": context, "msgid": singular, "plural": plural, "n": n}
