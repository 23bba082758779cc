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
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from guidekit.calc import kept, key_of

from .architecture import Architecture, Tensor

BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
DTYPES = tuple(BYTES)
CUDA_MASK_BYTES = 1  # a CUDA dropout mask is a bool tensor (a CPU one has the input's dtype)
NF4_BLOCK = 64  # QLoRA (Dettmers et al. 2023): one absmax per 64 weights
DQ_BLOCK = 256  # double quantization: absmaxes quantized to 8 bits, blocks of 256
ADAM8_BLOCK = 2048  # bitsandbytes 8-bit optimizers: block-wise quantization, 2048 values
ADAM8_MIN_SIZE = 4096  # bitsandbytes keeps fp32 state for tensors smaller than this
SHARDS = {  # component -> parallelism modes that divide it over N ranks (ZeRO stages)
    "weights": {"fsdp"},
    "gradients": {"zero2", "fsdp"},
    "optimizer": {"zero1", "zero2", "fsdp"},
}
SHARDED_MODES = frozenset().union(*SHARDS.values())  # the modes that shard anything: more cards, less per card
OPTIMIZER_IMPLS = ("foreach", "fused", "single_tensor")
COMPONENTS = ("weights", "gradients", "optimizer", "activations", "logits", "temporary", "framework")


@dataclass(frozen=True)
class Run:
    """Everything the memory model needs, already validated."""

    arch: Architecture
    params: int  # total parameters (>= the architecture's own count)
    method: str  # full | lora | qlora
    lora_rank: int
    lora_targets: tuple[str, ...]
    lora_dropout: bool  # peft's lora_dropout > 0: a dropout output and mask per adapted linear
    adapter_dtype: str  # fp32 | weights
    quant: str  # nf4 | int8 (QLoRA base weights)
    double_quant: bool
    weights_dtype: str  # fp32 | bf16 | fp16: the parameters as loaded
    autocast: str  # off | bf16 | fp16: torch.autocast around the forward pass
    master_weights: bool
    optimizer: str  # adamw | adamw_8bit | sgd_momentum | adafactor
    optimizer_impl: str  # foreach | fused | single_tensor (PyTorch AdamW code path)
    grad_accumulation: bool  # gradients stay allocated across micro-batches
    seq_len: int
    micro_batch: int
    checkpointing: bool
    attention: str  # fused | eager
    loss: str  # standard | fused
    offload: str  # none | optimizer | optimizer_params (host RAM)
    parallelism: str  # single | ddp | zero1 | zero2 | fsdp
    framework_bytes: float
    fragmentation: float
    extra_temp_bytes: float
    # A CPU dropout mask has the input's dtype, a CUDA one is bool; the calculator models CUDA,
    # the pilot's CPU comparison sets this (calculators.pilot_inputs.tensor_peak).
    cpu_masks: bool = False
    # Mixture of experts with output_router_logits: every layer's router logits kept for the
    # load-balancing loss (Fedus et al. 2022, "Switch Transformers", equations 4 to 6).
    router_aux_loss: bool = False

    @property
    def p(self) -> int:
        """Bytes of a stored weight (and of the residual stream, which keeps the weights' dtype)."""
        return BYTES[self.weights_dtype]

    @property
    def compute_dtype(self) -> str:
        """The dtype matmuls run in and return: autocast's, else the weights'."""
        return self.weights_dtype if self.autocast == "off" else self.autocast

    @property
    def pc(self) -> int:
        return BYTES[self.compute_dtype]

    @property
    def train_dtype(self) -> str:
        """The dtype of the trainable parameters (and so of their gradients)."""
        if self.method != "full" and self.adapter_dtype == "fp32":
            return "fp32"
        return self.weights_dtype

    @property
    def pt(self) -> int:
        return BYTES[self.train_dtype]

    @property
    def has_master(self) -> bool:
        return self.master_weights and self.train_dtype != "fp32"

    def casts(self, dtype: str) -> bool:
        """Whether autocast makes a copy of a tensor of this dtype for a matmul."""
        return self.autocast != "off" and dtype != self.autocast

    def base(self) -> list[Tensor]:
        return self.arch.base_tensors(max(0, self.params - self.arch.derived_params()))

    def trainable(self) -> list[Tensor]:
        if self.method == "full":
            return self.base()
        return self.arch.lora_tensors(self.lora_rank, self.lora_targets)


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


class _Saved:
    """Bytes of tensors saved for the backward pass; a tensor several ops save counts once."""

    def __init__(self) -> None:
        self.bytes = 0.0
        self._keys: set[Hashable] = set()

    def add(self, nbytes: float, key: Hashable | None = None) -> None:
        if key is None or key not in self._keys:
            self._keys.add(key)
            self.bytes += nbytes


def _norm(run: Run, acc: _Saved, rows: int, width: int, x_dtype: str | None = None) -> None:
    """transformers' RMSNorm over ``rows`` vectors of ``width``: the fp32 input (the input itself in
    fp32, else a copy) and 1/rms per vector; when its weight learns, the normalised output that
    multiplies the weight: cast back to the input's dtype (``x_dtype``, the residual's by default), or
    in fp32 where Gemma scales by (1 + w) before casting (and saves that fp32 (1 + w) too)."""
    gemma = run.arch.kind.gemma_norm
    out = 4 if gemma else BYTES[x_dtype or run.weights_dtype]
    acc.add(4 * rows * width + 4 * rows + out * rows * width * (run.method == "full") + 4 * width * gemma)


def _linear(
    run: Run, acc: _Saved, name: str, sb: int, shape: tuple[int, int], x: tuple[Hashable, str], x_grad: bool = True
) -> None:
    """What one linear layer (and its LoRA adapter) saves. ``x`` = (key, dtype) of its input.

    The matmul saves its input when the weight learns and its weight when the input needs a
    gradient. Under autocast those are copies in the autocast dtype unless already in it (a
    trainable weight's copy is cached for the whole forward). peft casts the input to the
    adapter's dtype, applies dropout (output and mask saved), and lora_A saves what reaches
    its matmul; lora_B saves the rank-r output.
    """
    (i, o), (x_key, x_dtype) = shape, x
    learns = run.method == "full"
    if learns:
        acc.add(
            BYTES[run.autocast] * sb * i if run.casts(x_dtype) else BYTES[x_dtype] * sb * i,
            (name, "x") if run.casts(x_dtype) else x_key,
        )
    if x_grad and run.method != "qlora" and run.casts(run.weights_dtype):
        acc.add(BYTES[run.autocast] * i * o)
    if run.method == "full" or not run.arch.adapted(name, run.lora_targets):
        return
    dtype, key = x_dtype, x_key
    adapter = run.train_dtype
    if dtype != adapter:
        dtype, key = adapter, (name, "adapter")
    if run.lora_dropout:
        if x_grad:  # the mask is kept for the input's gradient only
            acc.add((BYTES[dtype] if run.cpu_masks else CUDA_MASK_BYTES) * sb * i)
        key = (name, "dropout")
    if run.casts(dtype):
        dtype, key = run.autocast, (name, "autocast")
    acc.add(BYTES[dtype] * sb * i, key)
    acc.add(BYTES[dtype] * sb * run.lora_rank)
    if run.casts(adapter):  # autocast's cached copies of A and B
        acc.add(BYTES[run.autocast] * run.lora_rank * (i + o))


def _mlp(run: Run, acc: _Saved, sb: int, shapes: dict[str, tuple[int, int]], x: tuple[Hashable, str]) -> None:
    """A gated MLP (SwiGLU, or Gemma's GeLU-tanh, which saves the same): its linears, the activation's
    input and output and the up projection's output (halves of gate_up when fused)."""
    for name in ("gate_up",) if run.arch.fused else ("gate", "up"):
        _linear(run, acc, name, sb, shapes[name], x)
    acc.add(3 * run.pc * sb * shapes["down"][0])
    _linear(run, acc, "down", sb, shapes["down"], ("mlp_act", run.compute_dtype))


def experts_adapted(run: Run) -> dict[str, bool]:
    """Which routed-expert tensors carry a LoRA adapter (peft's target_parameters)."""
    if run.method == "full" or not run.arch.moe:
        return {}
    return {"gate_up": "gate" in run.lora_targets and "up" in run.lora_targets, "down": "down" in run.lora_targets}


def _moe(run: Run, acc: _Saved, sb: int) -> None:
    """A mixture-of-experts MLP as transformers 5 runs it by default (``grouped_mm``), per block.

    The router is an (autocast) linear to one logit per expert; its fp32 softmax and the top-k indices
    are saved (Mixtral and Qwen3-MoE renormalise the top-k weights in place, which saves them and their
    sum; Mixtral keeps them in fp32, the others cast them back). The s*b*k (token, expert) pairs are
    then sorted by expert: the gather of the tokens, the gather of their routing weights and the inverse
    permutation each save an int64 index. The experts compute in the weights' dtype (grouped_mm is not
    autocast): gate_up's output (the activation's input and up), the activation's output, and down's
    output, which the routing weights multiply (both saved). When the experts' weights learn (full, or
    LoRA on them), the gathered tokens (for gate_up) and down's input (for down) are saved for the weight
    gradients; a LoRA adapter on an expert tensor (peft's ParamWrapper) merges W + B A into a tensor as
    large as all the layer's experts, which grouped_mm saves (on 16-bit weights peft computes B A in the
    adapters' dtype first, so autocast keeps its cached copies of A and B).
    """
    a = run.arch
    h, E, k, I = a.hidden, a.experts, a.experts_per_token, a.intermediate
    pairs, p = sb * k, run.p
    _linear(run, acc, "router", sb, (h, E), ("mlp_in", run.weights_dtype))
    acc.add(4 * sb * E + 8 * sb * k)
    if a.kind.renorm_topk:
        acc.add(4 * sb * k + 4 * sb)
    weight_bytes = 4 if a.kind.fp32_routing else run.pc
    acc.add(3 * 8 * pairs)
    adapted = experts_adapted(run)
    full = run.method == "full"
    acc.add(
        p * pairs * h * (full or adapted.get("gate_up", False)) + p * pairs * I * (full or adapted.get("down", False))
    )
    acc.add(3 * p * pairs * I + p * pairs * h + weight_bytes * pairs)
    for name, (i, o) in a.expert_shapes().items():
        if adapted.get(name):
            acc.add(p * E * i * o)
            if p != 4 and run.casts(run.train_dtype):
                acc.add(BYTES[run.autocast] * run.lora_rank * E * (i + o))
    if a.kind.shared_expert and a.shared_intermediate:
        # Qwen2-MoE: the shared expert (a gated MLP) and its one-output sigmoid gate, multiplied together
        _mlp(run, acc, sb, a.linear_shapes(), ("mlp_in", run.weights_dtype))
        _linear(run, acc, "shared_expert_gate", sb, (h, 1), ("mlp_in", run.weights_dtype))
        acc.add(run.pc * sb + run.pc * sb * h)


def layer_activation_bytes(run: Run, first: bool = False) -> float:
    """Saved activations of one decoder block (see the module docstring), walked op by op.

    ``first``: the first block of an adapter run, whose input needs no gradient (the
    embedding is frozen), so its q/k/v matmuls keep no weight copy and their dropout no mask.
    """
    a, sb, s = run.arch, run.seq_len * run.micro_batch, run.seq_len
    kind, h, pc = a.kind, a.hidden, run.pc
    q_w, kv_w = a.heads * a.d, a.kv_heads * a.d
    shapes = a.linear_shapes()
    acc = _Saved()
    _norm(run, acc, sb, h)
    for name in ("qkv",) if a.fused else ("q", "k", "v"):
        _linear(run, acc, name, sb, shapes[name], ("attn_in", run.weights_dtype), x_grad=not first)
    if kind.qk_norm == "head":  # Qwen3, Gemma 3: q and k normalised per head, in the projections' dtype
        _norm(run, acc, sb * a.heads, a.d, run.compute_dtype)
        _norm(run, acc, sb * a.kv_heads, a.d, run.compute_dtype)
    elif kind.qk_norm == "full":  # OLMoE: over the whole q and k projections
        _norm(run, acc, sb, q_w, run.compute_dtype)
        _norm(run, acc, sb, kv_w, run.compute_dtype)
    if run.attention == "fused":  # q, k, v, the output and an fp32 log-sum-exp per head and token
        acc.add(pc * sb * (q_w + 2 * kv_w) + 4 * sb * a.heads)
        # The kernels lay the output out as q is laid out. RoPE applied element-wise keeps q's projection
        # layout (batch, tokens, heads, dim), so o's input is that very tensor; Phi-3's rotary concatenates
        # (partial rotary), which lays q out head by head, and o's input is a copy.
        acc.add(pc * sb * q_w, None if a.fused else "attn_out")
    else:  # q, k and v expanded to all heads; fp32 softmax output and its working-dtype copy
        acc.add(pc * sb * 3 * q_w + sb * s * a.heads * (4 + (pc if pc != 4 else 0)))
        if kind.softcap:  # Gemma 2 soft-caps the scores: tanh saves its output
            acc.add(pc * sb * s * a.heads)
    if a.fused and (run.attention == "fused" or a.kv_heads == a.heads):
        # v reaches the kernel as a view of the fused output, which keeps q and k's columns alive
        acc.add(pc * sb * (q_w + kv_w))
    _linear(run, acc, "o", sb, shapes["o"], ("attn_out", run.compute_dtype))
    if kind.norms == 4:  # Gemma normalises the attention's output before the residual add
        _norm(run, acc, sb, h, run.compute_dtype)
    _norm(run, acc, sb, h)
    if a.moe:
        _moe(run, acc, sb)
    else:
        _mlp(run, acc, sb, shapes, ("mlp_in", run.weights_dtype))
    if kind.norms == 4:  # and the MLP's output
        _norm(run, acc, sb, h, run.compute_dtype)
    return acc.bytes


def backward_transient_bytes(run: Run) -> float:
    """Gradients alive for a moment in one block's backward pass, beyond its saved activations.

    The MLP's: while the multiplication's backward makes the gradients of both factors, the
    gradient of their product is still alive: two intermediates' worth more than the saved set where
    down's backward has freed what it saved of the product (down learns, or its adapter reads it), three
    where down is frozen and saved none of it. A LoRA adapter on the down projection that casts or drops
    out its input has its own moment before that one: its path's gradients in the adapter's dtype, two at
    a time (the larger of the two moments counts; traced op by op, issue 30).
    Eager attention's: the fp32 gradient of the softmax output beside the saved probabilities.
    Measured on the real stack (benchmarks/memory_accuracy.py), where activations outweigh logits.
    """
    a, sb = run.arch, run.seq_len * run.micro_batch
    if a.moe:  # a shared expert's backward runs after the routed experts', whose activations are gone by then
        return max(moe_transient_bytes(run), 4 * sb * run.seq_len * a.heads if run.attention == "eager" else 0)
    down = run.method != "full" and run.arch.adapted("down", run.lora_targets)
    # A frozen down saves nothing of the product, so nothing is freed before the multiplication's backward.
    mlp = (3 if run.method != "full" and not down else 2) * run.pc * sb * a.intermediate
    if down and (run.lora_dropout or run.pt != run.pc):  # the adapter's path, before the multiplication's
        mlp = max(mlp, 2 * run.pt * sb * a.intermediate)
    attention = 4 * sb * run.seq_len * a.heads if run.attention == "eager" else 0
    return max(mlp, attention)


def recompute_transient_bytes(run: Run) -> float:
    """With checkpointing, the recomputed block's forward reaches down's adapter with nearly all it saves and,
    beside it, what that adapter's forward holds unsaved: the product (down's input), down's output, the
    product's copy in the adapters' dtype and the dropout's output; and the block output's gradient, waiting."""
    a, sb = run.arch, run.seq_len * run.micro_batch
    if run.method == "full" or a.moe or not a.adapted("down", run.lora_targets):
        return 0
    cast = run.pt if run.pt != run.pc else 0
    dropout = (run.pt if cast else run.pc) if run.lora_dropout else 0
    return sb * (a.intermediate * (run.pc + cast + dropout) + a.hidden * (run.pc + run.p))


def moe_transient_bytes(run: Run) -> float:
    """The routed experts' share of a block's backward transients (0 for a dense model).

    Their backward starts by scattering the tokens' gradient back to the (token, expert) pairs and
    multiplying it by the routing weights: two pair-sized buffers in the weighted outputs' dtype beside
    the block output's gradient; inside the experts, the gradients of the gated product and its two
    factors, per pair; and a LoRA adapter on an expert tensor gets the gradient of the merged weight W + B A, as
    large as all the layer's experts, in the weights' dtype (peft 0.21 computes B A in that dtype, so there is
    no copy in the adapters' fp32; traced at full size, counting one overstated Mixtral 8x7B LoRA by 4 %).
    A shared expert's output gradient waits through the routed experts' backward.
    """
    a = run.arch
    if not a.moe:
        return 0
    sb, p = run.seq_len * run.micro_batch, run.p
    pairs = sb * a.experts_per_token
    w = 4 if a.kind.fp32_routing or p == 4 else p
    routed = sb * a.hidden * (p + w) + 2 * pairs * a.hidden * w + run.pc * sb * a.hidden * bool(a.shared_intermediate)
    # inside the experts: the gradients of the gated product and of both its factors, while the factors
    # are still saved; down's output and (when saved) its input are freed by then
    product_saved = run.method == "full" or experts_adapted(run).get("down", False)
    experts = p * pairs * ((3 - product_saved) * a.intermediate - a.hidden)
    merged = _merged_expert_gradient(run, pairs)
    return max(routed, experts, merged)


def _merged_expert_gradient(run: Run, pairs: int) -> float:
    """The largest moment of the adapted expert tensors' backward, in backward order (down, then gate_up): the
    merged weight's gradient and the gradient of the tensor's input, less the merged weights the forward saved
    for the tensors whose backward has already run (each freed after its own)."""
    a, p, largest, freed = run.arch, run.p, 0, 0
    for name, (i, o) in reversed(a.expert_shapes().items()):
        if experts_adapted(run).get(name):
            largest = max(largest, p * (a.experts * i * o + pairs * i) - freed)
            freed += p * a.experts * i * o
    return largest


def head_bytes(run: Run) -> float:
    """The final norm and the LM head's saved input and autocast weight copy."""
    a, sb = run.arch, run.seq_len * run.micro_batch
    acc = _Saved()
    _norm(run, acc, sb, a.hidden)
    _linear(run, acc, "lm_head", sb, (a.hidden, a.vocab), ("head_in", run.weights_dtype))
    return acc.bytes


def activation_bytes(run: Run) -> dict[str, float]:
    """All blocks' activations plus the final norm and LM head.

    ``total`` is the component shown to the reader. With checkpointing it counts the
    saved block inputs and one recomputed block; ``checkpoints`` is the block inputs
    alone, which ``peak`` combines with the logits buffers (see the module docstring).
    ``cached_weights``: under autocast, the cast copies of trainable weights stay cached until
    the forward pass ends, even when checkpointing does not save them.
    """
    a, sb = run.arch, run.seq_len * run.micro_batch
    per_layer = layer_activation_bytes(run)
    first = layer_activation_bytes(run, first=True) if run.method != "full" else per_layer
    checkpoints = a.layers * run.p * sb * a.hidden if run.checkpointing else 0
    blocks = checkpoints + per_layer if run.checkpointing else (a.layers - 1) * per_layer + first
    cached = 0.0
    if run.checkpointing and run.method == "full" and run.casts(run.weights_dtype):
        # the linears' and the router's; the experts are not autocast
        linears = sum(i * o for i, o in a.linear_shapes().values())
        cached = BYTES[run.autocast] * (linears + a.experts * a.hidden) * a.layers
    final = head_bytes(run)
    return {
        "per_layer": per_layer,
        "first": first,
        "checkpoints": checkpoints,
        "blocks": blocks,
        "final": final,
        "cached_weights": cached,
        "backward_transient": backward_transient_bytes(run),
        "total": blocks + final,
    }


def logits_bytes(run: Run) -> float:
    """Logits and cross-entropy buffers at their peak, early in the backward pass.

    Standard loss (transformers upcasts logits to fp32): the saved fp32 log-softmax output, the
    gradient the loss returns for it and the gradient of the logits, all fp32 and s*b*V each
    (the working-dtype logits are freed once upcast, and the fp32 gradient's working-dtype copy
    is made after the first two are freed). Fused linear cross-entropy (Liger Kernel) never
    materialises the logits: it computes the gradient of the head's input during the forward
    pass, holding that gradient and one chunk of logits whose rows are s*b / ceil(V/h), rounded
    up to a power of two.
    """
    a, sb = run.arch, run.seq_len * run.micro_batch
    if run.loss == "standard":  # Gemma 2's soft-capping keeps its tanh output (working dtype) until then
        return (12 + run.pc * a.kind.softcap) * sb * a.vocab + router_logits_bytes(run)
    chunk = 1 << max(0, math.ceil(math.log2(max(1, math.ceil(sb / math.ceil(a.vocab / a.hidden))))))
    return run.pc * sb * a.hidden + run.pc * min(chunk, sb) * a.vocab


def logits_forward_bytes(run: Run) -> float:
    """The loss at the end of the forward pass: working-dtype logits, their fp32 copy and the
    fp32 log-softmax output (8 bytes when the logits are fp32 already)."""
    if run.loss != "standard":
        return logits_bytes(run)
    capped = run.pc * run.arch.kind.softcap  # Gemma 2: the tanh output, saved, beside the capped logits
    aux = 2 * router_logits_bytes(run)  # the kept router logits and the loss's softmax of them
    return (8 + capped + (run.pc if run.pc != 4 else 0)) * run.seq_len * run.micro_batch * run.arch.vocab + aux


def router_logits_bytes(run: Run) -> float:
    """With the router's auxiliary loss: one layer's router logits per layer, in the compute dtype (kept
    to the end of the forward pass; then the loss's softmax of them, or their gradients, as many)."""
    a = run.arch
    return a.layers * run.seq_len * run.micro_batch * a.experts * run.pc if run.router_aux_loss and a.moe else 0


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
