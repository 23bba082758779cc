"""Marker for translatable message ids.

Every human-readable string in the package is an English msgid wrapped in ``N_``
so that Babel (keyword ``N_``) extracts it; the site translates it at render time.
"""


def N_(msgid: str) -> str:
    """Return ``msgid`` unchanged; only marks it for extraction."""
    return msgid
