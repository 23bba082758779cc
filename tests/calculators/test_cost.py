"""The cost model against hand-worked cases, and the catalog it reads."""

import pytest
from calc_checks import ok_result

from calculators import catalog, compute, cost

BASE = {"gpu": "h100-sxm-80gb", "cards": 2, "term": "1w",
        "options": ["checkpoint_storage", "egress", "support"], "storage_tb": 2, "egress_tb": 1,
        "workload": "steps", "steps": 1000, "tokens_per_step": 100000, "runs": 2,
        "throughput_per_gpu": 5000, "scaling_efficiency": 0.9, "memory_per_gpu_gb": 60}


def result(**inputs):
    return ok_result("cost", inputs)


def test_hand_worked_quote():
    r = result(**BASE)
    assert r["tokens_per_run"] == 1e8 and r["tokens_per_s"] == pytest.approx(9000)
    assert r["productive_hours"] == pytest.approx(2e8 / 9000 / 3600)
    assert r["overhead_hours"] == pytest.approx(2 * 4 * 0.5 + 2)
    assert r["finishes"] and r["margin_hours"] == pytest.approx(168 - r["needed_hours"])
    # 2 cards x 168 h x $2.90 + storage 2 TB x 7 d x $0.80 + egress 1 TB x $50 + support $150
    assert r["gpu_usd"] == pytest.approx(974.4)
    assert r["options_usd"] == pytest.approx({"checkpoint_storage": 11.2, "egress": 50.0, "support": 150.0})
    assert r["total_usd"] == pytest.approx(1185.6)
    assert r["usd_per_million_tokens"] == pytest.approx(1185.6 / 200)
    assert r["usd_per_run"] == pytest.approx(592.8)


def test_table_lists_only_configurations_that_fit():
    r = result(**BASE)  # 60 GB per GPU with 10 % headroom needs >= 66.7 GB cards
    names = {q["gpu"] for q in r["options_table"]}
    assert names == {"a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb", "mi300x-192gb"}
    assert len(r["options_table"]) == 4 * len(cost.TABLE_CARDS)
    measured_h100 = next(q for q in r["options_table"] if q["gpu"] == "h100-sxm-80gb" and q["cards"] == 1)
    mi = next(q for q in r["options_table"] if q["gpu"] == "mi300x-192gb" and q["cards"] == 1)
    assert mi["tokens_per_s_per_gpu"] == pytest.approx(5000 * 1307.4 / 989)  # scaled by bf16 rate
    assert measured_h100["tokens_per_s"] == 5000


def test_derived_throughput_from_bf16_rate():
    r = result(gpu="h100-sxm-80gb", cards=1, utilization=0.5, method="full", gradient_checkpointing=False)
    assert r["tokens_per_s"] == pytest.approx(0.5 * 989e12 / (6 * 8030261248))
    lora_ckpt = result(gpu="h100-sxm-80gb", cards=1, utilization=0.5, method="lora", gradient_checkpointing=True)
    assert lora_ckpt["tokens_per_s"] == pytest.approx(0.5 * 989e12 / (6 * 8030261248))  # 4N + 2N recompute


def test_run_that_does_not_finish():
    r = result(**{**BASE, "term": "1d", "runs": 3, "steps": 10000})
    assert not r["finishes"] and r["margin_hours"] < 0
    per_run = 1e9 / 9000 / 3600 + 2
    assert r["completed_runs"] == int((24 - 2) // per_run) == 0
    assert r["usd_per_run"] is None and r["usd_per_million_tokens"] is None
    statuses = {i["label"]: i["status"] for i in r["display"][0]["items"]}
    assert statuses["Hours needed"] == "bad"


def test_memory_budget_from_memory_inputs_shards_with_cards():
    r = result(gpu="h100-sxm-80gb", model="llama-3.1-70b", method="full", parallelism="fsdp", cards=8)
    rows = {(q["gpu"], q["cards"]): q for q in r["options_table"]}
    assert ("h100-sxm-80gb", 1) not in rows
    per_gpu = [q["memory_per_gpu_bytes"] for q in r["options_table"] if q["gpu"] == "mi300x-192gb"]
    assert per_gpu == sorted(per_gpu, reverse=True)
    mem = compute("memory", {"model": "llama-3.1-70b", "method": "full", "parallelism": "fsdp", "gpus": 8})
    assert r["memory_per_gpu_bytes"] == mem["result"]["per_gpu_bytes"]


def test_single_gpu_parallelism_becomes_ddp_beyond_one_card():
    r = result(cards=4, parallelism="single")
    ddp = compute("memory", {"parallelism": "ddp", "gpus": 4})["result"]["per_gpu_bytes"]
    assert r["memory_per_gpu_bytes"] == ddp


def test_errors():
    answer = compute("cost", {"throughput_per_gpu": 0.001, "term": "2y", "heads": 5, "model": "custom"})
    assert {(e["field"], e["code"]) for e in answer["errors"]} == {("term", "unknown_choice")}
    answer = compute("cost", {"throughput_per_gpu": 0.001, "heads": 5, "model": "custom"})
    assert {(e["field"], e["code"]) for e in answer["errors"]} == {
        ("throughput_per_gpu", "out_of_range"), ("heads", "heads_not_divisible"),
        ("kv_heads", "kv_heads_not_divisor")}


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


def test_catalog_prices_are_illustrative_and_longer_terms_cheaper_per_hour():
    pricing = catalog()["pricing"]
    assert pricing["illustrative"] is True and "edit" in pricing["note"]
    for gpu in catalog()["gpus"]:
        rates = [pricing["usd_per_card_hour"][gpu["id"]][t["id"]] for t in TERMS]
        assert rates == sorted(rates, reverse=True) and len(set(rates)) == len(rates)
        totals = [r * t["hours"] for r, t in zip(rates, TERMS)]
        assert totals == sorted(totals)
    quantity_inputs = {i.name for i in cost.INPUTS if i.unit == "tb"}
    for option in pricing["options"]:
        assert option["per"] in {"term", "tb_day", "tb"}
        if option["per"] == "term":
            prices = [option["usd"][t["id"]] for t in TERMS]
            assert prices == sorted(prices)
        else:
            assert option["quantity"] in quantity_inputs


@pytest.mark.parametrize("term_a, term_b", list(zip([t["id"] for t in TERMS], [t["id"] for t in TERMS[1:]])))
def test_longer_term_never_costs_less(term_a, term_b):
    everything = {**BASE, "options": [o["id"] for o in catalog()["pricing"]["options"]]}
    assert result(**{**everything, "term": term_a})["total_usd"] <= result(**{**everything, "term": term_b})["total_usd"]
