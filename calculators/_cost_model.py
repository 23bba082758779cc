"""Rental arithmetic: throughput per card and interruptions (the reservation planner and prices are
``_cost_plans``').

Float sums use math.fsum: the built-in sum() changed its rounding in Python 3.12, and the browser's
Pyodide must give the very same figures as the build's CPython.

Throughput is a two-class roofline (Williams, Waterman & Patterson 2009, "Roofline", CACM 52(4)):
the matrix multiplications run at the larger of their FLOPs at a share of the card's dense matrix
peak and their weight traffic at a share of the card's memory bandwidth; the element-wise kernels
(norms, activation functions, rotary embeddings, residual adds, attention I/O, the loss), QLoRA's
dequantisation and the optimizer step are memory-bound and run at the bandwidth. The matrix FLOPs
are counted as executed (`matmul_flops_per_token`): the linear layers' forward 2M, the input
gradients 2M, the weight gradients 2M only for weights that learn (LoRA's frozen base has none;
Hu et al. 2021), the adapters' own, gradient checkpointing's second forward pass of the blocks
(Narayanan et al. 2021), and causal attention from the sequence length (Dao 2023, FlashAttention-2,
whose backward pass recomputes the scores). The shares of peak come from published measurements
(`calculators.throughput`), one per card. Several cards add the gradient (and, for FSDP, weight)
collectives over the card's link, as a ring: each card sends 2(n-1)/n of the data (Patarasuk &
Yuan 2009). A step accumulates micro-batches up to its global batch, so DDP and ZeRO exchange the
gradients once per step, during the last micro-batch's backward pass (bucketed all-reduce, Li et al.
2020, "PyTorch Distributed", VLDB 13(12)); FSDP gathers each layer's weights and scatters its gradients
in every micro-batch, prefetched under the compute of the layer before (Zhao et al. 2023, "PyTorch
FSDP", VLDB 16(12)). The estimate hides what fits under that compute; the range's low end hides
nothing.

Interruptions are exponential (a Poisson process at cards x the rate per card-hour) and the expected
hours are exact, not Young's first-order approximation, which fails once the mean time between failures
nears the checkpoint interval: a segment of s hours (an interval and its checkpoint write) that restarts
from its checkpoint after each failure, each restart of R hours itself interruptible, takes in expectation
e^(λR) (e^(λs) - 1) / λ hours (Daly 2006, "A higher order estimate of the optimum checkpoint interval
for restart dumps", Future Gener. Comput. Syst. 22(3), eq. 5 with the restart counted as the code does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotations only: at run time the memory model is imported where it is used
    from ._memory_model import Unsharded
    from ._memory_run import Run
    from .throughput import Stack

NODE_CARDS = 8  # cards per node; a larger run crosses the network between nodes


# Attention's backward pass against its forward, in matmul FLOPs: the gradients of the scores and of
# the values take two matmuls each; FlashAttention-2 recomputes the scores too (Dao 2023, "FlashAttention-2",
# section 4.1: the backward pass does 2.5 times the forward's FLOPs). Eager attention keeps the scores.
ATTENTION_BACKWARD = {"fused": 2.5, "eager": 2.0}
# FP8 matmuls peak at twice the dense bf16 rate on the cards measured in FP8 (H100/H200: 1,979 against 989
# TFLOPS; MI300X: 2,614.9 against 1,307.4). What the linear layers gain in practice is fitted to published
# FP8/bf16 pairs of one source and shape (`throughput.fit_fp8`); this peak ratio is the bound of that fit.
FP8_SPEEDUP = 2.0


def matmul_flops_per_token(run: Run) -> tuple[float, float]:
    """(linear layers, attention) FLOPs per trained token, as executed, for a ``_memory_run.Run``."""
    a = run.arch
    blocks = a.active_params()  # a mixture of experts: the attention, the router and the experts a token meets
    head = a.vocab * a.hidden  # the output head; the input embedding is a lookup, not a matmul
    adapters = 0 if run.method == "full" else a.lora_params(run.lora_rank, run.lora_targets)
    forward = 2 * (blocks + head + adapters)
    input_grads = 2 * (blocks + head + adapters)  # through frozen weights too: the gradient must reach the adapters
    weight_grads = 2 * (blocks + head) if run.method == "full" else 2 * adapters
    recompute = 2 * (blocks + adapters) if run.checkpointing else 0  # the blocks' forward again, not the head
    # Causal attention: each query meets s/2 keys on average, in QK^T and in PV: 2 x 2 x d x s/2 per head.
    attention: float = 2 * a.layers * a.heads * a.d * run.seq_len
    attention *= 1 + ATTENTION_BACKWARD[run.attention] + run.checkpointing
    return forward + input_grads + weight_grads + recompute, attention


def quantized_linear_bytes(run: Run) -> float:
    """Bytes of QLoRA's quantized block linears as stored (0 for full and LoRA)."""
    from ._memory_model import quantized_bytes

    if run.method != "qlora":
        return 0.0
    return math.fsum(
        t.count * quantized_bytes(t.numel, t.rows, run.quant, run.double_quant)
        for t in run.base()
        if t.role.startswith("linear:")
    )


@dataclass(frozen=True)
class StepWork:
    """One optimizer step on one card, independent of which card runs it."""

    tokens: float  # tokens this card trains per step
    linear_flops: float  # matmuls of the linear layers (FP8-capable)
    attention_flops: float  # the attention scores and their product with the values
    weight_traffic: float  # bytes of weights the matrix multiplications read
    other_traffic: float  # bytes moved by element-wise kernels and the optimizer step
    sync_payload: float  # bytes handed to collectives per exchange (before the ring factor)
    dequant_traffic: float = 0.0  # QLoRA: quantized weights read and their 16-bit copies written, per step
    micro_batches: int = 1  # micro-batches accumulated per step, on each card
    sync_every_micro: bool = False  # FSDP: one exchange per micro-batch, hidden under its compute; else one per step

    @property
    def matmul_flops(self) -> float:
        return self.linear_flops + self.attention_flops


def step_work(state: Unsharded, cards: int, tokens_per_step: float | None = None) -> StepWork:
    """What one card does per optimizer step of a ``_memory_model.Unsharded`` run on `cards` cards;
    `tokens_per_step` (the global batch) sets the gradient accumulation, else one micro-batch per step."""
    from ._memory_run import SHARDS

    run = state.run
    a = run.arch
    micro_tokens = run.micro_batch * run.seq_len
    micro = 1 if tokens_per_step is None else max(1, round(tokens_per_step / (cards * micro_tokens)))
    tokens = micro * micro_tokens
    passes = 3 + run.checkpointing  # forward, backward (about twice the forward's traffic), recompute
    q, kv = a.heads * a.d, a.kv_heads * a.d
    per_layer = 10 * a.hidden + 3 * a.intermediate + 4 * (q + kv)  # norms, residuals, SwiGLU, RoPE, attention I/O
    elementwise = tokens * (passes * a.layers * per_layer * run.p + 12 * a.vocab)  # + the loss in fp32
    weights, grads = state.weights, state.gradients  # the memory model's own figures for this run
    shards = cards if run.parallelism in SHARDS["optimizer"] else 1  # the step updates the shard it holds
    optimizer = (2 * math.fsum(state.optimizer.values()) + 2 * grads) / shards
    sync = 2 * weights + grads if run.parallelism == "fsdp" else 2 * grads
    # QLoRA dequantizes each quantized weight to the compute dtype before every pass that needs it
    # (forward, the input gradients, the recomputed forward): reads it as stored, writes the copy,
    # and the matmul reads that 16-bit copy.
    quantized = quantized_linear_bytes(run)
    dequantized = a.layers * math.fsum(i * o for i, o in a.linear_shapes().values()) * run.pc if quantized else 0.0
    matmul_passes = 2 + run.checkpointing
    linear, attention = matmul_flops_per_token(run)
    return StepWork(
        tokens=tokens,
        linear_flops=tokens * linear,
        attention_flops=tokens * attention,
        weight_traffic=micro * (weights - quantized + dequantized) * matmul_passes,
        other_traffic=elementwise + optimizer,
        sync_payload=sync,
        dequant_traffic=micro * (quantized + dequantized) * matmul_passes,
        micro_batches=micro,
        sync_every_micro=run.parallelism == "fsdp",
    )


def card_step(
    work: StepWork,
    gpu: dict[str, Any],
    matmul_share: float,
    bandwidth_share: float,
    dequant_share: float = 1.0,
    fp8: bool = False,
    fp8_speedup: float = FP8_SPEEDUP,
) -> dict[str, Any]:
    """Seconds per step on one card and which resource bounds the matrix multiplications. QLoRA's
    dequantisation runs at `dequant_share` of the achieved bandwidth; `fp8` runs the linear layers at
    `fp8_speedup` times the bf16 rate (published measurements only)."""
    bandwidth = gpu["bandwidth_gb_s"] * 1e9 * bandwidth_share
    rate = matmul_share * gpu["bf16_dense_tflops"] * 1e12
    compute_s = work.linear_flops / (rate * (fp8_speedup if fp8 else 1.0)) + work.attention_flops / rate
    weights_s = work.weight_traffic / bandwidth
    memory_s = work.other_traffic / bandwidth + work.dequant_traffic / (bandwidth * dequant_share)
    step_s = max(compute_s, weights_s) + memory_s
    return {"step_s": step_s, "tokens_per_s": work.tokens / step_s, "compute_share": compute_s / step_s}


# The backward pass's share of a micro-batch's compute (twice the forward's FLOPs): DDP's bucketed
# all-reduce runs under it, on the step's last micro-batch.
BACKWARD_SHARE = 2 / 3


def modelled_scaling(
    work: StepWork, step_s: float, gpu: dict[str, Any], cards: int, bandwidth_share: float, overlap: bool = True
) -> float:
    """Scaling efficiency inside one node: step time / (step time + the ring collectives on the link that
    compute does not hide). `overlap` False hides nothing: the low end of the range."""
    if cards <= 1:
        return 1.0
    n = min(cards, NODE_CARDS)
    link: float = gpu["interconnect"]["gb_s"] * 1e9 / 2 * bandwidth_share  # the catalog lists both directions
    exchanges = work.micro_batches if work.sync_every_micro else 1
    comm_s = exchanges * work.sync_payload * (n - 1) / n / link
    if overlap:
        hidden_under = step_s if work.sync_every_micro else step_s / work.micro_batches * BACKWARD_SHARE
        comm_s = max(0.0, comm_s - hidden_under)
    return step_s / (step_s + comm_s)


def on_stack(step_s: float, micro_batches: int, stack: Stack) -> float:
    """Seconds per step on a training stack other than the tuned frameworks the cards are calibrated on
    (a `throughput.Stack`): its efficiency on the same work, a fixed time per micro-batch (the Python loop,
    kernel launches, data collation: what makes short sequences slow on such a stack) and one per
    optimizer step (clipping, zeroing, reading the loss back, FSDP's synchronisations)."""
    per_step: float = step_s / stack.efficiency + stack.overhead_s * micro_batches + stack.step_overhead_s
    return per_step


def cluster_tokens_per_s(per_gpu: float, cards: int, efficiency: float, internode: float) -> float:
    """N cards deliver N x one card x the scaling efficiency, x the inter-node efficiency past one node."""
    if cards <= 1:
        return per_gpu
    return per_gpu * cards * efficiency * (internode if cards > NODE_CARDS else 1.0)


def run_hours(
    train_hours: float,
    cards: int,
    failures_per_100: float,
    interval_hours: float,
    write_hours: float,
    restart_hours: float,
    overhead_hours: float,
) -> dict[str, Any]:
    """Expected wall-clock hours of one output: training, checkpoint writes, interruptions, overhead.

    The training is cut into checkpoint intervals; every interval but the last ends with a write (the
    last one's output is the export). A failure of any card (rate λ = cards x rate / 100 per hour) loses
    the segment in progress and costs a restart of `restart_hours` (relaunch and restore), during which
    another failure restarts the restart. Each segment of s hours takes e^(λR) (e^(λs) - 1) / λ hours in
    expectation, exactly (see the module docstring); failures in expectation = λ x that time (Wald)."""
    rate = cards * failures_per_100 / 100
    segments = max(1, math.ceil(train_hours / interval_hours - 1e-9)) if interval_hours > 0 else 1
    full = (segments - 1) if interval_hours > 0 else 0
    last = train_hours - full * interval_hours
    writes = full * write_hours
    if rate > 0:

        def grown(s: float) -> float:
            """(e^(λs) - 1) / λ, as s x (e^x - 1) / x: a rate so small it is subnormal (1e-324) keeps its
            precision, where dividing by it gave 7.5 hours for 6.5."""
            x = rate * s
            if x >= _MAX_EXPONENT:
                return math.expm1(_MAX_EXPONENT) / rate
            return s * (math.expm1(x) / x) if x > 0 else s

        restart = math.exp(min(rate * restart_hours, _MAX_EXPONENT))
        busy = restart * (full * grown(interval_hours + write_hours) + grown(last))
    else:
        busy = train_hours + writes
    lost = max(0.0, busy - train_hours - writes)
    capped = lost > MAX_LOST_HOURS
    if capped:  # a run that is not expected to finish: the figures stop here, and the answer says so
        lost = MAX_LOST_HOURS
        busy = train_hours + writes + lost
    return {
        "train": train_hours,
        "writes": writes,
        "failures": rate * busy,
        "lost": lost,
        "overhead": overhead_hours,
        "total": busy + overhead_hours,
        "lost_capped": capped,
        "mtbf_hours": 1 / rate if rate > 0 else None,
    }  # None: no failures (JSON has no infinity)


# e^200 x any interval is already far past any term; capping keeps hopeless configurations finite.
_MAX_EXPONENT = 200.0
# Hours lost to interruptions past which a run is reported as not finishing (about 114,000 years). Beyond
# it, plan counts would pass 2^53, which the browser's JSON cannot hold exactly.
MAX_LOST_HOURS = 1e9
