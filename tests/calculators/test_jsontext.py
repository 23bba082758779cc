"""The nesting check that runs before json sees an untrusted text agrees with a character-by-character
reading of JSON's strings and escapes, and never lets deeper nesting through than json would meet."""

from __future__ import annotations

import random

import pytest

from guidekit.calc.jsontext import nesting_exceeds

LIMIT = 4


def reference(text: str, limit: int = LIMIT, as_json: bool = False) -> bool:
    """The rule, one character at a time: brackets outside strings count until one closes unmatched;
    a backslash escapes the next character; an unterminated string runs to the end. `as_json`: stop
    at a backslash outside a string too, as json does (a syntax error)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "\\" and as_json:
            return False
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                return False
    return False


def json_like(rng: random.Random) -> str:
    """Brackets, commas and strings holding escapes, brackets and non-ASCII text; backslashes only
    inside strings (outside one, json stops at the first anyway); sometimes an unterminated string
    at the end."""
    parts = []
    for _ in range(rng.randrange(30)):
        kind = rng.random()
        if kind < 0.5:
            parts.append(rng.choice("[[{{]},:1"))
        else:
            body = "".join(
                rng.choice(['\\"', "\\\\", "\\n", "[", "]", "{", "}", "a", "é", "日", "\\u00e9"])
                for _ in range(rng.randrange(6))
            )
            if rng.random() < 0.05:
                return "".join(parts) + '"' + body  # unterminated: the rest of the text is in it
            parts.append('"' + body + '"')
    return "".join(parts)


def test_agrees_with_the_character_reading_on_json_like_text():
    rng = random.Random(32)
    for _ in range(20_000):
        text = json_like(rng)
        assert nesting_exceeds(text, LIMIT) == reference(text), text
        assert nesting_exceeds(text.encode("utf-8"), LIMIT) == reference(text), text


def test_never_misses_nesting_json_would_meet_in_any_text():
    """Outside a string a backslash is a syntax error: json stops there, and the check may count the
    rest differently, but never lower than json would have found it."""
    rng = random.Random(33)
    for _ in range(20_000):
        text = "".join(rng.choice('"\\[]{}a,é') for _ in range(rng.randrange(24)))
        if reference(text, as_json=True):
            assert nesting_exceeds(text, LIMIT), text


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("[" * 33, True),
        ("[" * 32, False),
        ("[" * 32 + "]" * 32, False),
        ("[" * 33 + "]" * 33, True),
        ('{"a":' * 33, True),
        ('["' + "[" * 40 + '"]', False),
        ('"\\"' + "[" * 40, False),
        ('"\\\\"' + "[" * 40, True),
        ("]" + "[" * 40, False),
        ('"' + '\\"' * 1000, False),
        ("", False),
    ],
)
def test_cases(text, deep):
    assert nesting_exceeds(text, 32) is deep
