"""The renter's choices (issue 49 item 6): a deadline, outputs trained side by side, spot capacity with
its preemptions, billing by the hour, minute or second, and cards rented only as whole nodes. Each is
checked as a property over generated jobs, and on one worked case whose figures follow by hand."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from calculators import _cost_plans as plans, _cost_quote as quote, _prices, catalog, compute

GPUS = [g["id"] for g in catalog()["gpus"]]
JOB = st.fixed_dictionaries(
    {
        "gpu": st.sampled_from(GPUS),
        "cards": st.sampled_from([1, 2, 4, 8, 16]),
        "term": st.sampled_from(["best", "1d", "1w"]),
        "tokens": st.floats(1e7, 2e10),
        "runs": st.integers(1, 8),
        "booking": st.sampled_from(["low", "expected"]),
        "failures_per_100h": st.sampled_from([0.0, 0.01, 0.5]),
        "options": st.sampled_from([[], ["checkpoint_storage"], ["egress"]]),
        "memory_per_gpu_gb": st.just(10),  # every card fits: the properties are about the rental
    }
)


def answer(inputs: dict) -> dict:
    result = compute("cost", inputs)
    assert result["ok"], result
    return result["result"]


@settings(max_examples=40, deadline=None)
@given(JOB, st.floats(1, 2000))
def test_a_deadline_never_yields_a_plan_that_finishes_late(job, deadline):
    r = answer({**job, "deadline_hours": deadline})
    for q in r["best_by_gpu"]:  # everything ranked finishes in time at the hours booked
        assert q["booked_hours"] <= deadline * (1 + 1e-9) and q["meets_deadline"]
    assert r["meets_deadline"] == (r["booked_hours"] <= deadline * (1 + 1e-9))
    if not r["ranking"]:  # none does: the fastest that fits is offered, and it is late too
        assert r["fastest"]["booked_hours"] > deadline
    free = answer(job)
    if free["ranking"] and free["best_by_gpu"][0]["booked_hours"] <= deadline:
        assert r["ranking"][0] == free["ranking"][0]  # a deadline the cheapest meets changes nothing


def test_a_deadline_trades_a_long_cheap_run_for_a_short_one():
    # Without a deadline the cheapest is one card for days; 24 hours asks for more cards of some GPU.
    job = {"tokens": 2e9, "epochs": 3, "model": "llama-3.1-8b", "method": "lora"}
    free = answer(job)
    assert free["best_by_gpu"][0]["booked_hours"] > 24
    r = answer({**job, "deadline_hours": 24})
    best = r["best_by_gpu"][0]
    assert best["booked_hours"] <= 24 and best["cards"] > 1
    assert best["usd_per_output"] >= free["best_by_gpu"][0]["usd_per_output"] - 1e-9
    sentence = r["display"][0]
    assert sentence["kind"] == "verdict"
    late = answer({**job, "deadline_hours": 0.5})
    assert late["ranking"] == [] and late["fastest"]["booked_hours"] > 0.5
    assert late["display"][0]["msg"].startswith("No configuration finishes within the deadline")
    notes = str(late["display"])
    assert "No catalog GPU fits" not in notes  # they fit: the deadline ruled them out
    assert "after the deadline of {deadline}" in notes  # and the reader's own choice is late too


@settings(max_examples=40, deadline=None)
@given(JOB)
def test_outputs_side_by_side_never_cost_more_than_one_after_another(job):
    side = answer({**job, "parallel_runs": True})
    after = answer({**job, "parallel_runs": False})
    assert side["booked_hours"] <= after["booked_hours"] * (1 + 1e-9)
    assert side["usd_per_output"] <= after["usd_per_output"] * (1 + 1e-9)
    assert side["cards_per_run"] * side["streams"] == side["cards"] and side["streams"] <= job["runs"]


def test_eight_outputs_on_eight_cards_train_one_per_card():
    # A LoRA run fits one card: eight outputs on eight cards train side by side, with no collective at all,
    # and the rental lasts one output's hours.
    job = {"gpu": "h100-sxm-80gb", "cards": 8, "runs": 8, "model": "llama-3.1-8b", "method": "lora", "tokens": 1e8}
    side, after = answer(job), answer({**job, "parallel_runs": False})
    assert (side["streams"], side["cards_per_run"], side["rounds"]) == (8, 1, 1)
    one = answer({**job, "cards": 1, "runs": 1})
    assert side["needed_hours"] == pytest.approx(one["needed_hours"])
    assert side["tokens_per_s"] == pytest.approx(8 * one["tokens_per_s"])
    assert side["needed_hours"] < after["needed_hours"]


@settings(max_examples=40, deadline=None)
@given(JOB)
def test_per_second_billing_never_costs_more_than_per_started_hour(job):
    by = {b: answer({**job, "billing": b}) for b in ("hour", "minute", "second")}
    assert by["second"]["usd_per_output"] <= by["minute"]["usd_per_output"] * (1 + 1e-9)
    assert by["minute"]["usd_per_output"] <= by["hour"]["usd_per_output"] * (1 + 1e-9)
    assert by["second"]["hourly_usd"] <= by["hour"]["hourly_usd"] * (1 + 1e-9)


def test_billing_by_the_second_bills_the_hours_needed():
    hourly = plans.Hourly(3.6, 0.0, 24, plans.INCREMENTS["second"])
    plan = plans.cheapest_mixed(2.5, [("1d", 24, 80.0)], hourly)
    assert plan["terms"] == [[plans.HOURLY, 2.5]] and plan["cost"] == pytest.approx(9.0)
    by_hour = plans.cheapest_mixed(2.5, [("1d", 24, 80.0)], hourly._replace(per_hour=1))
    assert by_hour["cost"] == pytest.approx(3 * 3.6)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(0.01, 500),
    st.lists(
        st.tuples(st.sampled_from([6, 24, 168]), st.floats(1, 900)), min_size=1, max_size=3, unique_by=lambda t: t[0]
    ),
    st.floats(0.5, 10),
    st.sampled_from([0.0, 20.0]),
)
def test_finer_increments_never_cost_more_in_the_planner(needed, raw, rate, fee):
    items = [(f"t{h}", h, price) for h, price in raw]
    period = min(h for h, _ in raw)
    cost = {m: plans.cheapest_mixed(needed, items, plans.Hourly(rate, fee, period, m))["cost"] for m in (1, 60, 3600)}
    assert cost[3600] <= cost[60] * (1 + 1e-9) + 1e-9 and cost[60] <= cost[1] * (1 + 1e-9) + 1e-9


def test_spot_prices_by_the_hour_and_preemptions_interrupt_the_run():
    job = {"gpu": "h100-sxm-80gb", "cards": 8, "tokens": 2e9, "model": "llama-3.1-8b", "method": "lora"}
    calm = answer({**job, "capacity": "spot", "preemptions_per_100h": 0})
    assert calm["on_spot"] and [tid for tid, _ in calm["plan"]] == [plans.SPOT]
    billed = calm["plan"][0][1]
    assert billed == math.ceil(calm["booked_hours"] - 1e-9)  # every started hour, at the catalog's spot price
    spot_rate = catalog()["pricing"]["spot_usd_per_card_hour"]["h100-sxm-80gb"]
    assert calm["gpu_usd"][plans.SPOT] == pytest.approx(8 * billed * spot_rate)
    stormy = answer({**job, "capacity": "spot", "preemptions_per_100h": 5})
    assert stormy["run_hours"]["failures"] > calm["run_hours"]["failures"] >= 0
    assert stormy["needed_hours"] > calm["needed_hours"]
    reserved = answer(job)
    assert not reserved["on_spot"] and plans.SPOT not in dict(reserved["plan"])
    # The reader's own spot price replaces the catalog's.
    own = answer({**job, "capacity": "spot", "preemptions_per_100h": 0, "price_h100-sxm-80gb_spot": 1.0})
    assert own["gpu_usd"][plans.SPOT] == pytest.approx(8 * billed)


def test_a_card_without_a_spot_price_stays_on_terms(monkeypatch):
    monkeypatch.delitem(quote._PRICING["spot_usd_per_card_hour"], "a100-sxm-80gb")
    quote.forget()
    r = answer({"gpu": "a100-sxm-80gb", "capacity": "spot"})
    assert not r["on_spot"] and plans.SPOT not in dict(r["plan"])
    assert any("has no spot price" in str(block) for block in r["display"])
    quote.forget()


def test_whole_nodes_bill_every_card_of_the_node(monkeypatch):
    job = {"gpu": "mi300x-192gb", "cards": 2, "model": "llama-3.1-8b", "method": "lora", "tokens": 1e8}
    loose = answer(job)
    monkeypatch.setitem(quote._PRICING["shapes"]["mi300x-192gb"], "whole_nodes", True)
    quote.forget()
    try:
        r = answer(job)
        assert (r["cards"], r["billed_cards"]) == (2, 8)
        gpu_hours = sum(r["gpu_usd"].values())
        assert gpu_hours == pytest.approx(4 * sum(loose["gpu_usd"].values()))  # 8 cards billed, not 2
        assert quote.card_counts("mi300x-192gb") == tuple(8 * n for n in range(1, 9))
        assert any("whole nodes" in str(block) for block in r["display"])
    finally:
        quote.forget()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda p: p["billing_increment"].update({"h100-sxm-80gb": "day"}), "billing_increment['h100-sxm-80gb']"),
        (lambda p: p["shapes"]["h100-sxm-80gb"].update({"whole_nodes": "yes"}), "'whole_nodes' must be true or false"),
        (lambda p: p["spot_usd_per_card_hour"].update({"h100-sxm-80gb": 0}), "spot_usd_per_card_hour['h100-sxm-80gb']"),
    ],
)
def test_the_catalog_check_names_a_bad_rental_field(change, problem):
    import copy

    broken = copy.deepcopy(catalog())
    change(broken["pricing"])
    assert any(problem in line for line in _prices.catalog_problems(broken))
    assert _prices.catalog_problems() == []


def test_a_measured_sharded_peak_is_not_split_into_groups():
    # 40 GB per card measured on 8 cards with FSDP says nothing about one card: the outputs stay on all 8.
    job = {"gpu": "h100-sxm-80gb", "cards": 8, "runs": 8, "tokens": 1e8, "parallelism": "fsdp"}
    sharded = answer({**job, "memory_per_gpu_gb": 40})
    assert (sharded["streams"], sharded["cards_per_run"]) == (1, 8)
    # A replicated run's peak is the same on any card count: its outputs may train one per card.
    replicated = answer({**job, "parallelism": "ddp", "memory_per_gpu_gb": 40})
    assert replicated["streams"] > 1
