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
tensor by tensor (s = sequence length, b = micro-batch, h = hidden, a = heads,
p = bytes per activation element):

* no dropout (Llama-style fine-tuning uses none), so no masks or dropout outputs;
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
* gradient checkpointing per block keeps each block's input (p*s*b*h, the
  Korthikanti "2sbhL" full-recomputation term) plus one block's activations while
  it is recomputed.

The per-GPU total is the peak, not the sum of the components, because gradients and
activations are not alive together (PyTorch's ``zero_grad(set_to_none=True)``, the
default, frees the gradients after each step): the forward and backward passes hold
the activations and the logits buffers while the gradients are still being produced
(each is allocated as the activations it needs are freed), and the optimizer step holds
all gradients plus the step's temporaries after the activations are gone. With gradient
checkpointing the logits buffers are freed before the last block is recomputed, so the
backward pass holds the larger of the two, not both. Gradient accumulation keeps the
gradients through the next micro-batches' passes, so they join both phases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._architecture import Architecture, Tensor

BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
NF4_BLOCK = 64          # QLoRA (Dettmers et al. 2023): one absmax per 64 weights
DQ_BLOCK = 256          # double quantization: absmaxes quantized to 8 bits, blocks of 256
ADAM8_BLOCK = 2048      # bitsandbytes 8-bit optimizers: block-wise quantization, 2048 values
ADAM8_MIN_SIZE = 4096   # bitsandbytes keeps fp32 state for tensors smaller than this
SHARDS = {  # component -> parallelism modes that divide it over N ranks (ZeRO stages)
    "weights": {"fsdp"},
    "gradients": {"zero2", "fsdp"},
    "optimizer": {"zero1", "zero2", "fsdp"},
}
OPTIMIZER_IMPLS = ("foreach", "fused", "single_tensor")
COMPONENTS = ("weights", "gradients", "optimizer", "activations", "logits", "temporary", "framework")


@dataclass(frozen=True)
class Run:
    """Everything the memory model needs, already validated."""
    arch: Architecture
    params: int              # total parameters (>= the architecture's own count)
    method: str              # full | lora | qlora
    lora_rank: int
    lora_targets: tuple
    quant: str               # nf4 | int8 (QLoRA base weights)
    double_quant: bool
    precision: str           # fp32 | bf16 | fp16
    master_weights: bool
    optimizer: str           # adamw | adamw_8bit | sgd_momentum | adafactor
    optimizer_impl: str      # foreach | fused | single_tensor (PyTorch AdamW code path)
    grad_accumulation: bool  # gradients stay allocated across micro-batches
    seq_len: int
    micro_batch: int
    checkpointing: bool
    attention: str           # fused | eager
    parallelism: str         # single | ddp | zero1 | zero2 | fsdp
    framework_bytes: float
    fragmentation: float
    extra_temp_bytes: float

    @property
    def p(self) -> int:
        return BYTES[self.precision]

    @property
    def has_master(self) -> bool:
        return self.master_weights and self.precision != "fp32"

    def base(self) -> list[Tensor]:
        return self.arch.base_tensors(max(0, self.params - self.arch.derived_params()))

    def trainable(self) -> list[Tensor]:
        if self.method == "full":
            return self.base()
        return self.arch.lora_tensors(self.lora_rank, self.lora_targets)

    def learning_linears(self) -> set:
        return set(self.arch.linear_shapes()) if self.method == "full" else set(self.lora_targets)


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
    LoRA adapters are counted at the working precision (their fp32 master copy, when
    chosen, is counted with the optimizer, as ZeRO does).
    """
    total = 0.0
    for t in run.base():
        if run.method == "qlora" and t.role.startswith("linear:"):
            total += t.count * quantized_bytes(t.numel, t.rows, run.quant, run.double_quant)
        else:
            total += t.total * run.p
    if run.method != "full":
        total += run.arch.lora_params(run.lora_rank, run.lora_targets) * run.p
    return total


def gradient_bytes(run: Run) -> float:
    """One gradient per trainable parameter, in the dtype of the working weights."""
    return sum(t.total for t in run.trainable()) * run.p


def state_bytes_per_param(run: Run) -> int:
    """PyTorch optimizers keep state in the dtype of the parameter they update: fp32
    when training in fp32 or when an fp32 master copy is kept, else the working dtype."""
    return 4 if (run.precision == "fp32" or run.has_master) else run.p


def optimizer_bytes(run: Run) -> dict:
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
        states = sum(t.count * (2 * t.numel + 2 * 4 * math.ceil(t.numel / ADAM8_BLOCK)
                                if t.numel >= ADAM8_MIN_SIZE else 8 * t.numel) for t in trainable)
    else:  # adafactor
        states = sum(t.count * 4 * ((t.rows + t.cols) if t.cols > 1 else t.rows) for t in trainable)
    return {"master_weights": master, "optimizer_states": states}


def norm_bytes(run: Run, sb: int, h: int) -> float:
    """One RMSNorm: fp32 input copy and 1/rms, plus the normalised output when its weight learns."""
    return 4 * sb * h + 4 * sb + run.p * sb * h * (run.method == "full")


def layer_activation_bytes(run: Run) -> float:
    """Saved activations of one decoder block (see the module docstring)."""
    a, p, sb, s = run.arch, run.p, run.seq_len * run.micro_batch, run.seq_len
    h, d, I = a.hidden, a.d, a.intermediate
    q_w, kv_w = a.heads * d, a.kv_heads * d
    learns = run.learning_linears()
    norm = norm_bytes(run, sb, h)
    total = 2 * norm + 3 * p * sb * I  # two norms; SiLU input, SiLU output, up output
    total += p * sb * h * (bool(learns & {"q", "k", "v"}) + bool(learns & {"gate", "up"}))
    total += p * sb * q_w * ("o" in learns) + p * sb * I * ("down" in learns)
    if run.attention == "fused":
        total += p * sb * (q_w + 2 * kv_w) + p * sb * q_w + 4 * sb * a.heads
    else:
        total += p * sb * 3 * q_w + sb * s * a.heads * (4 + (p if p != 4 else 0))
    if run.method != "full":
        total += p * sb * run.lora_rank * len(run.lora_targets)
    return total


def activation_bytes(run: Run) -> dict:
    """All blocks' activations plus the final norm (and LM-head input when it learns).

    ``total`` is the component shown to the reader. With checkpointing it counts the
    saved block inputs and one recomputed block; ``checkpoints`` is the block inputs
    alone, which ``peak`` combines with the logits buffers (see the module docstring).
    """
    a, p, sb = run.arch, run.p, run.seq_len * run.micro_batch
    per_layer = layer_activation_bytes(run)
    checkpoints = a.layers * p * sb * a.hidden if run.checkpointing else 0
    blocks = checkpoints + per_layer if run.checkpointing else a.layers * per_layer
    final = norm_bytes(run, sb, a.hidden) + p * sb * a.hidden * (run.method == "full")
    return {"per_layer": per_layer, "checkpoints": checkpoints, "blocks": blocks, "final": final,
            "total": blocks + final}


def logits_bytes(run: Run) -> float:
    """Logits and cross-entropy buffers: s*b*V elements each.

    The working-dtype logits (kept as the model output), the fp32 log-softmax output
    saved by the loss (transformers upcasts logits to fp32 before the loss), its fp32
    gradient, and the gradient cast back to the working dtype (none in fp32).
    """
    p, elems = run.p, run.seq_len * run.micro_batch * run.arch.vocab
    return elems * (p + 4 + 4 + (p if p != 4 else 0))


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


def temporary_bytes(run: Run) -> dict:
    """Transient buffers besides the optimizer step's (``optimizer_step_bytes``).

    FSDP/ZeRO-3 gathers one block's full parameters while prefetching the next, and
    holds one block's full gradient before the reduce-scatter. DDP's reducer keeps
    gradient buckets as large as all gradients (PyTorch default
    ``gradient_as_bucket_view=False``) for the whole run. QLoRA dequantizes the largest linear weight to
    the working dtype for each matmul. The gather and the dequantized weight live in the
    forward and backward passes; the buckets and ``extra`` (the user's allowance) in both.
    """
    a, p = run.arch, run.p
    out = {"fsdp_gather": 0.0, "ddp_buckets": 0.0, "dequant_buffer": 0.0, "extra": run.extra_temp_bytes}
    if run.parallelism == "fsdp":
        shapes = a.linear_shapes().values()
        block = sum(i * o for i, o in shapes) + 2 * a.hidden
        if run.method == "qlora":  # gathered as stored: quantized linears, p-byte norms
            block_bytes = sum(quantized_bytes(i * o, o, run.quant, run.double_quant) for i, o in shapes)
            block_bytes += 2 * a.hidden * p
        else:
            block_bytes = block * p
        trainable_block = block if run.method == "full" else a.lora_params(run.lora_rank, run.lora_targets) / a.layers
        out["fsdp_gather"] = 2 * block_bytes + trainable_block * p
    if run.parallelism == "ddp":
        out["ddp_buckets"] = gradient_bytes(run)
    if run.method == "qlora":
        out["dequant_buffer"] = max(i * o for i, o in a.linear_shapes().values()) * p
    return out


@dataclass(frozen=True)
class Unsharded:
    """Components before dividing over ranks; ``per_gpu(n)`` applies the ZeRO stage."""
    run: Run
    weights: float
    gradients: float
    optimizer: dict
    activations: dict
    logits: float
    temporary: dict
    optimizer_step: float

    def passes_bytes(self) -> float:
        """Activations and logits buffers at their peak in the forward and backward passes."""
        acts = self.activations
        if self.run.checkpointing:
            return acts["checkpoints"] + acts["final"] + max(self.logits, acts["per_layer"])
        return acts["total"] + self.logits

    def per_gpu(self, n: int) -> dict:
        """Components per GPU (shown as bars) and the peak: what stays allocated, plus the
        larger of the forward/backward phase and the optimizer-step phase."""
        run, t = self.run, self.temporary
        div = {c: (n if run.parallelism in modes else 1) for c, modes in SHARDS.items()}
        step = math.ceil(self.optimizer_step / div["optimizer"])
        parts = {
            "weights": math.ceil(self.weights / div["weights"]),
            "gradients": math.ceil(self.gradients / div["gradients"]),
            "optimizer": math.ceil(sum(self.optimizer.values()) / div["optimizer"]),
            "activations": math.ceil(self.activations["total"]),
            "logits": math.ceil(self.logits),
            "temporary": math.ceil(sum(t.values())) + step,
        }
        kept_grads = parts["gradients"] if run.grad_accumulation else 0
        resident = (parts["weights"] + parts["optimizer"] + kept_grads
                    + math.ceil(t["ddp_buckets"] + t["extra"]))
        phases = {
            "forward_backward": resident + math.ceil(self.passes_bytes() + t["fsdp_gather"] + t["dequant_buffer"]),
            "optimizer_step": resident + parts["gradients"] - kept_grads + step,
        }
        context = math.ceil(run.framework_bytes)
        peaks = {k: v + context + math.ceil(run.fragmentation * v) for k, v in phases.items()}
        tensors = max(phases.values())
        fragmentation = math.ceil(run.fragmentation * tensors)
        parts["framework"] = context + fragmentation
        return {"parts": parts, "fragmentation": fragmentation, "optimizer_step": step, "peaks": peaks,
                "total": tensors + context + fragmentation}


def unsharded(run: Run) -> Unsharded:
    return Unsharded(run, weight_bytes(run), gradient_bytes(run), optimizer_bytes(run),
                     activation_bytes(run), logits_bytes(run), temporary_bytes(run), optimizer_step_bytes(run))
