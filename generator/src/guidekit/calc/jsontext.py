"""Checks on untrusted JSON text that must run before `json.loads` sees it, in linear time.

A dropped file (a pilot result, a config.json) is read in the reader's browser, in Pyodide, and at
build time: its cost must grow with its size and no faster. So only bytes methods (replace,
translate, split) and C iterators go over the text here, never a regular expression, which would
retry from each quote of an unterminated string (a file of escaped quotes took minutes).
Standard library only: it runs in Pyodide.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import accumulate, filterfalse
from typing import Callable

_OTHERS = bytes(b for b in range(256) if b not in b'"[]{}')
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # as signed bytes: +1 opens, -1 closes


def nesting_exceeds(text: str | bytes, limit: int) -> bool:
    """Whether arrays and objects nest deeper than `limit` before a bracket closes unmatched (json
    reports that one itself, with its position). Brackets inside strings do not count. Bytes must
    be UTF-8 (in UTF-16 a character's bytes can look like a quote or a bracket)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    # A backslash escapes the next character: drop escaped backslashes, then escaped quotes, so
    # each quote left opens or closes a string (UTF-8 never puts these bytes inside a character).
    raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    # Two quotes side by side flip in and out of a string and back: dropping them changes nothing
    # around them (and leaves a quote per bracket at most, for the split).
    quotes_and_brackets = raw.translate(None, _OTHERS).replace(b'""', b"")
    outside = b"".join(quotes_and_brackets.split(b'"')[::2])
    depths = accumulate(memoryview(outside.translate(_STEP)).cast("b"))
    # The first depth outside 0..limit decides; C iterators all the way (the browser's Python is slow).
    return next(filterfalse(range(limit + 1).__contains__, depths), 0) > limit


@contextmanager
def collection_paused() -> Iterator[None]:
    """No garbage collection while JSON values are built or walked: they hold no reference cycles, and
    collections that rescan a million new objects tripled the time to read a 5 MB file."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def loads(text: str | bytes, stand_in: Callable[[str], object], constants: bool = False) -> tuple[object, int]:
    """json.loads with each number beyond a double (and with `constants`, NaN and ±Infinity) made by
    `stand_in(literal)`, so its place can be reported; also how many were made (most files have
    none, and then need no walk to find them)."""
    made: list[str] = []

    def make(literal: str) -> object:
        made.append(literal)
        return stand_in(literal)

    def as_float(literal: str) -> object:
        value = float(literal)
        return value if math.isfinite(value) else make(literal)

    def as_int(literal: str) -> object:
        # Beyond a double's range (309 digits) it cannot be a count or a measurement; int() would also
        # refuse more than 4,300 digits with an error json does not attribute to a position.
        return int(literal) if len(literal.lstrip("-")) <= 308 else make(literal)

    # json.loads treats parse_constant=None as not given.
    with collection_paused():
        value = json.loads(text, parse_float=as_float, parse_int=as_int, parse_constant=make if constants else None)
    return value, len(made)
