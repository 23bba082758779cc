"""A number typed in a form or written in an address: ASCII digits, an optional sign, point and
exponent. Python's int() and float() take more (underscores, other scripts' digits, nan, inf, and
1e309 as inf); each of those is "not a number" here, on an int field and a float field alike."""

from __future__ import annotations

import pytest

from calculators import compute
from guidekit.calc._inputs import number_from_text


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("1_6", "int('1_6') is 16"),
        ("1_000", "a digit group separator Python takes"),
        ("1.5_0", "float takes it"),
        ("١٢", "Arabic-Indic digits: int() reads 12"),
        ("۸", "Extended Arabic-Indic"),
        ("８", "fullwidth"),
        ("१६", "Devanagari"),
        ("nan", "float('nan')"),
        ("NaN", ""),
        ("inf", "float('inf')"),
        ("-Infinity", ""),
        ("1e309", "float gives inf"),
        ("-1e999", ""),
        ("1" + "0" * 309, "past a double as a whole number too"),
        ("\u00a016", "a no-break space: a locale's group separator, not padding"),
        ("16\u3000", "ideographic space"),
        ("0x10", ""),
        ("1e", ""),
        ("e5", ""),
        (".", ""),
        ("+", ""),
        ("--1", ""),
        ("+-1", ""),
        ("1.2.3", ""),
        ("1,5", "a decimal comma is a later, locale-aware decision"),
        ("1 0", ""),
        ("²", "str.isdigit() is true"),
    ],
)
def test_refused(text, why):
    assert number_from_text(text) is None, why
    for field in ("seq_len", "margin"):  # an int and a float input
        answer = compute("memory", {field: text})
        assert [(e["field"], e["code"]) for e in answer["errors"]] == [(field, "not_a_number")], why


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("8", 8),
        ("+8", 8),
        (" 8 ", 8),
        ("\t8\n", 8),
        ("-8", -8),
        ("007", 7),
        ("8.0", 8.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e3", 1000.0),
        ("2.5E-4", 2.5e-4),
        ("1e+16", 1e16),
        ("1.7976931348623157e308", 1.7976931348623157e308),
    ],
)
def test_accepted(text, value):
    got = number_from_text(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(("text", "shown"), [("+512", 512), (" 512 ", 512), ("5.12e2", 512), ("+1e3", 1000)])
def test_a_sign_or_spaces_normalize_and_the_form_gets_the_number_back(text, shown):
    """The page writes the answer's normalized inputs back into the form: `+512` reads 512 there."""
    answer = compute("memory", {"seq_len": text})
    assert answer["ok"] and answer["inputs"]["seq_len"] == shown and type(answer["inputs"]["seq_len"]) is int


def test_json_numbers_are_untouched():
    assert compute("memory", {"seq_len": 512})["inputs"]["seq_len"] == 512
    assert compute("memory", {"margin": 0.25})["inputs"]["margin"] == 0.25
    assert [e["code"] for e in compute("memory", {"margin": float("nan")})["errors"]] == ["not_a_number"]


def test_leading_zeros_do_not_count_toward_the_length_guard():
    """Attack finding 14: `?micro_batch=` with 5,000 zeros and an 8 showed 8 in the field (the page reads it
    so) and was refused as not a number: the 308-digit guard counted the zeros."""
    assert number_from_text("0" * 5_000 + "8") == 8
    assert number_from_text("-" + "0" * 400 + "7") == -7
    assert number_from_text("0" * 400) == 0
    assert number_from_text("1" + "0" * 400) is None  # a number beyond a double is still refused
