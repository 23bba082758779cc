"""Mixed plans (fixed terms plus on-demand hours) against an independent brute force, and bookings that
cover the low end of the throughput range."""

import itertools
import math
import random

import pytest
from hypothesis import given, settings, strategies as st

from calculators import _cost_plans as model, compute

TERMS = [("1d", 24, 76.8), ("1w", 168, 487.2), ("1m", 720, 1872.0)]
HOURLY = model.Hourly(3.7, 0.0, 24)  # $3.70 per hour, no flat fee, every started hour


def brute_force(needed: float, items, hourly) -> float:
    """Every multiset of terms up to a cover (counts bounded by the need) with the rest on demand, billed by
    the started increment (hour, minute or second)."""
    rate, per_period, period, m = hourly
    whole = math.ceil(needed * m - 1e-9)
    best = math.inf
    ranges = [range(0, math.ceil(needed / h) + 1) for _, h, _ in items]
    for counts in itertools.product(*ranges):
        hours = sum(c * h for c, (_, h, _) in zip(counts, items))
        price = sum(c * p for c, (_, _, p) in zip(counts, items))
        extra = max(0, whole - hours * m)
        if extra:
            price += extra / m * rate + per_period * math.ceil(extra / (period * m))
        best = min(best, price)
    return best


def test_a_day_and_an_hour_beats_two_days():
    # The case: 24.25 h, a day and one on-demand hour, not two days.
    plan = model.cheapest_mixed(24.25, TERMS, HOURLY)
    assert plan["terms"] == [["1d", 1], [model.HOURLY, 1]]
    assert plan["cost"] == pytest.approx(76.8 + 3.7) and plan["hours"] == 25
    assert model.cheapest_plan(24.25, TERMS)["cost"] == pytest.approx(153.6)


def test_hourly_alone_is_a_candidate():
    plan = model.cheapest_mixed(5.5, TERMS, HOURLY)
    assert plan == {"terms": [[model.HOURLY, 6]], "hours": 6, "cost": pytest.approx(6 * 3.7)}
    assert model.cheapest_mixed(20.0, TERMS, HOURLY)["terms"] == [[model.HOURLY, 20]]  # $74.00 < a day's $76.80
    assert model.cheapest_mixed(21.0, TERMS, HOURLY)["terms"] == [["1d", 1]]  # $77.70 > $76.80


def test_mixed_search_matches_a_brute_force():
    rng = random.Random(29)
    disagreements = []
    for _ in range(400):
        items = [
            (f"t{i}", h, round(h * rng.uniform(1.0, 4.0), 2)) for i, h in enumerate(rng.sample([4, 8, 24, 48, 72], 3))
        ]
        hourly = model.Hourly(
            round(rng.uniform(1.0, 5.0), 2),
            rng.choice([0.0, 0.0, 5.0, 40.0]),
            min(h for _, h, _ in items),
            rng.choice(list(model.INCREMENTS.values())),
        )
        needed = round(rng.uniform(0.1, 150.0), 2)
        plan = model.cheapest_mixed(needed, items, hourly)
        if abs(plan["cost"] - brute_force(needed, items, hourly)) > 1e-6:
            disagreements.append((needed, items, hourly))
        assert plan["hours"] >= needed - 1e-9
    assert not disagreements


terms = st.lists(
    st.tuples(st.sampled_from([6, 12, 24, 48, 168]), st.floats(1.0, 500.0)),
    min_size=1,
    max_size=4,
    unique_by=lambda t: t[0],
)


@settings(max_examples=200, deadline=None)
@given(needed=st.floats(0.01, 2000.0), raw=terms, per_hour=st.floats(0.5, 50.0), fee=st.sampled_from([0.0, 10.0]))
def test_a_mixed_plan_never_costs_more_than_the_best_pure_plan_or_pure_hourly(needed, raw, per_hour, fee):
    items = [(f"t{h}", h, price) for h, price in raw]
    hourly = model.Hourly(per_hour, fee, min(h for h, _ in raw))
    plan = model.cheapest_mixed(needed, items, hourly)
    assert plan["hours"] >= needed - 1e-9
    assert plan["cost"] <= model.cheapest_plan(needed, items)["cost"] * (1 + 1e-9)
    assert plan["cost"] <= model.topup_price(math.ceil(needed - 1e-9), hourly) * (1 + 1e-9) + 1e-9


def answer(**inputs):
    response = compute("cost", inputs)
    assert response["ok"], response.get("errors")
    return response["result"]


@settings(max_examples=25, deadline=None)
@given(
    tokens=st.sampled_from([1e6, 5e7, 2e8, 3e9]),
    gpu=st.sampled_from(["h100-sxm-80gb", "h200-141gb", "a100-sxm-80gb", "mi300x-192gb"]),
    term=st.sampled_from(["best", "1d", "1w"]),
    cards=st.sampled_from([1, 2, 8]),
)
def test_the_booking_at_the_pessimistic_end_covers_the_pessimistic_hours(tokens, gpu, term, cards):
    r = answer(tokens=tokens, gpu=gpu, term=term, cards=cards, method="lora")
    assert r["low_end_hours"] >= r["needed_hours"] - 1e-9
    for q in [r, *r["best_by_gpu"], *r["options_table"]]:
        assert q["plan_hours"] >= q["low_end_hours"] - 1e-6 and q["spare_at_low_hours"] >= -1e-6
        assert q["topup_at_low_usd"] in (0.0, None)


def test_booking_the_expected_hours_says_what_the_low_end_would_cost():
    booked = answer(gpu="h100-sxm-80gb", method="lora", model="mistral-7b-v0.3", tokens=1.4e8, booking="expected")
    low = answer(gpu="h100-sxm-80gb", method="lora", model="mistral-7b-v0.3", tokens=1.4e8)
    assert booked["booked_hours"] == pytest.approx(booked["needed_hours"])
    assert low["booked_hours"] == pytest.approx(low["low_end_hours"]) and low["booked_hours"] > low["needed_hours"]
    if booked["spare_at_low_hours"] < 0:  # falls short at the low end: the top-up is priced on demand
        assert booked["topup_at_low_usd"] > 0
    margin = answer(
        gpu="h100-sxm-80gb", method="lora", model="mistral-7b-v0.3", tokens=1.4e8, booking="margin", booking_margin=0.5
    )
    assert margin["booked_hours"] == pytest.approx(1.5 * margin["needed_hours"])


def test_long_mixed_plans_take_the_shortcut_and_stay_exact():
    """Past the cover's bound the search starts from copies of the cheapest term per hour; a plain search over
    every top-up and every day of terms must agree."""
    items = [("1d", 24, 76.8), ("1w", 168, 487.2), ("1m", 720, 1872.0), ("3m", 2160, 4968.0)]
    rng = random.Random(33)
    for _ in range(6):
        needed = rng.uniform(22_000, 40_000)
        hourly = model.Hourly(rng.choice([2.4, 3.7]), rng.choice([0.0, 50.0]), 24)
        whole = math.ceil(needed)
        days = math.ceil(needed / 24)
        best = [0.0] + [math.inf] * days  # cheapest terms covering d days, no shortcut
        for d in range(1, days + 1):
            best[d] = min(best[max(0, d - h // 24)] + price for _, h, price in items)
        reference = min(
            best[max(0, math.ceil((whole - k) / 24 - 1e-9))] + model.topup_price(k, hourly) for k in range(0, whole + 1)
        )
        assert model.cheapest_mixed(needed, items, hourly)["cost"] == pytest.approx(reference, rel=1e-12)


def test_on_demand_cheaper_than_every_term_is_bought_alone_and_matches_the_brute_force():
    """The shortcut for on demand at or below every term's price for its hours (fees per started period
    included): each term of a mixed plan swaps for top-up hours at no loss, so the plan is pure on demand."""
    rng = random.Random(41)
    for _ in range(300):
        items = [(f"t{i}", h, round(h * rng.uniform(2.0, 4.0), 2)) for i, h in enumerate(rng.sample([4, 8, 24, 48], 3))]
        period = min(h for _, h, _ in items)
        fee = rng.choice([0.0, 1.0, 3.0])
        per_hour = round(
            min((price - fee * math.ceil(h / period)) / h for _, h, price in items) * rng.uniform(0.5, 1.0), 4
        )
        hourly = model.Hourly(per_hour, fee, period)
        assert all(model.topup_price(h, hourly) <= price + 1e-9 for _, h, price in items)
        needed = round(rng.uniform(0.1, 150.0), 2)
        plan = model.cheapest_mixed(needed, items, hourly)
        assert plan["cost"] == pytest.approx(brute_force(needed, items, hourly), abs=1e-6)
        assert plan["terms"] == [[model.HOURLY, math.ceil(needed - 1e-9)]]
