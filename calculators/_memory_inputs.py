"""The memory calculator's inputs, in the form's order: one declaration each drives validation, the form,
the shared link and the strings extracted for translation. The cost calculator reuses them for its memory
budget; the parallelism modes' search order and names live here beside the `parallelism` choice."""

from __future__ import annotations

from typing import Any

from guidekit.calc import Choice, Input
from guidekit.l10n import N_

from . import _data
from ._memory_run import DTYPES, OPTIMIZER_IMPLS
from .architecture import FAMILIES, LINEARS

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


def _dimension(name: str, kind: str, default: object, label: str, help: str = "", **limits: Any) -> Input:
    """One of the model's dimensions: typed by the reader only for a custom model (a preset fills it)."""
    return Input(name, kind, default, label, help, group=G_MODEL, only_when=CUSTOM_MODEL, **limits)


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
    _dimension(
        "family",
        "choice",
        "llama",
        N_("Model family"),
        N_(
            "The decoder block as transformers builds it: Gemma's extra norms and soft-capping, Qwen3's q/k norms, and the mixture-of-experts families' routed experts."
        ),
        choices=tuple((Choice(k, f.label) for k, f in FAMILIES.items())),
    ),
    _dimension(
        "params",
        "int",
        0,
        N_("Parameters"),
        N_("Total parameter count; 0 derives it from the dimensions."),
        unit="count",
        min=0,
        max=10**13,
        advanced=True,
        optional=True,
    ),
    _dimension("layers", "int", 32, N_("Layers"), unit="count", min=1, max=1000),
    _dimension("hidden", "int", 4096, N_("Hidden size"), unit="count", min=1, max=131072),
    _dimension("heads", "int", 32, N_("Attention heads"), unit="count", min=1, max=1024),
    _dimension(
        "kv_heads",
        "int",
        8,
        N_("Key/value heads"),
        N_("Fewer than the attention heads means grouped-query attention."),
        unit="count",
        min=1,
        max=1024,
    ),
    _dimension(
        "head_dim",
        "int",
        0,
        N_("Head dimension"),
        N_("0 means hidden size / heads."),
        unit="count",
        min=0,
        max=4096,
        advanced=True,
        optional=True,
    ),
    _dimension(
        "intermediate",
        "int",
        14336,
        N_("MLP intermediate size"),
        N_("For a mixture of experts, the width of each routed expert."),
        unit="count",
        min=1,
        max=1048576,
    ),
    _dimension(
        "experts",
        "int",
        8,
        N_("Experts per layer"),
        N_("Mixture-of-experts families only: the routed experts of each layer, all resident in memory."),
        unit="count",
        min=1,
        max=4096,
    ),
    _dimension(
        "experts_per_token",
        "int",
        2,
        N_("Experts per token"),
        N_("Mixture-of-experts families only: how many experts each token is routed to (top-k)."),
        unit="count",
        min=1,
        max=4096,
    ),
    _dimension(
        "shared_expert_intermediate",
        "int",
        0,
        N_("Shared expert intermediate size"),
        N_("Qwen2-MoE only: the width of the dense expert every token also goes through; 0 for none."),
        unit="count",
        min=0,
        max=1048576,
        advanced=True,
        optional=True,
    ),
    _dimension(
        "router_aux_loss",
        "bool",
        False,
        N_("Router auxiliary loss"),
        N_(
            "Mixture-of-experts families only: output_router_logits in the config.json, which keeps every layer's router logits for the load-balancing loss."
        ),
        advanced=True,
    ),
    _dimension("vocab", "int", 128256, N_("Vocabulary size"), unit="count", min=1, max=4194304),
    _dimension("tied_embeddings", "bool", False, N_("Tied input and output embeddings"), advanced=True),
    _dimension("qkv_bias", "bool", False, N_("Biases on q, k and v"), advanced=True),
    _dimension(
        "fused_projections",
        "bool",
        False,
        N_("Fused qkv and gate_up projections"),
        N_(
            "Phi-3 computes q, k and v in one layer and gate and up in another; LoRA then adapts each fused layer as a whole."
        ),
        advanced=True,
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


# Data parallelism from the least memory saved to the most. ZeRO-1 and -2 move as much data as DDP's
# all-reduce, FSDP (ZeRO-3) half as much again (Rajbhandari et al. 2020, "ZeRO", section 7), so the first
# that fits is the cheapest sharding that fits.
SHARDING_ORDER = ("ddp", "zero1", "zero2", "fsdp")
# The modes by the names frameworks give them: proper nouns, the same in every language.
MODE_NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "fsdp": "FSDP"}
