"""What the forward and backward passes hold: the activations each block saves for the backward pass, tensor by
tensor as transformers, peft and torch save them (``layer_activation_bytes``, ``activation_bytes``), the
transients of one block's backward pass and of its recomputation, and the logits' buffers. The module docstring
of ``_memory_model`` says how they combine into the peak."""

from __future__ import annotations

import math
from collections.abc import Hashable

from ._memory_run import BYTES, CUDA_MASK_BYTES, Run


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
