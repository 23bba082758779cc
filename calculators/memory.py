"""The memory calculator: training memory per GPU by component, and which GPUs fit.

Formulas and their sources are documented in ``_memory_model`` (ZeRO for model
states, Korthikanti et al. 2022 adapted for activations, QLoRA for NF4) and
``architecture`` (parameter and LoRA counts).
"""

from __future__ import annotations

import dataclasses
from operator import itemgetter
from typing import Any

from guidekit.calc import Choice, Input, error
from guidekit.calc.display import (
    Column,
    alternatives,
    bars,
    metric,
    metrics,
    notes,
    phrase,
    record_table,
    table,
    value,
    verdict,
)
from guidekit.l10n import N_, NN_, Msg

from . import _data, hf_config, memory_why
from ._memory_model import BYTES, COMPONENTS, DTYPES, OPTIMIZER_IMPLS, SHARDED_MODES, Run, Unsharded, unsharded
from .architecture import FAMILIES, LINEARS, MLP_LINEARS, MOE_FAMILIES, Architecture, partly_targeted, rank_limit

NAME = "memory"
TITLE = N_("Training memory per GPU")
IMPORT_PANEL = "estimate_vs_measured"
# A pilot result or a model's config.json dropped on the form is read by this guide's import panels.
IMPORTER = "gpuguide.results"
# Under the form: what its units and the catalog's prices mean.
FOOTNOTE = N_("GB = 10⁹ bytes. Prices are illustrative catalog figures in US dollars.")

G_MODEL, G_METHOD, G_RUN = N_("Model"), N_("Fine-tuning method"), N_("Training run")
G_PAR = N_("Parallelism and fit")  # its "More options" also holds the overheads beside offload
CUSTOM = "custom"
# Conditions under which some inputs apply (see Input.only_when).
CUSTOM_MODEL = ("model", ("custom",))
ADAPTER = ("method", ("lora", "qlora"))
QUANTIZED = ("method", ("qlora",))

ARCH_FIELDS = (
    "params",
    "family",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "intermediate",
    "vocab",
    "tied_embeddings",
    "qkv_bias",
    "fused_projections",
    "experts",
    "experts_per_token",
    "shared_expert_intermediate",
    "router_aux_loss",
)
MAX_SEARCH_CARDS = 1024

INPUTS = (
    Input(
        "model",
        "choice",
        "llama-3.1-8b",
        N_("Model"),
        N_("A preset fills the dimensions below from the model's config; choose custom to enter your own."),
        choices=tuple(Choice(m["id"], m["name"]) for m in _data.models()["models"])
        + (Choice(CUSTOM, N_("Custom dimensions")),),
        group=G_MODEL,
    ),
    Input(
        "family",
        "choice",
        "llama",
        N_("Model family"),
        N_(
            "The decoder block as transformers builds it: Gemma's extra norms and soft-capping, Qwen3's q/k "
            "norms, and the mixture-of-experts families' routed experts."
        ),
        choices=tuple(Choice(k, f.label) for k, f in FAMILIES.items()),
        group=G_MODEL,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "params",
        "int",
        0,
        N_("Parameters"),
        N_("Total parameter count; 0 derives it from the dimensions."),
        unit="count",
        min=0,
        max=10**13,
        group=G_MODEL,
        advanced=True,
        optional=True,
        only_when=CUSTOM_MODEL,
    ),
    Input("layers", "int", 32, N_("Layers"), unit="count", min=1, max=1000, group=G_MODEL, only_when=CUSTOM_MODEL),
    Input(
        "hidden", "int", 4096, N_("Hidden size"), unit="count", min=1, max=131072, group=G_MODEL, only_when=CUSTOM_MODEL
    ),
    Input(
        "heads", "int", 32, N_("Attention heads"), unit="count", min=1, max=1024, group=G_MODEL, only_when=CUSTOM_MODEL
    ),
    Input(
        "kv_heads",
        "int",
        8,
        N_("Key/value heads"),
        N_("Fewer than the attention heads means grouped-query attention."),
        unit="count",
        min=1,
        max=1024,
        group=G_MODEL,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "head_dim",
        "int",
        0,
        N_("Head dimension"),
        N_("0 means hidden size / heads."),
        unit="count",
        min=0,
        max=4096,
        group=G_MODEL,
        advanced=True,
        optional=True,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "intermediate",
        "int",
        14336,
        N_("MLP intermediate size"),
        N_("For a mixture of experts, the width of each routed expert."),
        unit="count",
        min=1,
        max=1048576,
        group=G_MODEL,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "experts",
        "int",
        8,
        N_("Experts per layer"),
        N_("Mixture-of-experts families only: the routed experts of each layer, all resident in memory."),
        unit="count",
        min=1,
        max=4096,
        group=G_MODEL,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "experts_per_token",
        "int",
        2,
        N_("Experts per token"),
        N_("Mixture-of-experts families only: how many experts each token is routed to (top-k)."),
        unit="count",
        min=1,
        max=4096,
        group=G_MODEL,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "shared_expert_intermediate",
        "int",
        0,
        N_("Shared expert intermediate size"),
        N_("Qwen2-MoE only: the width of the dense expert every token also goes through; 0 for none."),
        unit="count",
        min=0,
        max=1048576,
        group=G_MODEL,
        advanced=True,
        optional=True,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "router_aux_loss",
        "bool",
        False,
        N_("Router auxiliary loss"),
        N_(
            "Mixture-of-experts families only: output_router_logits in the config.json, which keeps every "
            "layer's router logits for the load-balancing loss."
        ),
        group=G_MODEL,
        advanced=True,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "vocab",
        "int",
        128256,
        N_("Vocabulary size"),
        unit="count",
        min=1,
        max=4194304,
        group=G_MODEL,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "tied_embeddings",
        "bool",
        False,
        N_("Tied input and output embeddings"),
        group=G_MODEL,
        advanced=True,
        only_when=CUSTOM_MODEL,
    ),
    Input("qkv_bias", "bool", False, N_("Biases on q, k and v"), group=G_MODEL, advanced=True, only_when=CUSTOM_MODEL),
    Input(
        "fused_projections",
        "bool",
        False,
        N_("Fused qkv and gate_up projections"),
        N_(
            "Phi-3 computes q, k and v in one layer and gate and up in another; LoRA then adapts each "
            "fused layer as a whole."
        ),
        group=G_MODEL,
        advanced=True,
        only_when=CUSTOM_MODEL,
    ),
    Input(
        "method",
        "choice",
        "lora",
        N_("Method"),
        choices=(
            Choice("full", N_("Full fine-tune")),
            Choice("lora", N_("LoRA")),
            Choice("qlora", N_("QLoRA (quantized base + LoRA)")),
        ),
        group=G_METHOD,
    ),
    Input("lora_rank", "int", 16, N_("LoRA rank"), unit="count", min=1, max=4096, group=G_METHOD, only_when=ADAPTER),
    Input(
        "lora_targets",
        "multichoice",
        list(LINEARS),
        N_("LoRA target modules"),
        N_(
            "On a mixture of experts, gate, up and down adapt every routed expert (peft's target_parameters, "
            "which takes gate and up together) and the shared expert."
        ),
        choices=tuple(Choice(n, n + "_proj") for n in LINEARS),
        group=G_METHOD,
        only_when=ADAPTER,
    ),
    Input(
        "quant",
        "choice",
        "nf4",
        N_("QLoRA base-weight format"),
        choices=(Choice("nf4", N_("4-bit NF4")), Choice("int8", N_("8-bit integer"))),
        group=G_METHOD,
        advanced=True,
        only_when=QUANTIZED,
    ),
    Input(
        "double_quant",
        "bool",
        True,
        N_("Double quantization of NF4 constants"),
        group=G_METHOD,
        advanced=True,
        only_when=QUANTIZED,
    ),
    Input(
        "lora_dropout",
        "float",
        0.0,
        N_("LoRA dropout"),
        N_("peft's lora_dropout. Above 0 each adapted layer keeps a dropout output and its mask."),
        unit="percent",
        min=0,
        max=0.9,
        step=0.01,
        group=G_METHOD,
        advanced=True,
        only_when=ADAPTER,
    ),
    Input(
        "adapter_dtype",
        "choice",
        "fp32",
        N_("Adapter weights"),
        N_("peft keeps LoRA adapters in fp32 on a 16-bit base unless told otherwise."),
        choices=(Choice("fp32", N_("fp32 (peft's default)")), Choice("weights", N_("Same as the base weights"))),
        group=G_METHOD,
        advanced=True,
        only_when=ADAPTER,
    ),
    Input(
        "weights_dtype",
        "choice",
        "bf16",
        N_("Weights as loaded"),
        N_(
            "The dtype the model's parameters are loaded in: transformers loads a checkpoint in its own "
            "dtype (usually bf16); a model built without one is fp32."
        ),
        choices=tuple(Choice(d, d) for d in DTYPES),
        group=G_RUN,
    ),
    Input(
        "autocast",
        "choice",
        "bf16",
        N_("Autocast"),
        N_("Mixed-precision autocast around the forward pass, as Trainer(bf16=True) or fp16=True turns on."),
        choices=(Choice("off", N_("Off")), Choice("bf16", "bf16"), Choice("fp16", "fp16")),
        group=G_RUN,
    ),
    Input(
        "master_weights",
        "bool",
        True,
        N_("fp32 master copy of trainable weights"),
        N_(
            "A 4-byte copy of each 16-bit trainable weight, which the optimizer updates. Kept by DeepSpeed's "
            "bf16 or fp16 mixed precision and by FSDP's (fp32 parameters, 16-bit compute); none with the Hugging "
            "Face Trainer on a model loaded in bf16. PyTorch AMP on a model loaded in fp32 needs none: its weights "
            "are already fp32 (set “Weights as loaded” to fp32). The result says what the copy adds for this run."
        ),
        group=G_RUN,
    ),
    Input(
        "optimizer",
        "choice",
        "adamw",
        N_("Optimizer"),
        choices=(
            Choice("adamw", N_("AdamW")),
            Choice("adamw_8bit", N_("8-bit AdamW")),
            Choice("sgd_momentum", N_("SGD with momentum")),
            Choice("adafactor", N_("Adafactor")),
        ),
        group=G_RUN,
    ),
    Input(
        "optimizer_impl",
        "choice",
        "fused",
        N_("AdamW implementation"),
        N_(
            "PyTorch's code path for the optimizer step: fused (what the transformers Trainer picks) holds "
            "no temporary, foreach (torch.optim.AdamW's default on GPUs) one as large as an optimizer state, "
            "single-tensor (its default on CPUs) twice the largest tensor."
        ),
        choices=tuple(
            Choice(v, label) for v, label in zip(OPTIMIZER_IMPLS, (N_("foreach"), N_("fused"), N_("single-tensor")))
        ),
        group=G_RUN,
        advanced=True,
    ),
    Input("seq_len", "int", 2048, N_("Sequence length"), unit="tokens", min=1, max=1048576, group=G_RUN),
    Input(
        "micro_batch",
        "int",
        4,
        N_("Micro-batch size"),
        N_("Sequences per GPU per forward pass."),
        unit="count",
        min=1,
        max=4096,
        group=G_RUN,
    ),
    Input("gradient_checkpointing", "bool", True, N_("Gradient checkpointing"), group=G_RUN),
    Input(
        "grad_accumulation",
        "bool",
        False,
        N_("Gradient accumulation"),
        N_(
            "Several micro-batches per optimizer step: the gradients stay allocated through the forward "
            "and backward passes of the later micro-batches."
        ),
        group=G_RUN,
    ),
    Input(
        "attention",
        "choice",
        "fused",
        N_("Attention kernel"),
        choices=(Choice("fused", N_("Fused (SDPA / FlashAttention)")), Choice("eager", N_("Eager"))),
        group=G_RUN,
        advanced=True,
    ),
    Input(
        "loss",
        "choice",
        "standard",
        N_("Loss implementation"),
        N_("A fused linear cross-entropy never materialises the logits."),
        choices=(
            Choice("standard", N_("Standard cross-entropy")),
            Choice("fused", N_("Fused linear cross-entropy (Liger Kernel, Cut Cross-Entropy)")),
        ),
        group=G_RUN,
        advanced=True,
    ),
    Input(
        "offload",
        "choice",
        "none",
        N_("CPU offload"),
        N_("ZeRO-Offload or FSDP CPU offload: what moves to host RAM. Parameter offload needs FSDP / ZeRO-3."),
        choices=(
            Choice("none", N_("None")),
            Choice("optimizer", N_("Optimizer state")),
            Choice("optimizer_params", N_("Optimizer state and parameters")),
        ),
        group=G_PAR,
        advanced=True,
    ),
    Input(
        "gpu",
        "choice",
        "h100-sxm-80gb",
        N_("GPU"),
        N_("The card the answer is about; the table below covers every catalog GPU."),
        choices=tuple(Choice(g["id"], g["name"]) for g in _data.gpus()),
        group=G_PAR,
    ),
    Input(
        "parallelism",
        "choice",
        "single",
        N_("Parallelism"),
        choices=(
            Choice("single", N_("One GPU")),
            Choice("ddp", N_("DDP (replicated)")),
            Choice("zero1", N_("ZeRO-1 (optimizer sharded)")),
            Choice("zero2", N_("ZeRO-2 (optimizer and gradients sharded)")),
            Choice("fsdp", N_("FSDP / ZeRO-3 (everything sharded)")),
        ),
        group=G_PAR,
    ),
    Input("gpus", "int", 1, N_("GPUs"), unit="count", min=1, max=MAX_SEARCH_CARDS, group=G_PAR),
    Input(
        "margin",
        "float",
        0.1,
        N_("Reserve"),
        N_("Share of each GPU's memory kept unused: the run must fit in the rest."),
        unit="percent",
        min=0,
        max=0.9,
        step=0.01,
        group=G_PAR,
    ),
    Input(
        "framework_gb",
        "float",
        1.0,
        N_("CUDA/ROCm context and libraries"),
        unit="gb",
        min=0,
        max=64,
        step=0.1,
        group=G_PAR,
        advanced=True,
    ),
    Input(
        "fragmentation",
        "float",
        0.1,
        N_("Allocator fragmentation"),
        N_("Extra reserved memory as a share of the tensors."),
        unit="percent",
        min=0,
        max=1,
        step=0.01,
        group=G_PAR,
        advanced=True,
    ),
    Input(
        "extra_temp_gb",
        "float",
        0.0,
        N_("Other temporary buffers"),
        unit="gb",
        min=0,
        max=4096,
        step=0.1,
        group=G_PAR,
        advanced=True,
    ),
)


_DEFAULTS = {inp.name: inp.default for inp in INPUTS}


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


def fit_table(state: Unsharded, gpus: int, margin: float) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Fit of the chosen configuration on every catalog GPU, and the smallest fitting one.

    "Smallest" = fewest cards, then least total memory (cards x capacity).
    """
    totals = {n: state.per_gpu(n)["total"] for n in card_counts(state.run.parallelism)}
    here = state.per_gpu(gpus)["total"]
    rows, best = [], None
    for gpu in _data.gpus():
        min_count = next((n for n, t in totals.items() if fits(t, gpu, margin)["fits"]), None)
        rows.append({"gpu": gpu["id"], "name": gpu["name"], **fits(here, gpu, margin), "min_count": min_count})
        if min_count is not None:
            key = (min_count, min_count * gpu["memory_gb"])
            if best is None or key < best[0]:
                best = (
                    key,
                    {"gpu": gpu["id"], "name": gpu["name"], "count": min_count, "per_gpu_bytes": totals[min_count]},
                )
    return rows, (best[1] if best else None)


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
            out.append({"lever": lever, "bytes": total, "fits": fits(total, gpu, margin)["fits"], **detail})

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
    gpu_rows, smallest = fit_table(state, values["gpus"], values["margin"])
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


COMPONENT_LABELS = {
    "weights": N_("Weights"),
    "gradients": N_("Gradients"),
    "optimizer": N_("Optimizer state and master copy"),
    "activations": N_("Activations"),
    "logits": N_("Logits and loss"),
    "temporary": N_("Temporary buffers"),
    "framework": N_("Framework and fragmentation"),
}
_RULE_LABELS = {
    "params_x_precision": N_("Parameters × bytes per parameter"),
    "plus_30_percent": N_("Parameters × bytes, +30 %"),
    "plus_40_percent": N_("Parameters × bytes, +40 %"),
}


LEVERS_TITLE = N_("What lowers the memory per GPU on this card")
# Data parallelism from the least memory saved to the most. ZeRO-1 and -2 move as much data as DDP's
# all-reduce, FSDP (ZeRO-3) half as much again (Rajbhandari et al. 2020, "ZeRO", section 7), so the first
# that fits is the cheapest sharding that fits.
SHARDING_ORDER = ("ddp", "zero1", "zero2", "fsdp")
# The modes by the names frameworks give them: proper nouns, the same in every language.
MODE_NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "fsdp": "FSDP"}
_LEVERS = {
    "fused_loss": N_("Fused linear cross-entropy loss (Loss implementation)"),
    "checkpointing": N_("Gradient checkpointing on"),
    "micro_batch": N_("Micro-batch of {batch}"),
    "sharding": N_("{mode} on the same {count} cards"),
    "fsdp": N_("FSDP across {count} cards"),
}
# The same levers as alternatives in the verdict's sentence.
_OPTIONS = {
    "fused_loss": N_("the same card with the fused loss"),
    "checkpointing": N_("the same card with gradient checkpointing"),
    "micro_batch": N_("the same card with a micro-batch of {batch}"),
    "sharding": N_("{count} × {gpu} with {mode}"),
    "fsdp": N_("{count} × {gpu} with FSDP"),
}


def _lever_params(lever: dict[str, Any], name: str, gpus: int) -> dict[str, Any]:
    count = lever.get("count", gpus if lever["lever"] == "sharding" else None)
    return {
        "batch": value(lever.get("batch"), "count"),
        "count": value(count, "count"),
        "gpu": name,
        "mode": MODE_NAMES.get(lever.get("mode", ""), ""),
    }


def _lever_inputs(lever: dict[str, Any]) -> dict[str, Any]:
    """A lever as the inputs that apply it (the answer's one-tap fix)."""
    kind = lever["lever"]
    if kind == "fused_loss":
        return {"loss": "fused"}
    if kind == "checkpointing":
        return {"gradient_checkpointing": True}
    if kind == "micro_batch":
        return {"micro_batch": lever["batch"]}
    if kind == "sharding":
        return {"parallelism": lever["mode"]}
    return {"parallelism": "fsdp", "gpus": lever["count"]}


def _verdict(values: dict[str, Any], r: dict[str, Any], a: dict[str, Any]) -> dict[str, Any]:
    """One sentence: does the run fit on the chosen card, and if not, what does."""
    here = {"count": value(values["gpus"], "count"), "gpu": a["name"], "needed": value(r["per_gpu_bytes"], "bytes")}
    if a["fits"]:
        return verdict(
            N_("Fits on {count} × {gpu}: {needed} needed per GPU, {free} left free."),
            {**here, "free": value(a["free_bytes"], "bytes")},
            "ok",
            short=phrase(N_("Fits on {count} × {gpu}: {needed} per GPU."), dict(here)),
        )
    # The sticky headline: the card and the need; what fits instead stays in the result.
    short = phrase(N_("Does not fit on {count} × {gpu}: {needed} per GPU."), dict(here))
    options = []
    smallest = r["smallest"]
    if smallest:
        options.append(
            phrase(N_("{count} × {gpu}"), {"count": value(smallest["count"], "count"), "gpu": smallest["name"]})
        )
    options += [
        phrase(_OPTIONS[lv["lever"]], _lever_params(lv, a["name"], values["gpus"])) for lv in a["levers"] if lv["fits"]
    ]
    here["usable"] = value(a["usable_bytes"], "bytes")
    if not options:
        return verdict(
            N_(
                "Does not fit on {count} × {gpu}: {needed} needed per GPU, {usable} usable after the "
                "reserve; no catalog GPU fits it with these settings."
            ),
            here,
            "bad",
            short,
        )
    return verdict(
        N_(
            "Does not fit on {count} × {gpu}: {needed} needed per GPU, {usable} usable after the reserve; "
            "what fits: {options}."
        ),
        {**here, "options": alternatives(options)},
        "bad",
        short,
    )


# The fit table's columns: the answer (fits, cards needed, headroom) right after the name, the card's
# size last, so a phone shows the deciding columns before the table scrolls.
FIT_COLUMNS: list[Column] = [
    (N_("GPU"), "raw", itemgetter("name")),
    (N_("Fits with the reserve"), "bool", itemgetter("fits")),
    (N_("Cards needed"), "count", itemgetter("min_count")),
    (N_("Free memory"), "bytes", itemgetter("headroom_bytes")),
    (N_("Free share"), "percent", itemgetter("headroom_fraction")),
    (N_("Memory"), "gb", lambda g: g["memory_bytes"] / 1e9),
]


def _display(values: dict[str, Any], r: dict[str, Any]) -> list[dict[str, Any]]:
    smallest, a = r["smallest"], r["answer"]
    head = [
        metric(N_("Memory per GPU"), r["per_gpu_bytes"], "bytes"),
        metric(N_("Trainable parameters"), r["trainable_params"], "count"),
        metric(N_("Trainable share"), r["trainable_fraction"], "percent"),
    ]
    if values["offload"] != "none":  # what CPU offload moves to the host, beside the GPU figure
        head.insert(1, metric(N_("Host RAM per GPU (offload)"), r["host_bytes_per_gpu"], "bytes"))
    if smallest:  # names its card: a bare green "1" read as "one of the card I chose"
        head.append(metric(N_("Smallest setup that fits"), f"{smallest['count']} × {smallest['name']}", "raw", "ok"))
    rule_rows = [
        [_RULE_LABELS[i["rule"]], i["bytes"], i["difference_bytes"], i["ratio"]] for i in r["shortcuts"]["items"]
    ]
    peaks = {k: value(r["detail"]["peak_" + k], "bytes") for k in ("forward_backward", "optimizer_step")}
    note_items: list[tuple[Msg, dict[str, Any]]]
    note_items = [
        (
            N_(
                "The components are not all allocated at once, so the memory per GPU is the higher "
                "of two peaks, not the sum of the bars: {forward_backward} in the forward and "
                "backward passes (activations and logits), {optimizer_step} in the optimizer step "
                "(gradients and the step's temporary buffers)."
            ),
            peaks,
        )
    ]
    if a.get("master_copy_bytes"):
        note_items.append(
            (
                N_(
                    "The fp32 master copy adds {bytes} per GPU here. DeepSpeed's and FSDP's mixed "
                    "precision keep one; the Hugging Face Trainer on a model loaded in bf16 keeps none: "
                    "switch it off to match that."
                ),
                {"bytes": value(a["master_copy_bytes"], "bytes")},
            )
        )
    if values["params"] and values["params"] < r["params_derived"]:
        note_items.append(
            (
                NN_(
                    "The dimensions imply {derived} parameter; the entered count is lower and was not used.",
                    "The dimensions imply {derived} parameters; the entered count is lower and was not used.",
                    n="derived",
                ),
                {"derived": value(r["params_derived"], "count")},
            )
        )
    note_items.append(
        (
            N_("Rules of thumb are compared with this run on one GPU: {bytes}."),
            {"bytes": value(r["shortcuts"]["single_gpu_bytes"], "bytes")},
        )
    )
    # The levers, each a fix the reader can apply, right under the answer's sentence.
    blocks = [_verdict(values, r, a)]
    if a["levers"]:
        blocks.append(
            notes(
                [
                    (
                        N_("{change}: {needed} per GPU ({outcome})."),
                        {
                            "change": phrase(_LEVERS[lv["lever"]], _lever_params(lv, a["name"], values["gpus"])),
                            "needed": value(lv["bytes"], "bytes"),
                            "outcome": phrase(N_("fits") if lv["fits"] else N_("still too large")),
                        },
                        _lever_inputs(lv),
                    )
                    for lv in a["levers"]
                ],
                title=LEVERS_TITLE,
            )
        )
    blocks.append(metrics(N_("Memory per GPU"), head))
    # Beside the figure: why it is what it is, when a component dominates or QLoRA leaves experts whole.
    why = memory_why.notes_for(values, build_run(values), r["bytes"], r["per_gpu_bytes"])
    if why:
        blocks.append(notes(why, title=N_("Why this figure")))
    return blocks + [
        bars(N_("Memory per GPU by component"), "bytes", [(COMPONENT_LABELS[c], r["bytes"][c]) for c in COMPONENTS]),
        record_table(N_("Which GPUs fit"), FIT_COLUMNS, r["gpu_fit"]),
        table(
            N_("Rules of thumb against this estimate"),
            [
                (N_("Rule"), "text"),
                (N_("Memory"), "bytes"),
                (N_("Difference"), "bytes"),
                (N_("Share of the estimate"), "percent"),
            ],
            rule_rows,
        ),
        notes(note_items),
    ]


def run(values: dict[str, Any]) -> dict[str, Any]:
    result = estimate(values)
    result["answer"] = answer(values, result)
    result["display"] = _display(values, result)
    return result
