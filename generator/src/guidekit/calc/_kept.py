"""Figures kept across answers: a reader edits one input at a time, so most of an answer's parts are
the last answer's, keyed by the inputs each part reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

SIZE = 16  # sets of inputs kept per store: the last few a reader went back and forth between


def kept(store: dict[tuple[Any, ...], T], key: tuple[Any, ...], make: Callable[[], T]) -> T:
    """What `make()` gives for `key`, made once for as long as `key` stays among the last SIZE."""
    if key not in store:
        if len(store) >= SIZE:
            store.pop(next(iter(store)))  # the oldest
        store[key] = make()
    return store[key]


def key_of(values: object, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The values of the inputs `names` (dict items, or attributes of an object) as a hashable key."""
    get = values.__getitem__ if isinstance(values, dict) else values.__getattribute__
    return tuple(tuple(v) if isinstance(v, list) else v for v in map(get, names))
