"""Shared assertions for calculator results (imported by the test modules here)."""

import math

from calculators.display import UNITS


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
    assert display and display[0]["kind"] == "metrics" and display[0]["items"]
    for block in display:
        kind = block["kind"]
        if kind == "metrics":
            for item in block["items"]:
                assert item["unit"] in UNITS and item["status"] in {"ok", "warn", "bad", None}
                assert item["label"]
                if item["unit"] == "plan":  # [[count, term label], ...]
                    assert all(isinstance(c, int) and c > 0 and isinstance(t, str) for c, t in item["value"])
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
                for p in item["params"].values():
                    assert isinstance(p, str) or (p["unit"] in UNITS and isinstance(p["value"], (int, float)))
                msg = item["msg"]  # a msgid, or a count string (calculators.NN_) whose count is a param
                for text in ([msg] if isinstance(msg, str) else [msg["msgid"], msg["plural"]]):
                    text.format(**item["params"])  # every placeholder has a parameter
                assert isinstance(msg, str) or msg["n"] in item["params"]
        else:
            raise AssertionError(f"unknown block kind {kind}")


def ok_result(name, inputs):
    """Compute, require success, check every number and the display; return the result."""
    from calculators import compute

    answer = compute(name, inputs)
    assert answer["ok"], answer
    assert_finite(answer["result"])
    assert_display(answer["result"]["display"])
    return answer["result"]
