"""Hypothesis property tests: 10,000 generated inputs per calculator.

Inputs are decoded from a Hypothesis byte string, field by field, following the input
declarations themselves (kind, range, choices): JSON values or the strings a form
would send, about one field in ten set to an invalid value that must come back as an
error on that field. One draw per example keeps 10,000 examples fast; shrinking the
bytes toward zero shrinks the inputs toward their defaults and minimums. Valid runs
must return only finite numbers, a well-formed display and the monotonic relations.
"""

import math

from calc_checks import assert_display, assert_finite
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calculators import ERROR_CODES, compute, cost, memory
from calculators._data import presets, terms

SETTINGS = settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHARDED = {"zero1", "zero2", "fsdp"}
# Upper bounds for generated sizes keep the runs plausible; the declared maxima are
# still reached by the out-of-range values and by the boundary tests.
CAPS = {"params": 10**12, "layers": 200, "hidden": 16384, "intermediate": 65536, "vocab": 300000,
        "seq_len": 131072, "micro_batch": 64, "lora_rank": 512, "gpus": 512, "cards": 64, "tokens": 1e12,
        "steps": 10**7, "tokens_per_step": 10**8, "runs": 20, "throughput_per_gpu": 1e6}
BOOLS = (True, False, "true", "false", "on", "off", "1", "0")
PRESETS = list(presets())


class Bytes:
    """Reads small integers from a byte string; past its end every read is 0."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int = 1) -> int:
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return int.from_bytes(chunk, "big") if chunk else 0

    def pick(self, seq):
        return seq[self.take() % len(seq)]

    def fraction(self) -> float:
        return self.take(2) / 65535


def valid(inp, b: Bytes):
    if inp.kind == "bool":
        return b.pick(BOOLS)
    choices = [c.value for c in inp.choices]
    if inp.kind == "choice":
        return b.pick(choices)
    if inp.kind == "multichoice":
        mask = b.take(2)
        picked = [c for k, c in enumerate(choices) if mask >> k & 1] or choices[:1]
        return ",".join(picked) if mask & 0x8000 else picked
    lo, hi = inp.min, min(inp.max, CAPS.get(inp.name, inp.max))
    u = b.fraction()
    number = lo + (hi - lo + 1) ** u - 1 if b.take() % 2 else lo + (hi - lo) * u  # log- or linear-spread
    number = min(max(number, lo), hi)
    if inp.kind == "int":
        number = min(max(math.floor(number), math.ceil(lo)), math.floor(hi))
    return str(number) if b.take() % 4 == 0 else number


def invalid(inp, b: Bytes):
    if inp.kind in ("choice", "multichoice"):
        return b.pick(["xx", "zz,q", "q,none", 5])
    if inp.kind == "bool":
        return b.pick(["maybe", 7, "yes please"])
    bad = ["abc", "nan", "inf", True, [1]]
    if not inp.optional:
        bad.append("")
    if inp.min is not None:
        bad.append(inp.min - 1)
    if inp.max is not None:
        bad.append(str(inp.max * 2 + 1))
    if inp.kind == "int":
        bad.append("2.5")
    return b.pick(bad)


def decode(data: bytes, decl, shape):
    """(inputs, fields that were given an invalid value)."""
    b = Bytes(data)
    inject = b.take() % 10 == 9
    values = {i.name: valid(i, b) for i in decl if b.take() % 4}  # a zero byte leaves the default
    shape(b, values)
    bad = set()
    if inject:
        inp = b.pick(decl)
        values[inp.name], bad = invalid(inp, b), {inp.name}
    return values, bad


def memory_shape(b: Bytes, v: dict):
    """Mostly presets; custom dimensions mostly consistent; single-GPU runs mostly on one GPU."""
    v["model"] = b.pick(PRESETS + ["custom"] * 4)
    if v["model"] == "custom" and b.take() % 10:
        kv = 1 + b.take() % 16
        heads = kv * (1 + b.take() % 8)
        v.update(heads=heads, kv_heads=kv, hidden=heads * (1 + b.take() % 256), head_dim=0)
    if v.get("parallelism", "single") == "single":
        if b.take() % 10:
            v["gpus"] = 1
    elif b.take() % 2:
        v["gpus"] = 2 + b.take() % 63


def cost_shape(b: Bytes, v: dict):
    memory_shape(b, v)
    v.pop("gpus", None)


# About 5 bytes per field; past the end of the bytes every field keeps its default.
MEMORY_BYTES = st.binary(min_size=5 * len(memory.INPUTS), max_size=8 * len(memory.INPUTS))
COST_BYTES = st.binary(min_size=5 * len(cost.INPUTS), max_size=8 * len(cost.INPUTS))


def check_answer(name, inputs, bad):
    answer = compute(name, inputs)
    assert answer["calculator"] == name
    if not answer["ok"]:
        assert answer["errors"]
        for err in answer["errors"]:
            assert err["code"] in ERROR_CODES and isinstance(err["field"], str)
        assert bad <= {e["field"] for e in answer["errors"]}
        return None
    assert not bad, f"invalid {bad} accepted: {inputs}"
    assert_finite(answer["result"])
    assert_display(answer["result"]["display"])
    return answer


@SETTINGS
@given(MEMORY_BYTES)
def test_memory_properties(data):
    inputs, bad = decode(data, memory.INPUTS, memory_shape)
    answer = check_answer("memory", inputs, bad)
    if answer is None:
        return
    norm, total = answer["inputs"], answer["result"]["per_gpu_bytes"]
    if norm["micro_batch"] < 4096:  # more micro-batch never needs less memory
        bigger = compute("memory", {**norm, "micro_batch": norm["micro_batch"] + 1})
        assert bigger["result"]["per_gpu_bytes"] >= total
    if norm["parallelism"] in SHARDED and norm["gpus"] <= 512:  # more shards never need more per GPU
        more = compute("memory", {**norm, "gpus": norm["gpus"] * 2})
        assert more["result"]["per_gpu_bytes"] <= total


TERM_IDS = [t["id"] for t in terms()]


@SETTINGS
@given(COST_BYTES)
def test_cost_properties(data):
    inputs, bad = decode(data, cost.INPUTS, cost_shape)
    answer = check_answer("cost", inputs, bad)
    if answer is None:
        return
    norm, r = answer["inputs"], answer["result"]
    assert r["completed_runs"] <= norm["runs"] and r["finishes"] == (r["completed_runs"] == norm["runs"]
                                                                    and r["needed_hours"] <= r["term_hours"])
    position = TERM_IDS.index(norm["term"])
    if position + 1 < len(TERM_IDS):  # a longer term never costs less
        longer = compute("cost", {**norm, "term": TERM_IDS[position + 1]})
        assert longer["result"]["total_usd"] >= r["total_usd"]
