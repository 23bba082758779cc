"""A JSON Schema (draft 2020-12) validator for exactly the keywords the pilot's result schema uses.

Why hand-written: `jsonschema` cannot run in Pyodide (its dependency rpds-py is a compiled
extension), and this same code validates an imported file in the reader's browser and every file
in `results/` at build time. A test proves it agrees with `jsonschema` on hundreds of mutated
results. Loading a schema that uses a keyword (or a format) not implemented here raises
`SchemaFeatureError`, so a schema change can never silently skip a check.

Two deliberate choices: `format: date-time` is asserted (RFC 3339), and a pattern's final `$`
means the end of the text, as in ECMA-262 (Python's `$` would also accept a trailing newline).
"""

from __future__ import annotations

import calendar
import json
import re
from importlib import resources
from typing import Any

from guidekit.l10n import DATE_TIME

SCHEMA_FILE = "result-v1.schema.json"
# A JSON value as json.loads makes it: the validator dispatches on `json_type`, which a type checker
# cannot follow, so its values are Any.
Json = Any
Schema = dict[str, Any] | bool
Problem = tuple[str, str, dict[str, Any]]  # (pointer, code, params)

IMPLEMENTED = {
    "$ref",
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "pattern",
    "format",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "required",
    "properties",
    "additionalProperties",
    "maxProperties",
    "anyOf",
    "allOf",
    "if",
    "then",
}
ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description"}
FORMATS = {"date-time"}


class SchemaFeatureError(ValueError):
    """The schema needs a keyword this validator does not implement."""


def pointer_join(pointer: str, key: str | int) -> str:
    """RFC 6901: '~' and '/' inside a key are escaped."""
    return pointer + "/" + str(key).replace("~", "~0").replace("/", "~1")


_JSON_TYPES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}  # exact types: json.loads makes no subclasses


def json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), "unknown")


def _is_type(value: Json, name: str) -> bool:
    found = json_type(value)
    if name == "number":
        return found in ("integer", "number")
    if name == "integer":  # draft 2020-12: 1.0 is an integer
        return found == "integer" or (found == "number" and value.is_integer())
    return found == name


def _canon(value: Json) -> tuple[str, object]:
    """A hashable form under JSON equality: true is not 1, but 1 is 1.0."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, list):
        return ("array", tuple(_canon(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canon(v)) for k, v in value.items()))
    return ("string", value)


def is_date_time(text: str) -> bool:
    """RFC 3339, fields within their bounds (the format the schema asserts)."""
    m = DATE_TIME.fullmatch(text)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m[k]) for k in ("year", "month", "day", "hour", "minute", "second"))
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year or 2000, month)[1]):
        return False
    if hour > 23 or minute > 59 or second > 60:  # 60: a leap second
        return False
    return m["off_h"] is None or (int(m["off_h"]) <= 23 and int(m["off_m"]) <= 59)


# A container stops building problems after this many and only counts the rest, as one OMITTED entry:
# a 5 MB file can hold a million bad items, and building, sorting and deduplicating each took 15 s.
CAP = 50
OMITTED = "_omitted"


def count(problems: list[Problem]) -> int:
    """How many problems `problems` stands for (an OMITTED entry stands for its count)."""
    return sum(p[2]["count"] if p[1] == OMITTED else 1 for p in problems)


def _capped(out: list[Problem], more: list[Problem]) -> None:
    """Adds `more` to `out`, or only their count once `out` holds CAP problems."""
    if len(out) < CAP:
        out += more
    elif more:
        extra = count(more)
        if out[-1][1] == OMITTED:
            out[-1] = (out[-1][0], OMITTED, {"count": out[-1][2]["count"] + extra})
        else:
            out.append(("", OMITTED, {"count": extra}))


# Exact Python types of a type-only item schema, checked without a call per item (a million losses).
_FAST_TYPES = {"number": (int, float), "string": (str,), "boolean": (bool,), "null": (type(None),)}


class Validator:
    """Collects raw problems as (pointer, code, params) tuples; `validate()` turns them into dicts."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.root = schema
        self.patterns: dict[str, re.Pattern[str]] = {}
        self._check(schema, "#")

    # -- loading -------------------------------------------------------------------------------
    def _check(self, schema: object, where: str) -> None:
        if isinstance(schema, bool):
            return
        if not isinstance(schema, dict):
            raise SchemaFeatureError(f"{where}: a schema must be an object or a boolean")
        for key, sub in schema.items():
            if key not in IMPLEMENTED and key not in ANNOTATIONS:
                raise SchemaFeatureError(f"{where}: keyword {key!r} is not implemented by pilot.result")
            if key in ("properties", "$defs"):
                for name, s in sub.items():
                    self._check(s, f"{where}/{key}/{name}")
            elif key in ("anyOf", "allOf"):
                for i, s in enumerate(sub):
                    self._check(s, f"{where}/{key}/{i}")
            elif key in ("items", "additionalProperties", "if", "then"):
                self._check(sub, f"{where}/{key}")
            elif key == "$ref":
                self._resolve(sub)
            elif key == "format" and sub not in FORMATS:
                raise SchemaFeatureError(f"{where}: format {sub!r} is not implemented by pilot.result")
            elif key == "pattern":
                # ECMA-262 `$` is the very end; Python's also matches before a final newline.
                self.patterns[sub] = re.compile(
                    sub[:-1] + r"\Z" if sub.endswith("$") and not sub.endswith("\\$") else sub
                )
        if "then" in schema and "if" not in schema:
            raise SchemaFeatureError(f"{where}: 'then' without 'if'")

    def _resolve(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#/"):
            raise SchemaFeatureError(f"$ref {ref!r}: only references inside the schema are implemented")
        node = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise SchemaFeatureError(f"$ref {ref!r} does not resolve")
            node = node[part]
        return node

    # -- validating ----------------------------------------------------------------------------
    def is_valid(self, schema: Schema, value: Json) -> bool:
        return not self.problems(schema, value, "")

    def problems(self, schema: Schema, value: Json, ptr: str) -> list[Problem]:
        if schema is True:
            return []
        if schema is False:
            return [(ptr, "false", {})]
        out: list[Problem] = []
        if "$ref" in schema:
            out += self.problems(self._resolve(schema["$ref"]), value, ptr)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, t) for t in types):
                # The other keywords only apply to their own type: one clear problem is enough.
                return out + [(ptr, "type", {"types": ",".join(types), "found": json_type(value)})]
        if "const" in schema and _canon(value) != _canon(schema["const"]):
            out.append((ptr, "const", {"value": json.dumps(schema["const"])}))
        if "enum" in schema and _canon(value) not in {_canon(v) for v in schema["enum"]}:
            out.append((ptr, "enum", {"choices": [str(v) for v in schema["enum"]]}))  # a list: joined per locale
        kind = json_type(value)
        if kind in ("integer", "number"):
            out += self._number(schema, value, ptr)
        elif kind == "string":
            out += self._string(schema, value, ptr)
        elif kind == "array":
            out += self._array(schema, value, ptr)
        elif kind == "object":
            out += self._object(schema, value, ptr)
        if "allOf" in schema:
            for sub in schema["allOf"]:
                out += self.problems(sub, value, ptr)
        if "anyOf" in schema:
            out += self._any_of(schema["anyOf"], value, ptr)
        if "if" in schema and "then" in schema and self.is_valid(schema["if"], value):
            out += self.problems(schema["then"], value, ptr)
        return out

    def _number(self, schema: dict[str, Any], value: float, ptr: str) -> list[Problem]:
        out: list[Problem] = []
        if "minimum" in schema and value < schema["minimum"]:
            out.append((ptr, "minimum", {"limit": schema["minimum"], "found": value}))
        if "maximum" in schema and value > schema["maximum"]:
            out.append((ptr, "maximum", {"limit": schema["maximum"], "found": value}))
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            out.append((ptr, "exclusiveMaximum", {"limit": schema["exclusiveMaximum"], "found": value}))
        return out

    def _string(self, schema: dict[str, Any], value: str, ptr: str) -> list[Problem]:
        out: list[Problem] = []
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append((ptr, "maxLength", {"limit": schema["maxLength"], "length": len(value)}))
        if "pattern" in schema and not self.patterns[schema["pattern"]].search(value):
            out.append((ptr, "pattern", {"pattern": schema["pattern"]}))
        if schema.get("format") == "date-time" and not is_date_time(value):
            out.append((ptr, "format", {"format": "date-time"}))
        return out

    def _array(self, schema: dict[str, Any], value: list[Json], ptr: str) -> list[Problem]:
        out: list[Problem] = []
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append((ptr, "minItems", {"limit": schema["minItems"], "count": len(value)}))
        too_many = "maxItems" in schema and len(value) > schema["maxItems"]
        if too_many:
            out.append((ptr, "maxItems", {"limit": schema["maxItems"], "count": len(value)}))
        if schema.get("uniqueItems") and len({_canon(v) for v in value}) != len(value):
            out.append((ptr, "uniqueItems", {}))
        if "items" in schema:
            items = schema["items"]
            if isinstance(items, dict) and set(items) == {"type"} and items["type"] in _FAST_TYPES:
                # A result can hold a million losses: their types are checked in one pass, without a call each.
                accepted = _FAST_TYPES[items["type"]]
                failing = [i for i, item in enumerate(value) if type(item) not in accepted]
                for i in failing[:CAP]:
                    _capped(out, self.problems(items, value[i], pointer_join(ptr, i)))
                _capped(out, [("", OMITTED, {"count": len(failing) - CAP})] if len(failing) > CAP else [])
                return out
            for i, item in enumerate(value):
                # Build an item's pointer only when it fails, and only while the list is short.
                found = self.problems(items, item, "")
                if found:
                    _capped(out, self.problems(items, item, pointer_join(ptr, i)) if len(out) < CAP else found)
        return out

    def _object(self, schema: dict[str, Any], value: dict[str, Json], ptr: str) -> list[Problem]:
        out: list[Problem] = []
        for name in schema.get("required", ()):
            if name not in value:
                out.append((ptr, "required", {"property": name}))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name in (name for name in props if name in value):  # the schema's order: a file's keys may be many
            out += self.problems(props[name], value[name], pointer_join(ptr, name))
        unknown = [name for name in value if name not in props] if extra is not True else []
        if extra is False:  # a file can hold 400,000 unknown keys: the first CAP are named, the rest counted
            for name in unknown[:CAP]:
                _capped(out, [(pointer_join(ptr, name), "additionalProperties", {"property": name})])
            _capped(out, [("", OMITTED, {"count": len(unknown) - CAP})] if len(unknown) > CAP else [])
        else:
            for name in unknown:
                if found := self.problems(extra, value[name], ""):
                    _capped(
                        out, self.problems(extra, value[name], pointer_join(ptr, name)) if len(out) < CAP else found
                    )
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            out.append((ptr, "maxProperties", {"limit": schema["maxProperties"], "count": len(value)}))
        return out

    def _declared_types(self, schema: object) -> set[str] | None:
        while isinstance(schema, dict) and "$ref" in schema and "type" not in schema:
            schema = self._resolve(schema["$ref"])
        if not isinstance(schema, dict) or "type" not in schema:
            return None
        t = schema["type"]
        return set(t if isinstance(t, list) else [t])

    def _any_of(self, branches: list[Schema], value: Json, ptr: str) -> list[Problem]:
        """Valid if one branch is; otherwise the problems of the branch meant for this type."""
        tried: list[tuple[Schema, list[Problem]]] = []
        for sub in branches:
            found = self.problems(sub, value, ptr)
            if not found:
                return []
            tried.append((sub, found))
        declared = [self._declared_types(sub) for sub, _ in tried]
        meant = [
            found
            for (sub, found), types in zip(tried, declared)
            if types is None or any(_is_type(value, t) for t in types)
        ]
        if meant:
            return min(meant, key=len)
        names = [t for types in declared if types is not None for t in sorted(types)]  # None: all went to `meant`
        return [(ptr, "type", {"types": ",".join(dict.fromkeys(names)), "found": json_type(value)})]


_VALIDATOR: Validator | None = None


def load_schema() -> dict[str, Any]:
    # Read through importlib.resources, not a path: in the browser this package is imported from the
    # site's wheel as a zip archive, where the schema is no file of its own.
    schema: dict[str, Any] = json.loads((resources.files(__package__) / SCHEMA_FILE).read_text(encoding="utf-8"))
    return schema


def validator() -> Validator:
    global _VALIDATOR
    if _VALIDATOR is None:
        _VALIDATOR = Validator(load_schema())
    return _VALIDATOR
