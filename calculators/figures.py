"""The figures the guide's prose quotes, computed by the calculators (``<!-- figure: NAME -->``).

Each is a named call of the public boundary with the inputs its sentence describes, so when the
model or the catalog changes, the sentence changes with it. Cached: every locale quotes the same.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any

from guidekit.calc import compute, register_figure

from . import _data, cost, throughput, throughput_accuracy

GB = 1e9
# The memory page's comparison: Llama 3.1 8B loaded in bf16 under bf16 autocast, 2,048 tokens,
# micro-batch 4, recomputation, fused attention, fp32 adapters, foreach AdamW, one GPU.
_LLAMA8B = {
    "model": "llama-3.1-8b",
    "seq_len": 2048,
    "micro_batch": 4,
    "weights_dtype": "bf16",
    "autocast": "bf16",
    "adapter_dtype": "fp32",
    "gradient_checkpointing": True,
    "attention": "fused",
    "optimizer": "adamw",
    "optimizer_impl": "foreach",
    "parallelism": "single",
    "gpus": 1,
    "quant": "nf4",
    "double_quant": True,
}


def _result(name: str, **inputs: object) -> dict[str, Any]:
    answer = compute(name, inputs)
    if not answer["ok"]:
        raise ValueError(f"a prose figure's own inputs are refused: {answer['errors']}")
    result: dict[str, Any] = answer["result"]
    return result


def _memory_gb(method: str) -> float:
    """Memory per GPU rounded to whole GB, as the sentence says "about"."""
    per_gpu: float = _result("memory", **_LLAMA8B, method=method)["per_gpu_bytes"]
    return round(per_gpu / GB) * GB


register_figure("memory.llama8b_full", "bytes")(lambda: _memory_gb("full"))
register_figure("memory.llama8b_lora", "bytes")(lambda: _memory_gb("lora"))
register_figure("memory.llama8b_qlora", "bytes")(lambda: _memory_gb("qlora"))


def _cost(**inputs: object) -> dict[str, Any]:
    return _cost_cached(json.dumps(inputs, sort_keys=True))


@lru_cache(maxsize=None)
def _cost_cached(inputs: str) -> dict[str, Any]:
    return _result("cost", **json.loads(inputs))


def _scaling_premium(billing: str, **inputs: object) -> float:
    """Extra cost per output of 4 cards at 85 % scaling efficiency over one card (0.18 = 18 %)."""
    one = _cost(cards=1, **inputs)
    four = _cost(cards=4, scaling_efficiency=0.85, **inputs)
    ratio: float = four[billing] / one[billing]
    return ratio - 1


# Training time alone, billed by the hour: exactly 1 / 0.85 - 1. On a tuned framework, which adds no fixed
# time per optimizer step: another stack's would not shrink with the cards, and the sentence is about scaling.
_TRAINING_ONLY = {
    "stack": "tuned",
    "load_hours": 0,
    "validation_hours": 0,
    "checkpoint_hours": 0,
    "export_hours": 0,
    "failures_per_100h": 0,
    "checkpoint_write_s": 0,
    "options": [],
    "tokens": 1e10,
}
register_figure("cost.scaling_premium_training", "percent")(
    lambda: _scaling_premium("hourly_usd_per_output", **_TRAINING_ONLY)
)
# The calculator's defaults: hourly billing, then the cheapest reservation plan.
register_figure("cost.scaling_premium_hourly", "percent")(lambda: _scaling_premium("hourly_usd_per_output"))
register_figure("cost.scaling_premium_plan", "percent")(lambda: _scaling_premium("usd_per_output"))


@lru_cache(maxsize=None)
def _accuracy() -> dict[str, Any]:
    return throughput_accuracy.accuracy()


# The throughput ranges: how far the published measurements fell below and above the model's estimates,
# each publication held out of the fit in turn (`throughput.Calibration`): a card calibrated on several
# publications, one on few or FP8 only, and the Hugging Face stack on a card of the first kind; how
# close the fit came, and how many held-out measurements the ranges of the other publications hold.
register_figure("cost.range_below", "percent")(lambda: 1 - throughput.calibration().band[0])
register_figure("cost.range_above", "percent")(lambda: throughput.calibration().band[1] - 1)
register_figure("cost.range_wide_below", "percent")(lambda: 1 - throughput.calibration().wide_band[0])
register_figure("cost.range_wide_above", "percent")(lambda: throughput.calibration().wide_band[1] - 1)
register_figure("cost.range_hf_below", "percent")(
    lambda: 1 - throughput.calibration().range_of("h100-sxm-80gb", throughput.HF)[0]
)
register_figure("cost.range_hf_above", "percent")(
    lambda: throughput.calibration().range_of("h100-sxm-80gb", throughput.HF)[1] - 1
)
register_figure("cost.target", "percent")(lambda: throughput.TARGET)
register_figure("cost.range_coverage", "percent")(lambda: throughput.COVERAGE)
register_figure("cost.fp8_speedup", "number")(lambda: round(throughput.calibration().fp8_speedup, 2))
register_figure("cost.hf_efficiency", "percent")(lambda: throughput.calibration().stacks[throughput.HF].efficiency)
register_figure("cost.hf_step_overhead", "seconds")(
    lambda: round(throughput.calibration().stacks[throughput.HF].step_overhead_s, 2)
)
register_figure("cost.calibration_sources", "count")(lambda: _accuracy()["summary"]["sources"])
register_figure("cost.hf_sources", "count")(
    lambda: len({r["label"] for r in _accuracy()["rows"] if r["use"] == "calibration" and r["stack"] == throughput.HF})
)
register_figure("cost.held_out_inside", "percent")(lambda: _accuracy()["summary"]["held_out_inside_band"])
register_figure("cost.held_out_within", "percent")(lambda: _accuracy()["summary"]["held_out_within_target"])
register_figure("cost.calibration_rows", "count")(lambda: _accuracy()["summary"]["calibration_rows"])
register_figure("cost.calibration_worst", "percent")(lambda: _accuracy()["summary"]["worst_error"])
register_figure("cost.calibration_worst_loo", "percent")(lambda: _accuracy()["summary"]["worst_loo_error"])
for _gpu in (g["id"] for g in _data.gpus()):
    register_figure(f"cost.share.{_gpu}", "percent")(lambda gid=_gpu: throughput.calibration().shares[gid])


def _ratio(key: str, faster: str, slower: str) -> float:
    """A catalog figure of one card over another's, to one decimal, as the prose says "2.3 times"."""
    ratio: float = _data.gpu(faster)[key] / _data.gpu(slower)[key]
    return round(ratio, 1)


def _measured_ratio(faster: str, slower: str) -> float:
    """Measured tokens/s of one card over another's, geometric mean over the calibration workloads measured on
    both (the llm-foundry pairs for the H100 and A100), to one decimal."""
    ratios = [
        o["measured"][faster] / o["measured"][slower]
        for o in _accuracy()["orders"]
        if faster in o["measured"] and slower in o["measured"]
    ]
    return round(math.exp(math.fsum(math.log(r) for r in ratios) / len(ratios)), 1)


# What the H100 brings over the A100: the catalog's peak, bandwidth and link, and the measured speed-up.
register_figure("cost.h100_a100_peak_ratio", "number")(
    lambda: _ratio("bf16_dense_tflops", "h100-sxm-80gb", "a100-sxm-80gb")
)
register_figure("cost.h100_a100_bandwidth_ratio", "number")(
    lambda: _ratio("bandwidth_gb_s", "h100-sxm-80gb", "a100-sxm-80gb")
)
register_figure("cost.h100_a100_link_ratio", "number")(
    lambda: round(
        _data.gpu("h100-sxm-80gb")["interconnect"]["gb_s"] / _data.gpu("a100-sxm-80gb")["interconnect"]["gb_s"], 1
    )
)
register_figure("cost.h100_a100_measured_ratio", "number")(lambda: _measured_ratio("h100-sxm-80gb", "a100-sxm-80gb"))

# The default run on the default card: hours, the cheapest plan, its cost per output.
register_figure("cost.default_gpu", "raw")(lambda: _cost()["name"])
register_figure("cost.default_hours", "hours")(lambda: _cost()["needed_hours"])
register_figure("cost.default_plan", "plan")(lambda: cost.plan_text(_cost()["plan"]))
register_figure("cost.default_per_output", "usd")(lambda: _cost()["usd_per_output"])
register_figure("cost.default_one_week", "usd")(lambda: _cost(term="1w")["usd_per_output"])
# The cheapest GPU per output with the defaults at the expected throughput, against the cheapest per hour. Whether
# it stays the cheapest across the throughput range is the calculator's ranking note; the prose says what it depends on.
register_figure("cost.cheapest_gpu", "raw")(lambda: _cost(booking="expected")["best_by_gpu"][0]["name"])
register_figure("cost.cheapest_per_output", "usd")(
    lambda: _cost(booking="expected")["best_by_gpu"][0]["usd_per_output"]
)
for _gpu in ("a100-sxm-80gb", "h100-sxm-80gb"):
    register_figure(f"cost.{_gpu.split('-')[0]}_per_output", "usd")(
        lambda gid=_gpu: next(q for q in _cost(booking="expected")["best_by_gpu"] if q["gpu"] == gid)["usd_per_output"]
    )
# Each card's default price on demand (the public median, where the catalog says so).
for _gpu in _data.catalog()["pricing"]["on_demand_usd_per_card_hour"]:
    register_figure(f"cost.on_demand.{_gpu}", "usd")(
        lambda gid=_gpu: _data.catalog()["pricing"]["on_demand_usd_per_card_hour"][gid]
    )

# Catalog ratios the prose explains.
register_figure("cost.h200_bandwidth_gain", "percent")(
    lambda: _data.gpu("h200-141gb")["bandwidth_gb_s"] / _data.gpu("h100-sxm-80gb")["bandwidth_gb_s"] - 1
)
