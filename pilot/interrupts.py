"""SIGINT and SIGTERM become an exception (`Interrupted`), so `finally` blocks stop child processes,
remove the temporary workdir and write the partial result.

One window needs care: a signal raised inside `subprocess.Popen`, after the child has started but before
the caller holds the `Popen` object, would leave nobody to stop that child. While a child is being
started (`deferred()`), a signal is held and raised as soon as the child is registered for stopping."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

from .errors import Interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)
# Signal handlers run in the main thread only, between bytecodes: plain module state is enough.
_deferring = 0
_pending: int | None = None


def _handler(signum, frame):
    global _pending
    for s in SIGNALS:  # a second Ctrl-C must not cut the cleanup short
        signal.signal(s, signal.SIG_IGN)
    if _deferring:
        _pending = signum
        return
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGINT and SIGTERM raise `Interrupted` inside the block; the previous handlers come back after."""
    previous = {s: signal.signal(s, _handler) for s in SIGNALS}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold a signal until the block ends, then raise it: wrap starting a child and registering it."""
    global _deferring, _pending
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and _pending is not None:
            signum, _pending = _pending, None
            raise Interrupted(signum)
