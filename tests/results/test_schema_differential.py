"""The hand-written validator agrees with jsonschema on hundreds of mutated result files."""

from __future__ import annotations

import datetime as dt
import re

import jsonschema
import pytest

import gpuguide.results as results
from pilot.result import _validator as _schema, load_schema

from .corpus import corpus, load_good

_RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def _reference():
    """jsonschema with a date-time check of its own (its built-in one needs a package not installed)."""
    checker = jsonschema.FormatChecker(formats=())

    @checker.checks("date-time")
    def _date_time(value):
        if not isinstance(value, str):
            return True
        if not _RFC3339.fullmatch(value):
            return False
        try:
            dt.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
        except ValueError:
            return False
        return True

    return jsonschema.Draft202012Validator(load_schema(), format_checker=checker)


REFERENCE = _reference()
CORPUS = corpus()


def test_the_good_files_are_valid():
    for doc in load_good():
        assert REFERENCE.is_valid(doc) and results.validate(doc) == []


def test_agrees_with_jsonschema_on_every_mutation():
    disagreements, valid = [], 0
    for i, doc in enumerate(CORPUS):
        theirs = REFERENCE.is_valid(doc)
        ours = results.validate(doc)
        valid += theirs
        if theirs != (ours == []):
            disagreements.append((i, theirs, ours[:3], [e.json_path for e in REFERENCE.iter_errors(doc)][:3]))
    assert not disagreements, disagreements[:5]
    # Both sides of the equivalence are exercised, not just "invalid".
    assert len(CORPUS) >= 300 and 60 <= valid <= len(CORPUS) - 200, valid


def test_every_problem_points_where_jsonschema_finds_one():
    """Our pointer is the place of one of jsonschema's errors (or inside it, for a missing property)."""
    for doc in CORPUS[:300]:
        theirs = {_pointer(e) for e in _all(REFERENCE.iter_errors(doc))}
        for p in results.validate(doc):
            if p["code"] == "additionalProperties":  # jsonschema reports at the object
                assert p["pointer"].rsplit("/", 1)[0] in theirs, p
            else:
                assert p["pointer"] in theirs, (p, theirs)


def _all(errors):
    """jsonschema's errors with those nested in anyOf branches."""
    for e in errors:
        yield e
        yield from _all(e.context or ())


def _pointer(error) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in error.absolute_path)


def test_a_pattern_dollar_is_the_end_of_the_text_as_in_ecma_262():
    doc = load_good()[0]
    doc["model"]["config_hash"] = "a" * 64 + "\n"
    assert REFERENCE.is_valid(doc)  # Python's `$` lets the newline through
    assert [p["code"] for p in results.validate(doc)] == ["pattern"]


@pytest.mark.parametrize("fragment", [{"not": {}}, {"oneOf": [{}]}, {"format": "email"}, {"$ref": "other.json"}])
def test_an_unimplemented_keyword_fails_at_load(fragment):
    schema = load_schema()
    schema["properties"]["label"] = {**schema["properties"]["label"], **fragment}
    with pytest.raises(results.SchemaFeatureError):
        _schema.Validator(schema)


def test_the_shipped_schema_loads():
    assert _schema.Validator(load_schema()).root["properties"]["schema_version"]["const"] == "1"
