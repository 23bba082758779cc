"""The cost model against hand-worked cases, and the catalog it reads."""

import json
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from calc_checks import ok_result, valid_edits_answered_as_from_nothing

import guidekit
from calculators import (
    _cost_model as model,
    _cost_plans as plans,
    _cost_quote as quote,
    _prices,
    catalog,
    compute,
    cost,
    memory,
)

# The catalog's prices follow the public medians and the site owner is told to edit them, so these tests price
# with their own: H100 per card-hour by term 1d 3.20, 1w 2.90, 1m 2.60, 3m 2.30, on demand 3.70.
TEST_PRICES = {
    "usd_per_card_hour": {"h100-sxm-80gb": {"1d": 3.2, "1w": 2.9, "1m": 2.6, "3m": 2.3}},
    "on_demand_usd_per_card_hour": {"h100-sxm-80gb": 3.7},
}
TEST_OPTION_PRICES = {
    "checkpoint_storage": 0.8,
    "extra_scratch": 0.4,
    "egress": 50.0,
    "support": {"1d": 50, "1w": 150, "1m": 400, "3m": 900},
}
H100_TERM = {"1d": 76.8, "1w": 487.2, "1m": 1872.0, "3m": 4968.0}  # one card, one term
# Measured throughput on the chosen card and no hours besides training: hours = tokens / rate.
EXACT = {
    "gpu": "h100-sxm-80gb",
    "cards": 1,
    "options": [],
    "workload": "tokens",
    "epochs": 1,
    "runs": 1,
    "throughput_per_gpu": 1000,
    "load_hours": 0,
    "validation_hours": 0,
    "checkpoint_hours": 0,
    "export_hours": 0,
    "failures_per_100h": 0,
    "checkpoint_write_s": 0,
    "memory_per_gpu_gb": 40,
}


@pytest.fixture(autouse=True)
def test_prices(monkeypatch):
    """The tests' own prices in place of the catalog's, for the duration of each test."""
    pricing = catalog()["pricing"]
    for table, rows in TEST_PRICES.items():
        for gpu, rates in rows.items():
            monkeypatch.setitem(pricing[table], gpu, rates)
    for option in pricing["options"]:
        if option["id"] in TEST_OPTION_PRICES:
            monkeypatch.setitem(option, "usd", TEST_OPTION_PRICES[option["id"]])


@pytest.fixture
def terms_only(monkeypatch):
    """No on-demand price for the H100: its plans are the fixed terms alone (the term planner's cases)."""
    monkeypatch.delitem(catalog()["pricing"]["on_demand_usd_per_card_hour"], "h100-sxm-80gb")


def result(**inputs):
    return ok_result("cost", inputs)


def hours(h: float) -> dict:
    """Inputs whose H100 work takes exactly `h` hours at 1,000 tokens/s."""
    return {**EXACT, "tokens": h * 3600 * 1000}


@pytest.mark.parametrize(
    "needed, plan, price",
    [
        (24.0, [["1d", 1]], 76.8),  # exactly one day: the boundary belongs to the shorter plan
        (24.5, [["1d", 2]], 153.6),  # just over a day: a second day, not a week
        (27.2, [["1d", 2]], 153.6),  # the case: billed a week before
        (144.0, [["1d", 6]], 460.8),  # six days are still cheaper than a week ($487.20)
        (144.5, [["1w", 1]], 487.2),  # seven days ($537.60) are dearer than a week
        (170.0, [["1d", 1], ["1w", 1]], 564.0),  # a week and a day
        (2161.0, [["1d", 1], ["3m", 1]], 5044.8),  # longer than the longest term: 3 months and a day
    ],
)
def test_plan_choice(needed, plan, price, terms_only):
    r = result(**hours(needed))
    assert r["needed_hours"] == pytest.approx(needed)
    assert r["plan"] == plan and r["total_usd"] == pytest.approx(price)
    assert r["unused_hours"] == pytest.approx(sum(c * model_hours(t) for t, c in plan) - needed)
    assert r["usd_per_output"] == pytest.approx(price)


def model_hours(term_id):
    return next(t["hours"] for t in catalog()["pricing"]["terms"] if t["id"] == term_id)


def test_job_far_longer_than_the_longest_term_matches_a_plain_search():
    r = result(**hours(100_000.0))  # about 46 copies of 3 months: the planner's shortcut path
    items = [(t, model_hours(t), H100_TERM[t]) for t in H100_TERM]
    assert r["total_usd"] == pytest.approx(_plain_cover(100_000.0, items))
    assert dict(r["plan"])["3m"] >= 40


def _plain_cover(needed, items):
    """Reference: unbounded min-cost cover by dynamic programming over every day, no shortcut."""
    days = math.ceil(needed / 24 - 1e-9)
    best = [0.0] + [math.inf] * days
    for d in range(1, days + 1):
        best[d] = min(best[max(0, d - h // 24)] + price for _, h, price in items)
    return best[days]


def test_ties_go_to_fewer_hours_then_fewer_terms():
    items = [("a", 24, 10.0), ("b", 48, 20.0), ("c", 72, 30.0)]
    assert plans.cheapest_plan(48, items)["terms"] == [["b", 1]]  # 2 x a costs the same
    assert plans.cheapest_plan(50, items)["terms"] == [["c", 1]]
    cheaper_long = [("day", 24, 10.0), ("week", 168, 60.0)]
    assert plans.cheapest_plan(30, cheaper_long) == {"terms": [["day", 2]], "hours": 48, "cost": 20.0}


def test_pinned_term_books_copies_of_it_and_shows_the_cheapest_plan_beside(terms_only):
    r = result(**hours(30.0), term="1w")
    assert r["pinned"] and r["plan"] == [["1w", 1]] and r["total_usd"] == pytest.approx(487.2)
    assert r["best_plan"] == [["1d", 2]] and r["best_usd_per_output"] == pytest.approx(153.6)
    notes = [i["msg"] for i in r["display"][-1]["items"]]
    assert any("Pinning the term costs" in n for n in notes)
    longer = result(**hours(400.0), term="1w")  # longer than the pinned term: three weeks
    assert longer["plan"] == [["1w", 3]] and longer["total_usd"] == pytest.approx(3 * 487.2)
    table = next(b for b in r["display"] if b.get("title") == "Card counts of this GPU that fit")
    # Beside the pinned plan's price per output, before the columns that explain it.
    assert [c["label"] for c in table["columns"][:3]] == ["Cards", "Per successful output", "Cheapest plan, per output"]
    assert [row[0] for row in table["rows"]] == list(quote.card_counts("h100-sxm-80gb"))  # 40 GB fits every count


def test_the_deciding_columns_come_right_after_the_name():
    """A phone shows the first two or three columns before a table scrolls: the price per output and
    the card count, not the plan's details."""
    tables = {b["title"]: [c["label"] for c in b["columns"]] for b in result()["display"] if b["kind"] == "table"}
    assert tables["Cheapest configuration of each GPU"][:3] == ["GPU", "Per successful output", "Cards"]
    assert tables["Card counts of this GPU that fit"][:2] == ["Cards", "Per successful output"]
    assert "Cheapest plan, per output" not in tables["Card counts of this GPU that fit"]  # only with a pinned term


def test_outputs_options_and_hourly_billing():
    # Three outputs of 10 h each, 2 h of overhead per output: 36 h -> 2 days; 4 outputs fit in 48 h.
    inputs = {
        **hours(10.0),
        "runs": 3,
        "load_hours": 1,
        "export_hours": 1,
        "options": ["checkpoint_storage", "egress", "support"],
        "storage_tb": 2,
        "egress_tb": 1,
    }
    r = result(**inputs, term="1d")
    assert r["needed_hours"] == pytest.approx(36) and r["plan"] == [["1d", 2]]
    assert r["outputs_fit"] == 4 and r["successful_outputs"] == 3
    # 2 days x (76.80 + storage 2 TB x $0.80 + support $50) + egress 1 TB x $50
    assert r["options_usd"] == pytest.approx({"checkpoint_storage": 3.2, "support": 100.0, "egress": 50.0})
    assert r["total_usd"] == pytest.approx(153.6 + 153.2)
    assert r["usd_per_output"] == pytest.approx((153.6 + 153.2) / 3)
    assert r["usd_per_million_tokens"] == pytest.approx((153.6 + 153.2) / (3 * 36))
    # Hourly: 36 started hours x $3.70, storage for 1.5 days, support once per started day, egress once.
    hourly = 36 * 3.7 + 2 * 0.8 * 1.5 + 2 * 50 + 50
    assert r["hourly_usd"] == pytest.approx(hourly) and r["hourly_usd_per_output"] == pytest.approx(hourly / 3)


def test_card_step_is_a_two_class_roofline():
    gpu = {"bandwidth_gb_s": 1000, "bf16_dense_tflops": 1000}
    work = model.StepWork(
        tokens=1000, linear_flops=8e14, attention_flops=2e14, weight_traffic=1e12, other_traffic=1e12, sync_payload=0
    )
    step = model.card_step(work, gpu, 0.5, 0.8)  # compute 2 s > weights 1.25 s; + 1.25 s memory-bound
    assert step["step_s"] == pytest.approx(3.25) and step["tokens_per_s"] == pytest.approx(1000 / 3.25)
    bound = model.card_step(work, gpu, 1.0, 0.5)  # weights 2 s > compute 1 s
    assert bound["step_s"] == pytest.approx(4.0) and bound["compute_share"] == pytest.approx(0.25)
    fp8 = model.card_step(work, gpu, 0.5, 0.8, fp8=True)  # linear layers at twice the rate: 0.8 + 0.4 s
    assert fp8["step_s"] == pytest.approx(1.25 + 1.25)
    dequant = model.StepWork(
        tokens=1000,
        linear_flops=0,
        attention_flops=0,
        weight_traffic=0,
        other_traffic=0,
        sync_payload=0,
        dequant_traffic=1e12,
    )
    assert model.card_step(dequant, gpu, 1.0, 0.8, dequant_share=0.25)["step_s"] == pytest.approx(5.0)


def test_modelled_scaling_uses_the_link_as_a_ring():
    gpu = {"interconnect": {"gb_s": 900}}
    work = model.StepWork(
        tokens=1, linear_flops=1, attention_flops=0, weight_traffic=0, other_traffic=0, sync_payload=9e9
    )
    # 4 cards: each sends 3/4 of 9 GB over 450 GB/s one way = 15 ms against a 135 ms step (none hidden)
    assert model.modelled_scaling(work, 0.135, gpu, 4, 1.0, overlap=False) == pytest.approx(0.9)
    assert model.modelled_scaling(work, 0.135, gpu, 1, 1.0) == 1.0
    assert model.cluster_tokens_per_s(100, 16, 0.9, 0.5) == pytest.approx(100 * 16 * 0.9 * 0.5)
    assert model.cluster_tokens_per_s(100, 8, 0.9, 0.5) == pytest.approx(100 * 8 * 0.9)


def test_interruptions_are_the_exact_exponential_expectation():
    h = model.run_hours(10, 2, 1.0, 1.0, 0.01, 0.5, 2.0)
    # 10 intervals of 1 h, a write of 0.01 h after each but the last: 9 of 1.01 h and one of 1 h;
    # λ = 2 x 1 % = 0.02 per hour, each segment e^(0.02 x 0.5) (e^(0.02 s) - 1) / 0.02
    seg = lambda s: math.exp(0.01) * math.expm1(0.02 * s) / 0.02  # noqa: E731
    busy = 9 * seg(1.01) + seg(1.0)
    assert h["writes"] == pytest.approx(0.09) and h["failures"] == pytest.approx(0.02 * busy)
    assert h["lost"] == pytest.approx(busy - 10.09) and h["total"] == pytest.approx(busy + 2.0)


def one_card(**inputs) -> dict:
    """Each GPU's one-card quote for the same inputs."""
    return {g["id"]: result(**inputs, gpu=g["id"], cards=1) for g in catalog()["gpus"]}


def test_throughput_respects_each_card():
    default = one_card()
    # Same compute, more bandwidth: H200 is faster than H100; A100 beats the power-limited RTX 6000 Ada.
    assert default["h200-141gb"]["tokens_per_s"] > default["h100-sxm-80gb"]["tokens_per_s"]
    assert default["a100-sxm-80gb"]["tokens_per_s"] > default["rtx-6000-ada-48gb"]["tokens_per_s"]
    # A memory-bound run (short sequences, one per micro-batch) follows the bandwidth ratio.
    small = one_card(seq_len=16, micro_batch=1, stack="tuned")  # no fixed overhead per micro-batch
    ratio = small["h200-141gb"]["tokens_per_s"] / small["h100-sxm-80gb"]["tokens_per_s"]
    assert ratio == pytest.approx(4800 / 3350, rel=0.03)


def test_measured_throughput_sets_only_its_own_card():
    plain = {(q["gpu"], q["cards"]): q for q in result(memory_per_gpu_gb=40, cards=1, any_count=True)["best_by_gpu"]}
    r = result(gpu="h100-sxm-80gb", throughput_per_gpu=5000, memory_per_gpu_gb=40, any_count=True)
    rows = {(q["gpu"], q["cards"]): q for q in r["options_table"] + r["best_by_gpu"]}
    assert rows[("h100-sxm-80gb", 1)]["tokens_per_s"] == 5000 and rows[("h100-sxm-80gb", 1)]["measured"]
    assert rows[("mi300x-192gb", 1)]["tokens_per_s"] == plain[("mi300x-192gb", 1)]["tokens_per_s"]
    assert not rows[("mi300x-192gb", 1)]["measured"]
    table = next(b for b in r["display"] if b.get("title") == "Cheapest configuration of each GPU")
    source = [c["label"] for c in table["columns"]].index("Throughput is")
    best = {row[0]: row[source] for row in table["rows"]}
    assert best["H100 80 GB"] == "measured" and best["MI300X"] == "estimated"  # the short names


def test_measured_scaling_efficiency_on_the_chosen_card():
    r = result(**{**hours(100.0), "cards": 4, "scaling_efficiency": 0.85})
    assert r["tokens_per_s"] == pytest.approx(4 * 1000 * 0.85)
    assert r["needed_hours"] == pytest.approx(100 / 3.4)


def test_card_counts_are_the_catalog_shapes_unless_any_count_is_allowed():
    r = result(memory_per_gpu_gb=60)  # needs >= 66.7 GB cards with 10 % headroom
    assert set(r["ranking"]) == {"a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb", "mi300x-192gb"}
    # One node of 1, 2, 4 or 8 cards, then whole nodes of 8: never 3, 5, 6 or 7 cards.
    assert [q["cards"] for q in r["options_table"]] == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert all(q["cards"] in (1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64) for q in r["best_by_gpu"])
    anything = result(memory_per_gpu_gb=60, any_count=True)
    assert [q["cards"] for q in anything["options_table"]] == [1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64]
    # The desktop cards are rented one node at a time: never 64 x RTX 4090.
    assert max(quote.card_counts("rtx-4090-24gb")) == 8
    assert {q["gpu"] for q in r["options_table"]} == {r["gpu"]}  # the chosen GPU's card counts
    assert [q["gpu"] for q in r["best_by_gpu"]] == r["ranking"]
    assert not result(memory_per_gpu_gb=60, gpu="rtx-6000-ada-48gb")["options_table"]


def test_inter_node_efficiency_applies_past_one_node():
    base = {**hours(100.0), "scaling_efficiency": 1.0}
    eight = result(**{**base, "cards": 8, "internode_efficiency": 0.5})
    sixteen = result(**{**base, "cards": 16, "internode_efficiency": 0.5})
    assert eight["tokens_per_s"] == pytest.approx(8000) and sixteen["tokens_per_s"] == pytest.approx(8000)


def test_sensitivity_line():
    r = result()
    assert r["ranking_low"] and r["ranking_high"]
    notes = " ".join(i["msg"] for i in r["display"][-1]["items"])
    assert ("stays the cheapest" in notes) == r["ranking_holds"]


def test_memory_budget_from_memory_inputs_shards_with_cards():
    seventy = {"model": "llama-3.1-70b", "method": "full", "parallelism": "fsdp", "cards": 8}
    r = result(gpu="h100-sxm-80gb", **seventy)
    rows = {(q["gpu"], q["cards"]): q for q in r["options_table"]}
    assert ("h100-sxm-80gb", 1) not in rows
    per_gpu = [q["memory_per_gpu_bytes"] for q in result(gpu="mi300x-192gb", **seventy)["options_table"]]
    assert len(per_gpu) > 3 and per_gpu == sorted(per_gpu, reverse=True)
    mem = compute("memory", {"model": "llama-3.1-70b", "method": "full", "parallelism": "fsdp", "gpus": 8})
    assert r["memory_per_gpu_bytes"] == mem["result"]["per_gpu_bytes"]


def test_single_gpu_parallelism_becomes_ddp_beyond_one_card():
    r = result(cards=4, parallelism="single")
    ddp = compute("memory", {"parallelism": "ddp", "gpus": 4})["result"]["per_gpu_bytes"]
    assert r["memory_per_gpu_bytes"] == ddp


def test_errors():
    # A value below a field's floor is refused with the other input errors, before the calculator's own checks.
    answer = compute("cost", {"throughput_per_gpu": 0.001, "term": "2y", "heads": 5, "model": "custom"})
    assert {(e["field"], e["code"]) for e in answer["errors"]} == {
        ("term", "unknown_choice"),
        ("throughput_per_gpu", "out_of_range"),
    }
    answer = compute("cost", {"throughput_per_gpu": 0.01, "heads": 5, "model": "custom"})
    assert {(e["field"], e["code"]) for e in answer["errors"]} == {
        ("heads", "heads_not_divisible"),
        ("kv_heads", "kv_heads_not_divisor"),
    }
    answer = compute("cost", {"checkpoint_interval_hours": 0})
    assert [(e["field"], e["code"]) for e in answer["errors"]] == [("checkpoint_interval_hours", "out_of_range")]


TERMS = sorted(catalog()["pricing"]["terms"], key=lambda t: t["hours"])


def test_catalog_figures_have_sources():
    gpus = catalog()["gpus"]
    assert {"a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb", "mi300x-192gb"} <= {g["id"] for g in gpus}
    assert {g["tier"] for g in gpus} == {"datacenter", "workstation", "consumer"}
    for g in gpus:
        assert g["stack"] in {"CUDA", "ROCm"}
        for field in ("memory_gb", "bandwidth_gb_s", "bf16_dense_tflops", "interconnect"):
            src = g["sources"][field]
            assert src["title"] and src["url"].startswith("https://")
        assert g["memory_gb"] > 0 and g["bandwidth_gb_s"] > 0 and g["interconnect"]["gb_s"] > 0


def test_every_price_has_a_source_and_a_date():
    pricing = catalog()["pricing"]
    things = _prices.provenance()
    assert len(things) == len(pricing["usd_per_card_hour"]) + len(pricing["options"])
    for what, source in things:
        assert source["title"] and _prices.parse_date(source["as_of"]), what
        # A price is the public median (gpuguide.catalog_prices checks the figures) or says it is illustrative.
        assert source["illustrative"] is not bool(source.get("public_median")), what
    assert set(pricing["on_demand_usd_per_card_hour"]) == set(pricing["usd_per_card_hour"])


def test_stale_prices_lists_old_ones_only():
    dates = [_prices.parse_date(source["as_of"]) for _, source in _prices.provenance()]
    as_of, span = max(dates), (max(dates) - min(dates)).days
    assert _prices.stale(span, as_of) == []
    assert len(_prices.stale(span - 1, as_of)) == dates.count(min(dates))
    later = as_of.replace(year=as_of.year + 1)
    lines = _prices.stale(30, later)
    assert len(lines) == len(_prices.provenance()) and "h100-sxm-80gb" in " ".join(lines)


def test_catalog_terms_never_cost_more_per_hour_than_shorter_ones_or_on_demand():
    pricing = catalog()["pricing"]
    assert "edit" in pricing["note"] and "median" in pricing["note"]
    for gpu in catalog()["gpus"]:
        rates = [pricing["usd_per_card_hour"][gpu["id"]][t["id"]] for t in TERMS]
        assert rates == sorted(rates, reverse=True)
        assert pricing["on_demand_usd_per_card_hour"][gpu["id"]] >= rates[0]
    assert all(isinstance(t["hours"], int) and t["hours"] > 0 for t in TERMS)  # the planner counts whole hours
    assert _prices.option_problems(pricing["options"]) == []
    for option in pricing["options"]:
        if option["per"] == "term":
            prices = [option["usd"][t["id"]] for t in TERMS]
            assert prices == sorted(prices)


@pytest.mark.parametrize(
    "shape, message",
    [
        ({"per_node": [1, 2, 4, 8], "max_nodes": 8}, None),
        ({"per_node": [1, 3, 2], "max_nodes": 1}, "'per_node' must be card counts from 1 to 64 in increasing order"),
        ({"per_node": [], "max_nodes": 1}, "'per_node' must be"),
        ({"per_node": [1, 2], "max_nodes": 0}, "'max_nodes' must be a whole number of nodes from 1 to 128 (got 0)"),
        ({"per_node": [1, 2.5]}, "'per_node' must be"),
        (None, "'per_node' must be"),
    ],
)
def test_catalog_shapes_are_validated(shape, message):
    problems = _prices.shape_problems({"shapes": {"h100-sxm-80gb": shape}}, ["h100-sxm-80gb"])
    assert (
        (not problems) if message is None else any(message in p and "shapes['h100-sxm-80gb']" in p for p in problems)
    ), problems
    assert _prices.shape_problems(catalog()["pricing"], [g["id"] for g in catalog()["gpus"]]) == []
    assert _prices.catalog_problems() == []


def test_an_option_with_a_new_quantity_fails_the_catalog_check_with_the_fix(tmp_path):
    """Before any check, compute raised KeyError('backup_tb') and every calculator in the browser failed to
    start. The check is the build's (and this test's), not the import's: the package still imports, and
    `check_catalog` names the option, what it may be and where a new quantity goes."""
    package = tmp_path / "calculators"
    shutil.copytree(Path(cost.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    data = json.loads((package / "data" / "catalog.json").read_text(encoding="utf-8"))
    data["pricing"]["options"].append(
        {"id": "backup", "label": "Backup", "per": "tb_day", "quantity": "backup_tb", "usd": 0.1}
    )
    (package / "data" / "catalog.json").write_text(json.dumps(data), encoding="utf-8")
    script = (
        "import sys; sys.path[:0] = sys.argv[1:]\nimport calculators\n"
        "try:\n    calculators.check_catalog()\nexcept calculators.CatalogError as exc:\n    print(type(exc).__name__, exc)\n"
        "else:\n    print('no error')"
    )
    # -S: no site packages, so the copy is the calculators package imported.
    generator = Path(guidekit.__file__).parents[1]  # the generator's layers, which the calculators import
    run = subprocess.run(
        [sys.executable, "-S", "-c", script, str(tmp_path), str(generator)], capture_output=True, text=True
    )
    assert run.stdout.startswith(
        "CatalogError calculators/data/catalog.json: option 'backup': 'quantity' must be one "
        "of storage_tb, scratch_tb, egress_tb (got 'backup_tb'); a new quantity needs its own "
        "input in calculators/_cost_inputs.py"
    ), run.stdout + run.stderr


def test_totals_are_exactly_rounded_in_every_python():
    """The browser's Pyodide (Python 3.14) and the build's CPython must agree to the last bit; the
    built-in sum() rounds differently since 3.12, so totals use math.fsum. 0.1 + 0.2 + 0.3 is 0.6."""
    terms = {"a": {"id": "a", "hours": 1}, "b": {"id": "b", "hours": 1}}
    rates = {"a": 0.1, "b": 0.2}
    egress = {"id": "egress", "per": "tb", "usd": 0.3, "quantity": "egress_tb"}
    options = plans.OptionPrices([egress], terms, {"egress_tb": 1})
    out = plans.plan_breakdown({"terms": [["a", 1], ["b", 1]]}, rates.get, 1, terms, options)
    assert out["total_usd"] == 0.6


def test_an_answer_does_not_depend_on_the_answers_before_it():
    """The memory budget, each configuration's throughput and hours, and the term prices are kept
    across answers while the inputs they depend on stay the same: each input changed alone, after
    an answer without the change, must give the answer that nothing kept gives."""
    # A custom model, so that its dimensions count.
    changed = valid_edits_answered_as_from_nothing("cost", cost.INPUTS, {"model": "custom"}, quote.forget)
    assert changed > 40  # most edits are valid answers, not refusals that stop before the budget


def test_the_cheapest_configuration_of_each_gpu_is_the_cheapest_of_every_card_count():
    """The ranking prices card counts from a lower bound up and stops early; pricing every GPU and
    card count one by one, through the boundary, must find the same configurations."""
    rng = random.Random(5)
    options = [o["id"] for o in catalog()["pricing"]["options"]]
    for _ in range(12):
        inputs = {
            "runs": rng.randint(1, 40),
            "term": rng.choice(["best", "best", "1d", "1w", "1m", "3m"]),
            "options": rng.sample(options, rng.randint(0, len(options))),
            "tokens": rng.choice([1e6, 2e8, 3e10]),
            "utilization": rng.choice([0.2, 0.4, 0.6]),
            "method": rng.choice(["full", "lora", "qlora"]),
            "model": rng.choice(["llama-3.1-8b", "llama-3.1-70b"]),
            "egress_tb": rng.choice([0, 2.5]),
        }
        r = result(**inputs)
        every = {}
        for gpu in catalog()["gpus"]:
            for cards in quote.card_counts(gpu["id"]):
                one = result(**inputs, gpu=gpu["id"], cards=cards)
                if one["fits_memory"]:
                    every.setdefault(gpu["id"], []).append((round(one["usd_per_output"], 6), cards))
        cheapest = {gpu: min(keys) for gpu, keys in every.items()}
        assert r["ranking"] == sorted(cheapest, key=cheapest.get), inputs
        assert [(q["gpu"], q["cards"]) for q in r["best_by_gpu"]] == [(g, cheapest[g][1]) for g in r["ranking"]]


def test_the_kept_lower_bounds_stay_below_every_price_from_one_answer_to_the_next():
    """The ranking's search stops on a lower bound per GPU and card count, whose term statistics are
    kept across answers: after answers with other terms and options, each bound must still be at or
    under the price it bounds (a bound kept under the wrong inputs prunes the cheapest configuration)."""
    rng = random.Random(11)
    options = [o["id"] for o in catalog()["pricing"]["options"]]
    quote.forget()
    for _ in range(10):
        inputs = {
            "runs": rng.randint(1, 60),
            "term": rng.choice(["best", "1d", "1w", "1m", "3m"]),
            "options": rng.sample(options, rng.randint(0, len(options))),
            "egress_tb": rng.choice([0, 2.5]),
            "tokens": rng.choice([1e6, 2e8, 3e10]),
        }
        response = compute("cost", inputs)
        assert response["ok"], inputs
        quoter = quote._Quoter(response["inputs"])
        for gpu in catalog()["gpus"]:
            for cards in quote.card_counts(gpu["id"]):
                if quoter.budget.fits(gpu, cards):
                    assert quoter.least_usd_per_output(gpu, cards) <= quoter.usd_per_output(gpu, cards, quote.BOOKED), (
                        inputs,
                        gpu["id"],
                        cards,
                    )


@pytest.mark.parametrize("parallelism", ["single", "ddp"])
def test_several_cards_that_do_not_fit_get_the_least_sharding_that_does(parallelism):
    """Issue 51 item 3: 8 cards of a full fine-tune that DDP cannot hold: the nearest configuration is
    the same cards with the first mode (ZeRO-1, -2, FSDP) that fits, and its note applies it."""
    inputs = {"cards": 8, "method": "full", "gpu": "h100-sxm-80gb", "parallelism": parallelism}
    r = compute("cost", inputs)["result"]
    assert not r["fits_memory"]
    near = r["nearest_fit"]
    assert near["change"] == "parallelism" and near["cards"] == 8 and near["gpu"] == "h100-sxm-80gb"
    order = memory.SHARDING_ORDER
    tried = order[order.index("ddp" if parallelism == "single" else parallelism) + 1 :]
    assert near["parallelism"] in tried
    for mode in tried[: tried.index(near["parallelism"])]:  # every less sharded mode does not fit
        assert not compute("cost", {**inputs, "parallelism": mode})["result"]["fits_memory"], mode
    fixes = [i["apply"] for b in r["display"] if b["kind"] == "notes" for i in b["items"] if "apply" in i]
    assert fixes == [{"parallelism": near["parallelism"]}]
    applied = compute("cost", {**inputs, **fixes[0]})["result"]
    assert applied["fits_memory"] and applied["usd_per_output"] == pytest.approx(near["usd_per_output"])


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        # Attack finding 13: NaN and Infinity made every plan NaN; a term of 0 or half an hour divided by zero.
        (lambda p: p["usd_per_card_hour"]["a100-sxm-80gb"].update({"1w": float("nan")}), "['a100-sxm-80gb']['1w']"),
        (lambda p: p["on_demand_usd_per_card_hour"].update({"h100-sxm-80gb": float("inf")}), "on_demand_usd_per"),
        (lambda p: p["usd_per_card_hour"]["h200-141gb"].update({"1d": -1}), "['h200-141gb']['1d']: a price above 0"),
        (lambda p: p["usd_per_card_hour"]["h200-141gb"].pop("1m"), "['h200-141gb']['1m']: a price above 0"),
        (lambda p: p["terms"][0].update({"hours": 0}), "term '1d': 'hours' must be a whole number"),
        (lambda p: p["terms"][0].update({"hours": 0.5}), "term '1d': 'hours' must be a whole number"),
        (lambda p: p["options"][0].update({"usd": float("nan")}), "option 'checkpoint_storage': 'usd' must be"),
        # Attack finding 16: a catalog without `terms` was a KeyError traceback.
        (lambda p: p.pop("terms"), "pricing['terms'] must be a list"),
    ],
)
def test_a_price_or_term_the_planner_cannot_use_is_named(edit, line):
    broken = json.loads(json.dumps(catalog()))
    edit(broken["pricing"])
    problems = _prices.catalog_problems(broken)
    assert any(line in p for p in problems), problems


def test_a_catalog_that_is_not_json_is_named_with_its_place(tmp_path):
    package = tmp_path / "calculators"
    shutil.copytree(Path(cost.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "data" / "catalog.json").write_text('{"gpus": [', encoding="utf-8")
    script = "import sys; sys.path[:0] = sys.argv[1:]\nimport calculators"
    generator = Path(guidekit.__file__).parents[1]
    run = subprocess.run(
        [sys.executable, "-S", "-c", script, str(tmp_path), str(generator)], capture_output=True, text=True
    )
    assert "ValueError: calculators/data/catalog.json is not JSON: Expecting value: line 1 column 11" in run.stderr
