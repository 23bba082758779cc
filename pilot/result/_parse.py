"""Reading a result file: size, encoding, JSON syntax, finite numbers, schema version, schema.

Returns codes and parameters only (PROBLEM_CODES words them in English; gpuguide.results in every locale).

Each stage stops at its first kind of trouble, so a reader sees the one fix that matters
(a truncated file gets one syntax error, not a wall of missing properties).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from guidekit.calc import jsontext

from ._validator import CAP, OMITTED, json_type, pointer_join, validator

MAX_BYTES = 5_000_000
MAX_DEPTH = 32  # the schema nests 6 levels; deeper is junk, refused before json (and the stack) sees it
MAX_PROBLEMS = 50  # a file of 100,000 unknown keys gets 50 lines and a count
_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone surrogate escape: valid JSON, but no UTF-8 text can hold it
# Where a value sits, built as the walk goes down: (the parent's path, the key or index), None at the root.
_Path = tuple["_Path", str | int] | None


class _NonFinite:
    """Stands in for NaN, ±Infinity and numbers beyond a double, so their place can be reported."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal if len(literal) <= 24 else literal[:20] + "…"


# One stand-in per literal: a file of 800,000 `1e999` makes one object, not 800,000.
_stand_in = functools.lru_cache(maxsize=256)(_NonFinite)


def supported_versions() -> list[str]:
    spec = validator().root["properties"]["schema_version"]
    return [spec["const"]] if "const" in spec else list(spec["enum"])


def problem(pointer: str, code: str, **params: object) -> dict[str, Any]:
    """One problem: where (a JSON pointer), what kind (a key of PROBLEM_CODES) and its parameters."""
    return {"pointer": pointer, "code": code, "params": params}


def _bounded(text: str, limit: int) -> str:
    # Echoed from the file, so cut here; the wording layer also strips bidi controls before showing it.
    return text if len(text) <= limit else text[:limit] + "…"


def validate(data: object) -> list[dict[str, Any]]:
    """Problems of `data` against the pilot's result schema, sorted; [] when valid."""
    raw = validator().problems(validator().root, data, "")
    return _finish([problem(p, code, **params) for p, code, params in raw])


def _finish(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # The walk built at most about CAP problems per container and counted the rest (OMITTED).
    omitted = sum(p["params"]["count"] for p in problems if p["code"] == OMITTED)
    unique = {(p["pointer"], p["code"], _key(p["params"])): p for p in problems if p["code"] != OMITTED}
    # allOf can demand "an object" where anyOf allowed "an object or null": keep the narrower.
    narrowest: dict[str, dict[str, Any]] = {}
    for p in unique.values():
        if p["code"] == "type":
            best = narrowest.get(p["pointer"])
            if best is None or len(p["params"]["types"].split(",")) < len(best["params"]["types"].split(",")):
                narrowest[p["pointer"]] = p
    kept = [p for p in unique.values() if p["code"] != "type" or narrowest[p["pointer"]] is p]
    kept.sort(key=lambda p: (p["pointer"], p["code"], _key(p["params"])))
    if len(kept) > MAX_PROBLEMS or omitted:
        shown = kept[: MAX_PROBLEMS - 1]
        kept = shown + [problem("", "too_many", count=len(kept) - len(shown) + omitted)]
    return kept


def _key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, ensure_ascii=False, default=str)


def _pointer(path: _Path) -> str:
    keys: list[str | int] = []
    while path is not None:
        path, key = path
        keys.append(key)
    ptr = ""
    for key in reversed(keys):
        ptr = pointer_join(ptr, key)
    return ptr


def _unrepresentable(data: object, stand_ins: int, surrogates: bool) -> list[dict[str, Any]]:
    """Where the first CAP stand-ins and lone surrogates sit (a page could not be written with them), and
    how many more there are. Iterative (the browser's stack is small); a path is a (parent path, key)
    pair, joined into a pointer only for a find, since a 5 MB file can hold a million containers. The
    loader counted the stand-ins, so without surrogates the walk stops at CAP finds."""
    found: list[dict[str, Any]] = []
    omitted = 0

    def add(path: _Path, code: str, **params: object) -> None:
        nonlocal omitted
        if len(found) < CAP:
            found.append(problem(_pointer(path), code, **params))
        else:  # only counted: a file can hold a million of them
            omitted += 1

    stack: list[tuple[_Path, object]] = [(None, data)]
    while stack and (surrogates or len(found) < CAP):
        path, node = stack.pop()
        if isinstance(node, _NonFinite):
            add(path, "non_finite", literal=node.literal)
            continue
        if isinstance(node, str):
            if _SURROGATE.search(node):
                add(path, "surrogate")
            continue
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        children: list[tuple[_Path, object]] = []
        nested = False  # a container is queued, whose problems come first
        tail_checked = False  # whether the rest of this list was tried as plain strings
        for key, value in items:
            if not surrogates and len(found) >= CAP:
                break
            if isinstance(key, str) and _SURROGATE.search(key):
                add(path, "surrogate")
            if isinstance(value, _NonFinite):  # at once, not through the stack: a list can hold 800,000
                add((path, key), "non_finite", literal=value.literal)
            elif isinstance(value, (dict, list)):
                children.append(((path, key), value))
                nested = True
            elif isinstance(value, str) and _SURROGATE.search(value):
                if nested or len(found) + len(children) < CAP:
                    children.append(((path, key), value))
                else:  # past the listed ones, before any nested value: only counted, not through the stack
                    omitted += 1
                    if isinstance(node, list) and not tail_checked:
                        # A list of strings after the listed ones (a 5 MB file of lone surrogates: half a
                        # million): counted at C speed, not item by item, when nothing else follows.
                        tail_checked = True
                        rest = node[key + 1 :]
                        if set(map(type, rest)) <= {str}:
                            omitted += sum(map(bool, map(_SURROGATE.search, rest)))
                            break
        stack += reversed(children)  # popped in file order, so the problems listed are the first ones
    if not surrogates:  # the walk stopped early: the loader's count says how many it did not reach
        omitted = stand_ins - len(found)
    return found + ([problem("", OMITTED, count=omitted)] if omitted else [])


def parse(text: object, max_bytes: int = MAX_BYTES) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(the result, []) for a valid file; (None, problems) otherwise. Never raises on content. `text`
    is str or bytes (a bytearray or memoryview too, as the browser hands them over); anything else is a
    problem too."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        if len(raw) > max_bytes:
            return None, [problem("", "too_large", limit=max_bytes, found=len(raw))]
        if raw.startswith(b"\xef\xbb\xbf"):
            return None, [problem("", "bom")]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, [problem("", "encoding", offset=exc.start)]
    elif not isinstance(text, str):
        return None, [problem("", "type", types="string", found=json_type(text))]
    else:
        size = len(text) if len(text) > max_bytes else len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            return None, [problem("", "too_large", limit=max_bytes, found=size)]
        if text.startswith("\ufeff"):
            return None, [problem("", "bom")]
    if not text.strip():
        return None, [problem("", "empty")]
    if jsontext.nesting_exceeds(text, MAX_DEPTH):
        return None, [problem("", "too_deep", limit=MAX_DEPTH)]
    try:
        data, stand_ins = jsontext.loads(text, _stand_in, constants=True)
    except json.JSONDecodeError as exc:
        return None, [problem("", "json_syntax", line=exc.lineno, column=exc.colno)]
    except (RecursionError, ValueError):
        return None, [problem("", "too_deep", limit=MAX_DEPTH)]
    # A lone surrogate comes from a \uDXXX escape (or, in a str, is there already).
    may_hold_surrogate = "\\ud" in text or "\\uD" in text or _SURROGATE.search(text)
    with jsontext.collection_paused():
        bad = _unrepresentable(data, stand_ins, bool(may_hold_surrogate)) if stand_ins or may_hold_surrogate else []
    if bad:
        return None, _finish(bad)
    if isinstance(data, dict) and "schema_version" in data and data["schema_version"] not in supported_versions():
        found = _bounded(json.dumps(data["schema_version"], ensure_ascii=False), 40)
        return None, [problem("/schema_version", "schema_version", supported=list(supported_versions()), found=found)]
    problems = validate(data)
    # The schema's root is an object, so a valid file is a dict.
    return (None, problems) if problems or not isinstance(data, dict) else (data, [])
