"""The memory calculator: training memory per GPU by component, and which GPUs fit.

Formulas and their sources are documented in ``_memory_model`` (ZeRO for model
states, Korthikanti et al. 2022 adapted for activations, QLoRA for NF4) and
``architecture`` (parameter and LoRA counts).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from guidekit.calc import Carry, error
from guidekit.l10n import N_

from . import (
    _data,
    _error_codes,  # noqa: F401  (declares the codes its checks return)
    hf_config,
)
from ._memory_display import COMPONENT_LABELS as COMPONENT_LABELS, LEVERS_TITLE as LEVERS_TITLE, display
from ._memory_inputs import (
    _DEFAULTS,
    ADAPTER as ADAPTER,
    ARCH_FIELDS as ARCH_FIELDS,
    CUSTOM as CUSTOM,
    CUSTOM_MODEL as CUSTOM_MODEL,
    G_METHOD as G_METHOD,
    G_MODEL as G_MODEL,
    G_PAR as G_PAR,
    G_RUN as G_RUN,
    INPUTS as INPUTS,
    MAX_SEARCH_CARDS as MAX_SEARCH_CARDS,
    MODE_NAMES as MODE_NAMES,
    QUANTIZED as QUANTIZED,
    SHARDING_ORDER as SHARDING_ORDER,
)
from ._memory_model import Unsharded, unsharded
from ._memory_run import BYTES, SHARDED_MODES, Run
from .architecture import FAMILIES, MLP_LINEARS, MOE_FAMILIES, Architecture, partly_targeted, rank_limit

NAME = "memory"
TITLE = N_("Training memory per GPU")
IMPORT_PANEL = "estimate_vs_measured"
# A pilot result or a model's config.json dropped on the form is read by this guide's import panels.
IMPORTER = "gpuguide.results"
# Under the form: what its units and the catalog's prices mean.
FOOTNOTE = N_("GB = 10⁹ bytes.")
# The same job, priced: the cost page's form takes this one's inputs (its card count is `cards`).
CARRY = (Carry("cost", N_("Cost this job"), rename=(("gpus", "cards"),)),)


def prepare(values: dict[str, Any]) -> dict[str, Any]:
    """A preset overrides the dimension fields, so the echoed inputs describe the model used."""
    preset = _data.presets().get(values["model"])
    if preset is None:
        return values
    out = dict(values)
    for field in ARCH_FIELDS:  # a preset names only the fields of its family; the others keep their defaults
        out[field] = preset.get(field, _DEFAULTS[field])
    out["family"] = hf_config.MODEL_TYPES[preset["model_type"]].family
    for flag in ("tied_embeddings", "qkv_bias", "fused_projections", "router_aux_loss"):
        out[flag] = bool(out[flag])
    return out


def check(values: dict[str, Any]) -> list[dict[str, Any]]:
    errors = []
    if values["head_dim"] == 0 and values["hidden"] % values["heads"]:
        errors.append(error("heads", "heads_not_divisible", hidden=values["hidden"]))
    if values["heads"] % values["kv_heads"]:
        errors.append(error("kv_heads", "kv_heads_not_divisor", heads=values["heads"]))
    if values["parallelism"] == "single" and values["gpus"] != 1:
        errors.append(error("gpus", "single_gpu_only"))
    if values["method"] != "full" and not values["lora_targets"]:
        errors.append(error("lora_targets", "required"))
    if values["offload"] == "optimizer_params" and values["parallelism"] != "fsdp":
        errors.append(error("offload", "offload_needs_fsdp"))
    moe = values["family"] in MOE_FAMILIES
    if moe and values["experts_per_token"] > values["experts"]:
        errors.append(error("experts_per_token", "experts_per_token_too_many", experts=values["experts"]))
    if values["method"] != "full":
        for names in partly_targeted(values["lora_targets"], values["fused_projections"], moe).values():
            errors.append(error("lora_targets", "fused_target_partial", modules=[n + "_proj" for n in names]))
        experts_adapted = moe and bool(set(MLP_LINEARS) & set(values["lora_targets"]))
        if experts_adapted and values["lora_dropout"] > 0:
            errors.append(error("lora_dropout", "expert_lora_dropout"))
        limit = rank_limit(architecture(values).adapted_shapes(values["lora_targets"]))
        if limit and values["lora_rank"] > limit[0]:
            errors.append(error("lora_rank", "lora_rank_too_high", limit=limit[0], module=limit[1] + "_proj"))
    return errors


def architecture(values: dict[str, Any]) -> Architecture:
    """The model's shape; the expert fields only where the family has them, so a dense model's answer
    (and what the memory model keeps across calls) does not depend on inputs it ignores."""
    family = FAMILIES[values["family"]]
    moe = {}
    if family.moe:
        moe = {
            "experts": values["experts"],
            "experts_per_token": values["experts_per_token"],
            "shared_intermediate": values["shared_expert_intermediate"] if family.shared_expert else 0,
        }
    return Architecture(
        values["layers"],
        values["hidden"],
        values["heads"],
        values["kv_heads"],
        values["intermediate"],
        values["vocab"],
        values["tied_embeddings"],
        values["qkv_bias"],
        values["head_dim"],
        values["fused_projections"],
        values["family"],
        **moe,
    )


def build_run(values: dict[str, Any]) -> Run:
    arch = architecture(values)
    return Run(
        arch=arch,
        params=max(values["params"], arch.derived_params()),
        method=values["method"],
        lora_rank=values["lora_rank"],
        lora_targets=tuple(values["lora_targets"]),
        lora_dropout=values["lora_dropout"] > 0,
        adapter_dtype=values["adapter_dtype"],
        quant=values["quant"],
        double_quant=values["double_quant"],
        weights_dtype=values["weights_dtype"],
        autocast=values["autocast"],
        master_weights=values["master_weights"],
        loss=values["loss"],
        offload=values["offload"],
        optimizer=values["optimizer"],
        optimizer_impl=values["optimizer_impl"],
        grad_accumulation=values["grad_accumulation"],
        seq_len=values["seq_len"],
        micro_batch=values["micro_batch"],
        checkpointing=values["gradient_checkpointing"],
        attention=values["attention"],
        parallelism=values["parallelism"],
        router_aux_loss=values["router_aux_loss"] and arch.moe,
        framework_bytes=values["framework_gb"] * 1e9,
        fragmentation=values["fragmentation"],
        extra_temp_bytes=values["extra_temp_gb"] * 1e9,
    )


def card_counts(parallelism: str) -> list[int]:
    """Counts worth trying: sharding lowers memory per GPU, replication does not."""
    if parallelism not in SHARDED_MODES:
        return [1]
    return [2**k for k in range(MAX_SEARCH_CARDS.bit_length())]


def fits(total: int, gpu: dict[str, Any], margin: float) -> dict[str, Any]:
    capacity = int(gpu["memory_gb"] * 1e9)
    headroom = capacity - total
    return {
        "memory_bytes": capacity,
        "fits": total <= capacity * (1 - margin),
        "headroom_bytes": headroom,
        "headroom_fraction": headroom / capacity,
    }


def fit_table(
    state: Unsharded, gpus: int, margin: float
) -> tuple[list[dict[str, Any]], dict[str, Any] | None, dict[str, Any] | None]:
    """Fit of the chosen configuration on every catalog GPU, the smallest fitting setup and the cheapest.

    "Smallest" = fewest cards, then least total memory (cards x capacity). "Cheapest" = the least per hour at
    the catalog's on-demand prices (`_data.hourly_price`, the cost page's), then fewer cards: a card that fits
    is not always the one to rent.
    """
    totals = {n: state.per_gpu(n)["total"] for n in card_counts(state.run.parallelism)}
    here = state.per_gpu(gpus)["total"]
    rows, best, cheapest = [], None, None
    for gpu in _data.gpus():
        min_count = next((n for n, t in totals.items() if fits(t, gpu, margin)["fits"]), None)
        rows.append(
            {
                "gpu": gpu["id"],
                "name": gpu["name"],
                "short_name": gpu.get("short_name", gpu["name"]),
                **fits(here, gpu, margin),
                "min_count": min_count,
            }
        )
        if min_count is None:
            continue
        setup = {"gpu": gpu["id"], "name": gpu["name"], "count": min_count, "per_gpu_bytes": totals[min_count]}
        key = (min_count, min_count * gpu["memory_gb"])
        if best is None or key < best[0]:
            best = (key, setup)
        if (price := _data.hourly_price(gpu["id"])) is not None:
            by_price = (round(min_count * price, 6), min_count)
            if cheapest is None or by_price < cheapest[0]:
                cheapest = (by_price, {**setup, "usd_per_hour": min_count * price})
    return rows, (best[1] if best else None), (cheapest[1] if cheapest else None)


def cheapest_card(values: dict[str, Any], total: int, cards: int) -> dict[str, Any] | None:
    """The catalog card on which `cards` cards hold `total` bytes each, cheapest per hour on demand: where a
    lever that leaves the chosen card too small would fit. None when none does."""
    fitting = [
        (round(cards * price, 6), gpu["memory_gb"], gpu)
        for gpu in _data.gpus()
        if fits(total, gpu, values["margin"])["fits"] and (price := _data.hourly_price(gpu["id"])) is not None
    ]
    if not fitting:
        return None
    usd, _, gpu = min(fitting, key=lambda f: f[:2])
    return {"gpu": gpu["id"], "name": gpu["name"], "usd_per_hour": usd}


def shortcuts(run: Run) -> dict[str, Any]:
    """The rules of thumb readers meet, against this estimate on one GPU.

    "Parameters x bytes per parameter" counts only the stored weights (a lower bound);
    "+30-40 %" multiplies it by 1.3 or 1.4.
    """
    single = unsharded(dataclasses.replace(run, parallelism="single")).per_gpu(1)["total"]
    per_param = {"nf4": 0.5, "int8": 1.0}[run.quant] if run.method == "qlora" else BYTES[run.weights_dtype]
    base = run.params * per_param
    items = []
    for rule, factor in (("params_x_precision", 1.0), ("plus_30_percent", 1.3), ("plus_40_percent", 1.4)):
        estimate = round(base * factor)
        items.append(
            {
                "rule": rule,
                "factor": factor,
                "bytes": estimate,
                "difference_bytes": estimate - single,
                "ratio": estimate / single,
            }
        )
    return {"single_gpu_bytes": single, "bytes_per_param": per_param, "items": items}


def _total(values: dict[str, Any], **change: object) -> int:
    """Memory per GPU with some inputs changed: each lever is priced by re-running the same estimate."""
    changed = {**values, **change}
    total: int = unsharded(build_run(changed)).per_gpu(changed["gpus"])["total"]
    return total


def levers(values: dict[str, Any], gpu: dict[str, Any], current: int) -> list[dict[str, Any]]:
    """The changes that lower this run's memory per GPU (``current``), each with its figure on ``gpu`` and
    whether it then fits: {"lever", "bytes", "fits", and "batch" or "count" where it has one}. A change
    that leaves the peak where it is (say the fused loss when the optimizer step is the peak) is left out."""
    out, margin = [], values["margin"]

    def add(lever: str, total: int, **detail: int | str) -> None:
        if total < current:
            fit = fits(total, gpu, margin)["fits"]
            # Judged against every card too: one that still leaves this card short may fit another.
            elsewhere = None if fit else cheapest_card(values, total, int(detail.get("count", values["gpus"])))
            out.append({"lever": lever, "bytes": total, "fits": fit, "fits_elsewhere": elsewhere, **detail})

    if values["loss"] == "standard":
        add("fused_loss", _total(values, loss="fused"))
    if not values["gradient_checkpointing"]:
        add("checkpointing", _total(values, gradient_checkpointing=True))
    if values["micro_batch"] > 1:  # the largest smaller micro-batch (halving) that fits, else 1
        batch = values["micro_batch"]
        while batch > 1:
            batch //= 2
            total = _total(values, micro_batch=batch)
            if fits(total, gpu, margin)["fits"]:
                break
        add("micro_batch", total, batch=batch)
    if values["gpus"] > 1 and values["parallelism"] in SHARDING_ORDER:  # the least sharding that fits these cards
        for mode in SHARDING_ORDER[SHARDING_ORDER.index(values["parallelism"]) + 1 :]:
            total = _total(values, parallelism=mode)
            if fits(total, gpu, margin)["fits"]:
                add("sharding", total, mode=mode)
                break
    fewest = max(2, values["gpus"] + (values["parallelism"] == "fsdp"))
    state = unsharded(build_run({**values, "parallelism": "fsdp"}))
    for count in (n for n in card_counts("fsdp") if n >= fewest):
        total = state.per_gpu(count)["total"]
        if fits(total, gpu, margin)["fits"]:
            add("fsdp", total, count=count)
            break
    return out


def estimate(values: dict[str, Any]) -> dict[str, Any]:
    """Raw numbers of the memory estimate (no display); also used by the cost calculator."""
    run = build_run(values)
    state = unsharded(run)
    here = state.per_gpu(values["gpus"])
    trainable = sum(t.total for t in run.trainable())
    gpu_rows, smallest, cheapest = fit_table(state, values["gpus"], values["margin"])
    return {
        "params": run.params,
        "params_derived": run.arch.derived_params(),
        "head_dim": run.arch.d,
        "trainable_params": trainable,
        "trainable_fraction": trainable / run.params,
        "lora_params": 0 if run.method == "full" else trainable,
        "bytes": here["parts"],
        "per_gpu_bytes": here["total"],
        "gpus": values["gpus"],
        "host_bytes_per_gpu": here["host_bytes"],
        "all_gpus_bytes": here["total"] * values["gpus"],
        "detail": {
            **{k: round(v) for k, v in state.optimizer.items()},
            "activations_per_layer": round(state.activations["per_layer"]),
            **{k: round(v) for k, v in state.temporary.items()},
            "optimizer_step": here["optimizer_step"],
            **{"peak_" + k: v for k, v in here["peaks"].items()},
            "context": round(run.framework_bytes),
            "fragmentation": here["fragmentation"],
        },
        "gpu_fit": gpu_rows,
        "smallest": smallest,
        "cheapest": cheapest,
        "shortcuts": shortcuts(run),
    }


def answer(values: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    """The verdict's numbers for the chosen card: whether the run fits, and when it does not, the
    levers (``levers``); the master copy's share when one is kept."""
    gpu = _data.gpu(values["gpu"])
    fit = fits(r["per_gpu_bytes"], gpu, values["margin"])
    out = {
        "gpu": gpu["id"],
        "name": gpu["name"],
        "fits": fit["fits"],
        "free_bytes": fit["headroom_bytes"],
        "usable_bytes": round(fit["memory_bytes"] * (1 - values["margin"])),
        "levers": [] if fit["fits"] else levers(values, gpu, r["per_gpu_bytes"]),
    }
    if values["master_weights"]:
        out["master_copy_bytes"] = r["per_gpu_bytes"] - _total(values, master_weights=False)
    return out


def run(values: dict[str, Any]) -> dict[str, Any]:
    result = estimate(values)
    result["answer"] = answer(values, result)
    result["display"] = display(values, result, build_run(values))
    return result
