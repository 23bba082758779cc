"""Fixed-term rental arithmetic: throughput, the hours in the window, the price.

Training compute per token follows the usual dense-transformer count (Kaplan et al.
2020, "Scaling Laws for Neural Language Models", section 2.1; Narayanan et al. 2021
for recomputation): about 2N FLOPs forward and 4N backward for N parameters, i.e.
6N for a full fine-tune. LoRA/QLoRA skip the frozen weights' gradients (2N of the
4N backward), so 4N; gradient checkpointing re-runs the forward, +2N. Attention's
s^2 FLOPs are left out (small against 6N at fine-tuning lengths).
"""

from __future__ import annotations

import math


def flops_per_token(params: int, method: str, checkpointing: bool) -> float:
    factor = 6 if method == "full" else 4
    return (factor + 2 * checkpointing) * params


def derived_tokens_per_s(gpu: dict, utilization: float, params: int, method: str, checkpointing: bool) -> float:
    """Per-GPU tokens/s = achieved share of the dense bf16 peak / FLOPs per token."""
    return utilization * gpu["bf16_dense_tflops"] * 1e12 / flops_per_token(params, method, checkpointing)


def cluster_tokens_per_s(per_gpu: float, cards: int, scaling_efficiency: float) -> float:
    """N cards deliver N x one card x the scaling efficiency (1 for a single card)."""
    return per_gpu * cards * (scaling_efficiency if cards > 1 else 1.0)


def schedule(tokens_per_run: float, runs: int, tokens_per_s: float, overhead_per_run: float,
             restart_hours: float, term_hours: float) -> dict:
    """Productive and overhead hours, whether all runs fit in the term, and how many complete."""
    productive = tokens_per_run * runs / tokens_per_s / 3600
    overhead = runs * overhead_per_run + restart_hours
    needed = productive + overhead
    per_run = productive / runs + overhead_per_run
    if needed <= term_hours:
        completed = runs
    else:
        completed = min(runs, math.floor(max(0.0, term_hours - restart_hours) / per_run))
    return {"productive_hours": productive, "overhead_hours": overhead, "needed_hours": needed,
            "hours_per_run": per_run, "term_hours": term_hours, "finishes": needed <= term_hours,
            "margin_hours": term_hours - needed, "margin_fraction": (term_hours - needed) / term_hours,
            "completed_runs": completed}


def option_price(option: dict, term: dict, quantities: dict) -> float:
    """Price of one option over a term: flat per term, per TB per day, or per TB."""
    if option["per"] == "term":
        return float(option["usd"][term["id"]])
    if option["per"] == "tb_day":
        return option["usd"] * quantities[option["quantity"]] * term["hours"] / 24
    if option["per"] == "tb":
        return option["usd"] * quantities[option["quantity"]]
    raise ValueError(f"unknown option pricing {option['per']!r}")  # a catalog error, caught by tests


def price(pricing: dict, gpu_id: str, cards: int, term: dict, option_ids, quantities: dict) -> dict:
    """Total = cards x term hours x price per card-hour + the chosen options."""
    rate = pricing["usd_per_card_hour"][gpu_id][term["id"]]
    gpu_cost = cards * term["hours"] * rate
    options = {o["id"]: option_price(o, term, quantities) for o in pricing["options"] if o["id"] in option_ids}
    return {"usd_per_card_hour": rate, "gpu_usd": gpu_cost, "options_usd": options,
            "total_usd": gpu_cost + sum(options.values())}


def per_output(total_usd: float, completed_runs: int, tokens_per_run: float) -> dict:
    """Cost per successful output; None when no run completes inside the term."""
    if completed_runs <= 0:
        return {"usd_per_million_tokens": None, "usd_per_run": None}
    return {"usd_per_million_tokens": total_usd / (completed_runs * tokens_per_run / 1e6),
            "usd_per_run": total_usd / completed_runs}
