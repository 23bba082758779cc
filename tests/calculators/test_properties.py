"""Hypothesis property tests: generated inputs for each calculator (10,000 for memory, fewer for cost).

Inputs are decoded from a Hypothesis byte string, field by field, following the input
declarations themselves (kind, range, choices): JSON values or the strings a form
would send, about one field in ten set to an invalid value that must come back as an
error on that field. One draw per example keeps 10,000 examples fast; shrinking the
bytes toward zero shrinks the inputs toward their defaults and minimums. Valid runs
must return only finite numbers, a well-formed display and the monotonic relations.
"""

import math
import os

import pytest
from calc_checks import assert_display, assert_finite
from hypothesis import HealthCheck, given, settings, strategies as st

from calculators import ERROR_CODES, catalog, compute, cost, memory
from calculators._cost_plans import cheapest_plan
from calculators._data import presets, terms
from guidekit.calc._inputs import active
from guidekit.calc._registry import get

# `make check` sets GUIDE_MAX_EXAMPLES=500 for day-to-day work, `make test` 2,000; CI (and pytest alone) 10,000.
SETTINGS = settings(
    max_examples=int(os.environ.get("GUIDE_MAX_EXAMPLES", 10_000)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SHARDED = {"zero1", "zero2", "fsdp"}
# Upper bounds for generated sizes keep the runs plausible; the declared maxima are
# still reached by the out-of-range values and by the boundary tests.
CAPS = {
    "params": 10**12,
    "layers": 200,
    "hidden": 16384,
    "intermediate": 65536,
    "vocab": 300000,
    "seq_len": 131072,
    "micro_batch": 64,
    "lora_rank": 512,
    "gpus": 512,
    "cards": 64,
    "tokens": 1e12,
    "steps": 10**7,
    "tokens_per_step": 10**8,
    "runs": 20,
    "throughput_per_gpu": 1e6,
}
BOOLS = (True, False, "true", "false", "on", "off", "1", "0")
PRESETS = list(presets())


class Bytes:
    """Reads small integers from a byte string; past its end every read is 0."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int = 1) -> int:
        chunk = self.data[self.pos : self.pos + n]
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
    # A field that `only_when` switches off is never validated: its bad value gives way to the default.
    decl = {i.name: i for i in get(name).INPUTS}
    bad = {f for f in bad if active(decl[f], answer.get("inputs") or answer["accepted"], decl)}
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
# A cost answer prices 66 configurations three times (the sensitivity line): fewer examples.
# A cost answer takes about a tenth of a second (every card count of every card is quoted): 150 examples
# in `make test`, a tenth of the fast tier's budget (50 at 500) in `make check`.
COST_EXAMPLES = min(150, SETTINGS.max_examples // 10)
COST_SETTINGS = settings(max_examples=COST_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@COST_SETTINGS
@given(COST_BYTES)
def test_cost_properties(data):
    inputs, bad = decode(data, cost.INPUTS, cost_shape)
    answer = check_answer("cost", inputs, bad)
    if answer is None:
        return
    norm, r = answer["inputs"], answer["result"]
    assert r["plan_hours"] >= r["needed_hours"] - 1e-6 and r["unused_hours"] >= -1e-6
    assert r["outputs_fit"] >= r["successful_outputs"] == norm["runs"]
    if not r["fits_memory"]:  # a configuration that cannot run carries no price of its own
        assert r["usd_per_output"] is None and r["total_usd"] is None and r["hourly_usd"] is None
        return
    assert r["usd_per_output"] == pytest.approx(r["total_usd"] / norm["runs"])
    assert r["best_usd_per_output"] <= r["usd_per_output"] * (1 + 1e-9)  # pinning never beats the planner


# -- the planner and the decision, on the model's own functions and on the boundary --------------

ITEMS = st.lists(st.tuples(st.integers(1, 60), st.floats(0.5, 500)), min_size=1, max_size=4, unique_by=lambda x: x[0])


@settings(max_examples=300, deadline=None)
@given(needed=st.floats(0, 20_000), items=ITEMS, unit=st.sampled_from([1, 6, 24]))
def test_plan_never_dearer_than_any_single_term_cover(needed, items, unit):
    terms = [(f"t{k}", hours * unit, price) for k, (hours, price) in enumerate(items)]
    plan = cheapest_plan(needed, terms)
    assert plan["hours"] >= needed - 1e-6 and (plan["hours"] > 0) == (needed > 0)
    assert plan["cost"] == pytest.approx(sum(c * dict((t, p) for t, _, p in terms)[tid] for tid, c in plan["terms"]))
    for _, hours, price in terms:
        copies = max(int(needed > 0), math.ceil(needed / hours - 1e-9))  # the planner's rounding of hours
        assert plan["cost"] <= copies * price * (1 + 1e-9)


DECISION = st.fixed_dictionaries(
    {
        "gpu": st.sampled_from([g["id"] for g in catalog()["gpus"]]),
        "term": st.sampled_from(["best"] + TERM_IDS),
        "tokens": st.floats(1e6, 5e10),
        "runs": st.integers(1, 8),
        "throughput_per_gpu": st.sampled_from([0, 500, 5000]),
        "checkpoint_interval_hours": st.floats(0.1, 12),
        "restart_hours": st.floats(0, 4),
        "load_hours": st.floats(0, 3),
        "options": st.sampled_from([[], ["egress"]]),
        "memory_per_gpu_gb": st.just(10),
    }
)


def _per_output(inputs: dict) -> float:
    answer = compute("cost", inputs)
    assert answer["ok"], answer
    return answer["result"]["usd_per_output"]


@settings(max_examples=60, deadline=None)
@given(DECISION, st.floats(0, 20), st.floats(0, 20), st.sampled_from([1, 2, 8, 64]))
def test_cost_per_output_never_falls_when_interruptions_rise(inputs, a, b, cards):
    low, high = sorted((a, b))
    inputs = {**inputs, "cards": cards}
    assert (
        _per_output({**inputs, "failures_per_100h": high}) >= _per_output({**inputs, "failures_per_100h": low}) - 1e-9
    )


@settings(max_examples=60, deadline=None)
@given(DECISION, st.floats(0, 5), st.sampled_from([2, 3, 4, 8, 16, 64]))
def test_more_cards_never_cheaper_per_output_than_one_card_at_full_scaling(inputs, failures, cards):
    # With no option billed by term or by day: a flat fee per term, or storage per day, rewards
    # finishing sooner in wall-clock time, which more cards do; GPU time alone cannot.
    inputs = {**inputs, "failures_per_100h": failures, "scaling_efficiency": 1.0, "internode_efficiency": 1.0}
    one = _per_output({**inputs, "cards": 1})
    assert _per_output({**inputs, "cards": cards}) >= one * (1 - 1e-9)


def test_a_plan_covers_needs_past_float_precision():
    """Found by Hypothesis: at 2.4e17 hours the count of the cheapest term was a float division,
    which rounded down and booked fewer hours than needed."""
    need = 2.4349014665455427e17
    plan = cheapest_plan(need, [("1d", 24, 60.0), ("1w", 168, 400.0), ("1m", 720, 1500.0), ("3m", 2160, 4000.0)])
    assert plan["hours"] >= need
