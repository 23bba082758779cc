"""Why the memory figure is what it is: a line beside the components that surprise readers.

Two cases (issue 51 item 5): a component above half of the memory per GPU gets the reason it is large
and the change that shrinks it, as a fix the reader can apply (`display.notes`); and a mixture of
experts under QLoRA says that its experts stay unquantized, since transformers keeps each layer's
experts as grouped 3-D tensors that bitsandbytes, which replaces `nn.Linear` layers only, leaves in
the load dtype (the memory model counts them so: `_memory_model.weight_bytes`).
"""

from __future__ import annotations

from typing import Any

from guidekit.calc.display import Note, value
from guidekit.l10n import N_

from ._memory_run import BYTES, Run

# Each component that can dominate: why it is large, and (when the inputs allow one) the change that
# shrinks it, as (msgid, its inputs or None when it does not apply).
_BIG: dict[str, Any] = {
    "weights": lambda v: (
        N_(
            "The weights are {share} of the memory per GPU: every parameter is stored in {dtype}. QLoRA "
            "stores the blocks' linear layers in 4 bits."
        )
        if v["method"] != "qlora"
        else N_(
            "The weights are {share} of the memory per GPU even in 4 bits: the embedding, the head and "
            "the norms stay in {dtype}, and the model is large for this card."
        ),
        {"method": "qlora"} if v["method"] != "qlora" else None,
    ),
    "gradients": lambda v: (
        N_(
            "The gradients are {share} of the memory per GPU: a full fine-tune keeps one for every "
            "weight. LoRA trains small adapters instead, whose gradients are tiny."
        ),
        {"method": "lora"} if v["method"] == "full" else None,
    ),
    "optimizer": lambda v: (
        N_(
            "The optimizer state is {share} of the memory per GPU: AdamW keeps two moments for every "
            "trained parameter. LoRA trains far fewer parameters; on several cards ZeRO and FSDP split "
            "the state among them."
        )
        if v["optimizer"].startswith("adamw")
        else N_(
            "The optimizer state is {share} of the memory per GPU: it is kept for every trained "
            "parameter. LoRA trains far fewer parameters; on several cards ZeRO and FSDP split the state "
            "among them."
        ),
        {"method": "lora"} if v["method"] == "full" else None,
    ),
    "activations": lambda v: (
        N_(
            "The activations are {share} of the memory per GPU: they grow with the micro-batch times the "
            "sequence length. Gradient checkpointing keeps each block's input only and recomputes the rest."
        )
        if not v["gradient_checkpointing"]
        else N_(
            "The activations are {share} of the memory per GPU even with gradient checkpointing: they "
            "grow with the micro-batch times the sequence length. A smaller micro-batch shrinks them."
        ),
        {"gradient_checkpointing": True}
        if not v["gradient_checkpointing"]
        else ({"micro_batch": v["micro_batch"] // 2} if v["micro_batch"] > 1 else None),
    ),
    "logits": lambda v: (
        N_(
            "The logits and the loss are {share} of the memory per GPU: one score per vocabulary entry "
            "for every token, in fp32. The fused loss computes them a chunk at a time."
        ),
        {"loss": "fused"} if v["loss"] == "standard" else None,
    ),
}


def expert_bytes(run: Run) -> int:
    """Bytes of the routed experts' weights as stored (what QLoRA leaves unquantized in a mixture of experts)."""
    return sum(t.total for t in run.base() if t.role.startswith("experts:")) * BYTES[run.weights_dtype]


def notes_for(values: dict[str, Any], run: Run, parts: dict[str, int], total: int) -> list[Note]:
    """The lines that explain this figure: a mixture of experts' unquantized experts under QLoRA, and
    the component above half of the total (at most one can be), with its fix."""
    out: list[Note] = []
    experts = expert_bytes(run) if run.method == "qlora" else 0
    if experts:
        out.append(
            (
                N_(
                    "QLoRA leaves the routed experts unquantized here: transformers stores each layer's "
                    "experts as grouped 3-D tensors, which bitsandbytes does not quantize, so {bytes} of the "
                    "weights stay in {dtype}."
                ),
                {"bytes": value(experts, "bytes"), "dtype": run.weights_dtype},
            )
        )
    for name, explain in _BIG.items():
        if name == "weights" and experts:
            continue  # the experts' line above is the reason
        if total and parts.get(name, 0) > total / 2:
            msg, fix = explain(values)
            params = {"share": value(parts[name] / total, "percent"), "dtype": run.weights_dtype}
            out.append((msg, params, fix) if fix else (msg, params))
    return out
