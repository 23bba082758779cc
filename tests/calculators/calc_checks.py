"""Shared assertions for calculator results (imported by the test modules here)."""

import math

from calculators import compute
from guidekit.calc.display import UNITS


def walk_numbers(obj, path="result"):
    """Yield (path, number) for every int/float anywhere in a JSON-like tree."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, (int, float)):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk_numbers(v, f"{path}.{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from walk_numbers(v, f"{path}[{i}]")
    else:
        raise AssertionError(f"{path}: not JSON-like: {type(obj)}")


def assert_finite(obj):
    for path, number in walk_numbers(obj):
        assert math.isfinite(number), f"{path} = {number}"


def assert_display(display):
    """The display blocks follow the contract the UI renders generically."""
    # The answer first: a verdict sentence, or (a calculator without one) its headline figures.
    assert display and display[0]["kind"] in ("verdict", "metrics")
    assert all(b["kind"] != "verdict" for b in display[1:])
    for block in display:
        kind = block["kind"]
        if kind == "verdict":
            assert block["status"] in {"ok", "warn", "bad"}
            _assert_sentence(block)
        elif kind == "metrics":
            for item in block["items"]:
                assert item["unit"] in UNITS and item["status"] in {"ok", "warn", "bad", None}
                assert item["label"]
                if item["unit"] == "plan":
                    assert _plan_entries(item["value"])
                elif item["unit"] == "raw":  # a name as is: "1 × H200 SXM 141 GB"
                    assert isinstance(item["value"], str) and item["value"]
                else:
                    assert isinstance(item["value"], (int, float))
        elif kind == "bars":
            assert block["unit"] in UNITS
            assert all(isinstance(i["value"], (int, float)) for i in block["items"])
        elif kind == "table":
            assert all(c["unit"] in UNITS for c in block["columns"])
            assert all(len(row) == len(block["columns"]) for row in block["rows"])
        elif kind == "notes":
            for item in block["items"]:
                _assert_sentence(item)
        else:
            raise AssertionError(f"unknown block kind {kind}")


def _plan_entries(plan) -> bool:
    """[[count, term label], ...], with [hours, label, "hours"] for hours billed by the hour."""
    return all(
        isinstance(e[1], str)
        and ((len(e) == 2 and isinstance(e[0], int) and e[0] > 0) or (len(e) == 3 and e[2] == "hours" and e[0] > 0))
        for e in plan
    )


def _assert_sentence(item):
    """A msgid with parameters: each a string, a typed value, a phrase, alternatives of phrases or a list of
    names or phrases (guidekit.calc.display), and every placeholder filled."""
    for p in item["params"].values():
        if isinstance(p, dict) and "msg" in p:
            _assert_sentence(p)
        elif isinstance(p, dict) and "items" in p:
            assert p["join"] in ("or", "standard") and p["items"]
            for phrase in p["items"]:
                if p["join"] == "or" or not isinstance(phrase, str):
                    _assert_sentence(phrase)
        elif isinstance(p, dict) and p.get("unit") == "plan":  # [[count, term label], ...]
            assert p["value"] and _plan_entries(p["value"])
        else:
            assert isinstance(p, str) or (
                p["unit"] in UNITS and (p["value"] is None or isinstance(p["value"], (int, float)))
            )
    msg = item["msg"]  # a msgid, or a count string (calculators.NN_) whose count is a param
    for text in [msg] if isinstance(msg, str) else [msg["msgid"], msg["plural"]]:
        text.format(**item["params"])  # every placeholder has a parameter
    assert isinstance(msg, str) or msg["n"] in item["params"]


def ok_result(name, inputs):
    """Compute, require success, check every number and the display; return the result."""
    from calculators import compute

    answer = compute(name, inputs)
    assert answer["ok"], answer
    assert_finite(answer["result"])
    assert_display(answer["result"]["display"])
    return answer["result"]


def another_value(inp):
    """A valid value of `inp` other than its default."""
    if inp.kind == "choice":
        return next(c.value for c in inp.choices if c.value != inp.default)
    if inp.kind == "multichoice":
        return list(inp.default[1:]) if inp.default else [inp.choices[0].value]
    if inp.kind == "bool":
        return not inp.default
    if inp.kind == "int":
        return inp.default + 1 if inp.max is None or inp.default < inp.max else inp.default - 1
    return inp.default * 0.5 if inp.default else (inp.max or 1) * 0.5


def valid_edits_answered_as_from_nothing(name: str, inputs, base: dict, forget) -> int:
    """Each of `inputs` changed alone from `base`, after an answer without the change, must give the
    answer that nothing kept gives (`forget()` drops what is kept), and so must going back to `base`.
    Returns how many of the edits were valid answers."""
    forget()
    fresh_base = compute(name, base)
    valid = 0
    for inp in inputs:
        edit = {**base, inp.name: another_value(inp)}
        after_another = compute(name, edit)
        forget()
        assert compute(name, edit) == after_another, inp.name
        assert compute(name, base) == fresh_base, f"back from {inp.name}"
        valid += after_another["ok"]
    return valid
