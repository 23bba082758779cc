"""Training memory per GPU, by component, in bytes.

Model states follow Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models" (arXiv:1910.02054), section 3.1: mixed-precision
Adam keeps fp16/bf16 parameters (2 bytes) and gradients (2 bytes) plus an fp32
parameter copy and fp32 momentum and variance (K = 12 bytes), 16 bytes per
parameter; ZeRO-1 shards the optimizer states (master copy included), ZeRO-2 also
the gradients, ZeRO-3 (= PyTorch FSDP FULL_SHARD) also the parameters, over N
data-parallel ranks.

Activations follow Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models" (arXiv:2205.05198), section 4.1: per layer
``s*b*h*(34 + 5*a*s/h)`` bytes for a GPT block in 16-bit with dropout. Adapted here,
tensor by tensor and with each tensor's dtype, to the Llama-style block as transformers
implements it (s = sequence length, b = micro-batch, h = hidden, a = heads, p = bytes of an
activation element in the dtype that tensor has; see ``_linear`` for autocast and peft copies):

* no dropout in the base model; peft's LoRA dropout saves its output and a mask per adapted
  layer (one byte per value on CUDA), no mask where its input needs no gradient (the first
  block's q, k and v, read from the frozen embedding);
* the MLP is gated (SwiGLU/GeGLU) of width I instead of a 4h GeLU MLP: the gate
  output (SiLU input), SiLU output and up output are saved (3*p*s*b*I), plus the
  down-projection input (p*s*b*I) when that layer learns;
* grouped-query attention: k and v have ``kv_heads*head_dim`` columns;
* each RMSNorm computes in fp32 (transformers' LlamaRMSNorm upcasts its input; so does
  autocast): it saves the fp32 copy of its input and an fp32 1/rms per token
  (4*s*b*h + 4*s*b) and, when its weight learns, the normalised output that multiplies
  the weight, in the working dtype (p*s*b*h);
* a linear layer keeps its input only when its weight or a LoRA adapter on it learns:
  a frozen weight needs no input to back-propagate (LoRA saves x for A and the
  rank-r output of A for B);
* fused attention (SDPA/FlashAttention, Dao et al. 2022) saves q, k, v, the output
  and an fp32 log-sum-exp per head and token, with no s^2 term; eager attention
  saves q, k and v expanded to all heads, and the s^2 probabilities twice: the fp32
  softmax output and its copy in the working dtype (transformers' eager path);
* Phi-3 fuses q/k/v and gate/up into one projection each: one LoRA adapter (and one cast and
  dropout of its input) per fused module, and v reaches attention as a view of the fused output,
  which keeps q's and k's columns of it alive too;
* gradient checkpointing per block keeps each block's input (p*s*b*h, the
  Korthikanti "2sbhL" full-recomputation term) plus one block's activations while
  it is recomputed, and that block's backward transients (``backward_transient_bytes``) or, where
  larger, what its recomputed forward holds unsaved at down's adapter (``recompute_transient_bytes``);
* the other families (``architecture.FAMILIES``) as transformers 5 builds them: Gemma's four norms
  scale in fp32 (an fp32 normalised copy each) and Gemma 2 soft-caps its eager attention scores and
  its final logits (tanh saves its output); q/k norms (Qwen3, Gemma 3, Qwen3-MoE per head, OLMoE over
  the projection) are norms over q and k; a mixture of experts routes each token to k experts, and its
  grouped matmuls save per (token, expert) pair what a dense MLP saves per token (``_moe``).

The per-GPU total is the peak, not the sum of the components, because gradients and
activations are not alive together (PyTorch's ``zero_grad(set_to_none=True)``, the
default, frees the gradients after each step): the forward and backward passes hold
the activations and the logits buffers while the gradients are still being produced
(each is allocated as the activations it needs are freed), and the optimizer step holds
all gradients plus the step's temporaries after the activations are gone. With gradient
checkpointing the logits buffers are freed before the last block is recomputed, so the
backward pass holds the larger of the two, not both. The backward pass has a second candidate peak where it
reaches the first block: that block's activations beside the gradients of everything after it, the larger
where a block's gradients outweigh its activations (``Unsharded.first_block_backward_bytes``). Checked against
the real stack by ``benchmarks/memory_accuracy.py`` (transformers + peft, 97 configurations over eleven model
types), and each
block's saved bytes against what autograd saves, family by family (``tests/pilot/test_families.py``).
Gradient accumulation keeps the gradients through the next micro-batches' passes, so they join both phases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from guidekit.calc import kept, key_of

from ._memory_passes import activation_bytes, logits_bytes, logits_forward_bytes, recompute_transient_bytes
from ._memory_run import ADAM8_BLOCK, ADAM8_MIN_SIZE, DQ_BLOCK, NF4_BLOCK, SHARDS, Run


def quantized_bytes(numel: int, out_rows: int, quant: str, double_quant: bool) -> float:
    """Bytes of one quantized linear weight.

    NF4 (Dettmers et al. 2023, "QLoRA", section 3): 4 bits per weight plus one fp32
    absmax per block of 64 (0.5 bit/param); double quantization stores those absmaxes
    in 8 bits with one fp32 constant per 256 of them (8/64 + 32/(64*256) = 0.127
    bit/param). int8 (LLM.int8(), Dettmers et al. 2022): 1 byte per weight plus one
    fp32 scale per output row.
    """
    if quant == "int8":
        return numel + 4 * out_rows
    blocks = math.ceil(numel / NF4_BLOCK)
    constants = blocks + 4 * math.ceil(blocks / DQ_BLOCK) if double_quant else 4 * blocks
    return math.ceil(numel / 2) + constants


def weight_bytes(run: Run) -> float:
    """Frozen or trainable base weights at their storage precision, plus LoRA adapters.

    Full and LoRA: every base tensor at the working precision. QLoRA: the block linears
    are quantized; embeddings, LM head, norms and biases stay at the working precision
    (bitsandbytes quantizes nn.Linear layers only and transformers skips the LM head).
    LoRA adapters are counted in their own dtype: fp32 by default, as peft keeps them on a
    16-bit base (``autocast_adapter_dtype=True``). A master copy, when chosen, is counted with
    the optimizer, as ZeRO does.
    """
    total = 0.0
    for t in run.base():
        if run.method == "qlora" and t.role.startswith("linear:"):
            total += t.count * quantized_bytes(t.numel, t.rows, run.quant, run.double_quant)
        else:
            total += t.total * run.p
    if run.method != "full":
        total += run.arch.lora_params(run.lora_rank, run.lora_targets) * run.pt
    return total


def gradient_bytes(run: Run) -> float:
    """One gradient per trainable parameter, in the trainable parameters' dtype."""
    return sum(t.total for t in run.trainable()) * run.pt


def state_bytes_per_param(run: Run) -> int:
    """PyTorch optimizers keep state in the dtype of the parameter they update: fp32
    for fp32 parameters or when an fp32 master copy is kept, else the 16-bit dtype."""
    return 4 if run.has_master else run.pt


def optimizer_bytes(run: Run) -> dict[str, float]:
    """Master copy and optimizer states, per the chosen optimizer.

    AdamW (Loshchilov & Hutter 2019): two moments per parameter. 8-bit AdamW
    (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization"): two 1-byte
    states plus one fp32 absmax per 2048 values each; tensors under 4096 values keep
    fp32 states. SGD with momentum: one buffer. Adafactor (Shazeer & Stern 2018) without
    first moment: fp32 row and column second-moment factors for matrices, a full fp32
    second moment for vectors.
    """
    trainable = run.trainable()
    n = sum(t.total for t in trainable)
    master = 4 * n if run.has_master else 0
    s = state_bytes_per_param(run)
    if run.optimizer == "adamw":
        states = 2 * s * n
    elif run.optimizer == "sgd_momentum":
        states = s * n
    elif run.optimizer == "adamw_8bit":
        states = sum(
            t.count
            * (2 * t.numel + 2 * 4 * math.ceil(t.numel / ADAM8_BLOCK) if t.numel >= ADAM8_MIN_SIZE else 8 * t.numel)
            for t in trainable
        )
    else:  # adafactor: a row and a column factor per matrix (per expert, for the experts' 3-D tensors)
        states = sum(t.count * t.group * 4 * ((t.rows + t.cols) if t.cols > 1 else t.rows) for t in trainable)
    return {"master_weights": master, "optimizer_states": states}


def optimizer_step_bytes(run: Run) -> float:
    """Temporaries of the optimizer step, alive with all gradients and states.

    PyTorch AdamW: the foreach path (its default on GPUs) computes sqrt(v) for every
    tensor at once, one state's worth of bytes; the single-tensor path (its default on
    CPUs) holds sqrt(v) and sqrt(v)/bias correction for one tensor at a time, twice the
    largest trainable tensor; the fused kernel holds none. Adafactor (the transformers
    implementation, one tensor at a time) holds the squared gradient and the factored
    update, twice the largest tensor in fp32. SGD with momentum updates in place, and
    8-bit AdamW dequantizes inside its kernel: no temporaries counted.
    """
    trainable = run.trainable()
    largest = max((t.numel for t in trainable), default=0)
    if run.optimizer == "adamw":
        s = state_bytes_per_param(run)
        if run.optimizer_impl == "foreach":
            return s * sum(t.total for t in trainable)
        return 2 * s * largest if run.optimizer_impl == "single_tensor" else 0
    return 2 * 4 * largest if run.optimizer == "adafactor" else 0


def tied_gradient_tail_bytes(run: Run) -> float:
    """The end of the backward pass of a full fine-tune with a tied embedding and LM head, beyond all gradients.

    autograd sums a parameter's two gradients before its one accumulation: the head's waits from the start
    of the backward pass, the embedding's comes last, and their sum is a third table of vocab x hidden,
    two more than the gradients count (three with gradient accumulation, whose kept gradient is counted
    already). In a shallow model with a large vocabulary this is the peak (Gemma 3 4B's width, two layers,
    fp32: 10 % more than the optimizer step).
    """
    a = run.arch
    if not (a.tied and run.method == "full"):
        return 0.0
    return (2 + bool(run.grad_accumulation)) * a.vocab * a.hidden * run.pt


def temporary_bytes(run: Run) -> dict[str, float]:
    """Transient buffers besides the optimizer step's (``optimizer_step_bytes``).

    FSDP/ZeRO-3 gathers one block's full parameters while prefetching the next, and
    holds one block's full gradient before the reduce-scatter. DDP's reducer keeps
    gradient buckets as large as all gradients (PyTorch default
    ``gradient_as_bucket_view=False``) for the whole run. QLoRA dequantizes the largest linear weight to
    the compute dtype for each matmul. The gather and the dequantized weight live in the
    forward and backward passes; the buckets and ``extra`` (the user's allowance) in both.
    """
    a, p = run.arch, run.p
    out = {"fsdp_gather": 0.0, "ddp_buckets": 0.0, "dequant_buffer": 0.0, "extra": run.extra_temp_bytes}
    if run.parallelism == "fsdp":
        block = a.block_params()
        if run.method == "qlora":  # gathered as stored: quantized linears, the rest (experts, norms) at p bytes
            block_bytes = sum(
                quantized_bytes(t.numel, t.rows, run.quant, run.double_quant)
                if t.role.startswith("linear:")
                else t.numel * p
                for t in a.block_tensors()
                for _ in range(t.count)
            )
        else:
            block_bytes = block * p
        trainable_block = block if run.method == "full" else a.lora_params(run.lora_rank, run.lora_targets) / a.layers
        out["fsdp_gather"] = 2 * block_bytes + trainable_block * run.pt
    if run.parallelism == "ddp":
        out["ddp_buckets"] = gradient_bytes(run)
    if run.method == "qlora":
        out["dequant_buffer"] = max(i * o for i, o in a.linear_shapes().values()) * run.pc
    return out


@dataclass(frozen=True)
class Unsharded:
    """Components before dividing over ranks; ``per_gpu(n)`` applies the ZeRO stage."""

    run: Run
    weights: float
    gradients: float
    optimizer: dict[str, float]
    activations: dict[str, float]
    logits: float
    temporary: dict[str, float]
    optimizer_step: float

    def passes_bytes(self) -> float:
        """Activations and logits buffers at their peak in the forward and backward passes."""
        run, acts = self.run, self.activations
        # The backward pass starts with the logits buffers and the head's saved tensors; both are
        # freed before the blocks' backward, whose transients then sit on the saved activations.
        head = acts["final"] + self.logits
        if not run.checkpointing:
            return acts["total"] - acts["final"] + max(head, acts["backward_transient"])
        # In fp32 the first norm saves the block input itself, already counted as a checkpoint.
        own_input = run.p * run.seq_len * run.micro_batch * run.arch.hidden if run.p == 4 else 0
        block = acts["per_layer"] - own_input
        backward = acts["checkpoints"] + max(
            head, block + max(acts["backward_transient"], recompute_transient_bytes(run))
        )
        forward = acts["checkpoints"] + acts["cached_weights"] + acts["final"] + logits_forward_bytes(self.run)
        return max(backward, forward)

    def first_block_backward_bytes(self) -> tuple[float, float]:
        """(activations, gradients) as the backward pass reaches the first block: what that block holds
        (its input and, with checkpointing, its recomputed forward) with its transients, beside the gradients
        of everything after it. Gradients accumulate through the backward pass while the saved activations
        shrink, so where a block's gradients outweigh its saved activations (a full fine-tune with few tokens
        per micro-batch, and an optimizer whose step needs no buffers, such as SGD with momentum) the peak
        is here, not where the passes start (issue 52 item 9). The first block's own down projection has its
        weight gradient by the MLP's transient moment; an untied embedding gets its gradient only after."""
        run, acts = self.run, self.activations
        a, layers = run.arch, run.arch.layers
        sb = run.seq_len * run.micro_batch
        transient = max(acts["backward_transient"], recompute_transient_bytes(run))
        if run.checkpointing:
            own_input = run.p * sb * a.hidden if run.p == 4 else 0
            held = run.p * sb * a.hidden + acts["per_layer"] - own_input
        else:
            held = acts["first"]
        trainable = sum(t.total for t in run.trainable())
        first_block: float
        if run.method == "full":
            down = None if a.moe else a.linear_shapes().get("down")
            first_block = a.block_params() - (math.prod(down) if down else 0)
            embedding = 0 if a.tied else a.vocab * a.hidden  # a tied table takes the head's gradient first
        else:
            first_block, embedding = a.lora_params(run.lora_rank, run.lora_targets) / layers, 0
        return held + transient, (trainable - first_block - embedding) * run.pt

    def host_bytes(self, n: int) -> int:
        """Host RAM per GPU under CPU offload: optimizer states and master copy, an fp32 copy
        of the gradients for the CPU optimizer step and, with parameter offload, the weights."""
        run = self.run
        if run.offload == "none":
            return 0
        div = n if run.parallelism in SHARDS["optimizer"] else 1
        trainable = sum(t.total for t in run.trainable())
        host = (sum(self.optimizer.values()) + 4 * trainable) / div
        if run.offload == "optimizer_params":
            host += self.weights / (n if run.parallelism in SHARDS["weights"] else 1)
        return math.ceil(host)

    def per_gpu(self, n: int) -> dict[str, Any]:
        """Components per GPU (shown as bars) and the peak: what stays allocated, plus the
        larger of the forward/backward phase and the optimizer-step phase."""
        run, t = self.run, self.temporary
        div = {c: (n if run.parallelism in modes else 1) for c, modes in SHARDS.items()}
        offloaded = run.offload != "none"
        step = 0 if offloaded else math.ceil(self.optimizer_step / div["optimizer"])
        parts = {
            # With parameter offload the GPU holds only the gathered blocks (``fsdp_gather``).
            "weights": 0 if run.offload == "optimizer_params" else math.ceil(self.weights / div["weights"]),
            "gradients": math.ceil(self.gradients / div["gradients"]),
            "optimizer": 0 if offloaded else math.ceil(sum(self.optimizer.values()) / div["optimizer"]),
            "activations": math.ceil(self.activations["total"]),
            "logits": math.ceil(self.logits),
            "temporary": math.ceil(sum(t.values())) + step,
        }
        kept_grads = parts["gradients"] if run.grad_accumulation else 0
        resident = parts["weights"] + parts["optimizer"] + kept_grads + math.ceil(t["ddp_buckets"] + t["extra"])
        # The backward pass ends with every gradient, as the optimizer step starts; a tied embedding's sum
        # happens before any reduce, on the full table (in place of the step's temporaries, freed by then).
        tail = math.ceil(tied_gradient_tail_bytes(run)) if div["gradients"] == 1 else 0
        held, grads_so_far = self.first_block_backward_bytes()
        # Gradients kept for accumulation are resident already; sharded ones are each rank's share.
        grads_so_far = 0 if run.grad_accumulation else grads_so_far / div["gradients"]
        passes = max(self.passes_bytes(), held + grads_so_far)
        phases = {
            "forward_backward": resident + math.ceil(passes + t["fsdp_gather"] + t["dequant_buffer"]),
            "optimizer_step": resident + parts["gradients"] - kept_grads + max(step, tail),
        }
        context = math.ceil(run.framework_bytes)
        peaks = {k: v + context + math.ceil(run.fragmentation * v) for k, v in phases.items()}
        tensors = max(phases.values())
        fragmentation = math.ceil(run.fragmentation * tensors)
        parts["framework"] = context + fragmentation
        return {
            "parts": parts,
            "fragmentation": fragmentation,
            "optimizer_step": step,
            "peaks": peaks,
            "total": tensors + context + fragmentation,
            "host_bytes": self.host_bytes(n),
        }


# The fields of a Run (its properties' included) that each part of `unsharded` reads. A part is kept
# across calls while they stay the same: a reader editing the sequence length or the batch keeps the
# model states, and one GPU and DDP (the cost page prices both) share all but the temporaries.
# tests/calculators/test_memory.py holds each list to what the code reads.
MODEL_STATE_FIELDS = (
    "arch",
    "params",
    "method",
    "lora_rank",
    "lora_targets",
    "adapter_dtype",
    "quant",
    "double_quant",
    "weights_dtype",
    "master_weights",
    "optimizer",
    "optimizer_impl",
)
PASS_FIELDS = (
    "arch",
    "method",
    "lora_rank",
    "lora_targets",
    "lora_dropout",
    "adapter_dtype",
    "weights_dtype",
    "autocast",
    "seq_len",
    "micro_batch",
    "checkpointing",
    "attention",
    "loss",
    "cpu_masks",
    "router_aux_loss",
)
_MODEL_STATES: dict[tuple[Any, ...], tuple[float, float, dict[str, float], float]] = {}
_PASSES: dict[tuple[Any, ...], tuple[dict[str, float], float]] = {}


def forget() -> None:
    """Drop the kept parts (tests compare an answer with one from nothing)."""
    _MODEL_STATES.clear()
    _PASSES.clear()


def unsharded(run: Run) -> Unsharded:
    weights, gradients, optimizer, step = kept(
        _MODEL_STATES,
        key_of(run, MODEL_STATE_FIELDS),
        lambda: (weight_bytes(run), gradient_bytes(run), optimizer_bytes(run), optimizer_step_bytes(run)),
    )
    activations, logits = kept(_PASSES, key_of(run, PASS_FIELDS), lambda: (activation_bytes(run), logits_bytes(run)))
    # Copies of the kept dicts: an Unsharded is the caller's to read, not a view of the store.
    return Unsharded(run, weights, gradients, dict(optimizer), dict(activations), logits, temporary_bytes(run), step)
