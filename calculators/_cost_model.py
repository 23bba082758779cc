"""Rental arithmetic: throughput per card, interruptions, the cheapest reservation, prices.

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
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotations only: at run time the memory model is imported where it is used
    from ._memory_model import Run, Unsharded

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
    """(linear layers, attention) FLOPs per trained token, as executed, for a ``_memory_model.Run``."""
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
    from ._memory_model import SHARDS

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


def on_stack(step_s: float, micro_batches: int, efficiency: float, overhead_s: float) -> float:
    """Seconds per step on a training stack other than the tuned frameworks the cards are calibrated on:
    its efficiency on the same work, and a fixed overhead per micro-batch (the Python loop, kernel
    launches, data collation: what makes short sequences slow on such a stack)."""
    return step_s / efficiency + overhead_s * micro_batches


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


# -- the reservation planner -----------------------------------------------------------------------


def cheapest_plan(needed_hours: float, items: list[tuple[str, int, float]]) -> dict[str, Any]:
    """The cheapest multiset of terms whose hours cover `needed_hours`.

    `items` are (term id, hours, price of one such term). Ties go to fewer hours, then fewer terms.
    An unbounded min-cost cover solved exactly by dynamic programming over whole multiples of the
    terms' common divisor. Long jobs first take copies of the cheapest term per hour, B: among
    any h_B/g other terms some subset sums to a multiple of h_B (prefix sums modulo h_B), and
    swapping it for copies of B costs no more, so an optimal plan needs fewer than h_B/g others.
    The same argument on the copies of one term bounds each count (see `_Cover`).
    """
    cover = _cover(tuple(items))
    # Whole units; a rounding residue (24.000000001 h) does not buy a second term, any real need buys one.
    need = max(int(needed_hours > 0), _whole_units(needed_hours, cover.unit))
    # The plan is the same for every need in these units: most hours an answer plans were planned by
    # the answer before (a card count's hours move less than a unit when the reader edits the rental).
    plan = cover.plans.get(need)
    if plan is None:
        if len(cover.plans) >= 256:
            cover.plans.clear()
        plan = cover.plans[need] = _plan(cover, need, items)
    return plan


def _plan(cover: _Cover, need: int, items: list[tuple[str, int, float]]) -> dict[str, Any]:
    """The cheapest plan of `need` units (see `cheapest_plan`). Kept and shared: never changed after."""
    forced = max(0, -(-(need - cover.bound) // cover.sizes[cover.best]))  # integer ceil division: exact
    rest = need - forced * cover.sizes[cover.best]
    table = cover.table_upto(rest)
    counts = [0] * len(items)
    counts[cover.best] += forced
    u = rest
    while u > 0:
        i = table[u][3]
        counts[i] += 1
        u = max(0, u - cover.sizes[i])
    terms = [[items[i][0], c] for i, c in enumerate(counts) if c]  # JSON-able: lists, not tuples
    hours = sum(c * items[i][1] for i, c in enumerate(counts))
    return {"terms": terms, "hours": hours, "cost": math.fsum(c * items[i][2] for i, c in enumerate(counts))}


HOURLY = "hourly"  # the plan entry of on-demand hours: [HOURLY, started hours]
# Where on demand is cheaper per hour than every term, past this many units (24 h each with the catalog's
# terms: 480,000 hours) a mixed plan first takes copies of the cheapest term per hour; below it, every split
# of terms and hours is tried.
MIXED_UNITS = 20000


def topup_price(hours: int, hourly: tuple[float, float, float]) -> float:
    """`hours` started on-demand hours at `hourly` = (per hour, per started period, period hours): the
    cards' rate plus options billed by day, pro rata; options billed by term once per started period."""
    per_hour, per_period, period = hourly
    return hours * per_hour + per_period * math.ceil(hours / period) if hours > 0 else 0.0


def cheapest_mixed(
    needed_hours: float, items: list[tuple[str, int, float]], hourly: tuple[float, float, float]
) -> dict[str, Any]:
    """The cheapest plan of terms plus on-demand hours as a top-up (either may be empty) covering `needed_hours`.

    Exact: for every u, the cheapest cover of at least u units is the cheapest terms with at least that
    many hours, and the top-up pays for the whole hours they leave; any mixed plan whose terms hold u
    units costs at least that. The pure-term plan (`cheapest_plan`) and pure hourly are among the
    candidates. `hourly` as in `topup_price`. Ties go to fewer hours, then fewer entries."""
    cover = _cover(tuple(items))
    whole = math.ceil(needed_hours - 1e-9) if needed_hours > 0 else 0  # the top-up bills started hours
    key = (HOURLY, whole, hourly)
    if key in cover.plans:
        return cover.plans[key]
    pure = cheapest_plan(needed_hours, items)
    # (cost, hours, entries, the plan or the (copies of B, cover units, top-up hours) that make it)
    candidates: list[tuple[float, int, int, dict[str, Any] | tuple[int, int, int]]]
    candidates = [(round(pure["cost"], 6), pure["hours"], len(pure["terms"]), pure)]
    need = _whole_units(needed_hours, cover.unit) if needed_hours > 0 else 0
    b = cover.best
    if whole > 0 and all(topup_price(h, hourly) <= price for _, h, price in items):
        # On demand costs no more than any term for the term's hours, options included: topping up h_i more
        # hours adds at most that (p h_i + q ceil(h_i / P)), so each term of a mixed plan swaps for on-demand
        # hours at no loss, and pure on demand (the fewest hours, one entry) is the cheapest. Without this,
        # a huge job priced below every term walked MIXED_UNITS splits per card count (2 s an answer).
        candidates.append((round(topup_price(whole, hourly), 6), whole, 1, (0, 0, whole)))
        need, forced = 0, 0  # no split left to try
    elif hourly[0] * items[b][1] >= cover.prices[b]:
        # On demand costs at least B (the cheapest term per hour) per B's hours: h_B top-up hours swap for a copy
        # of B at no loss, so some optimal plan tops up less than h_B, and its terms (fewer than `bound` units
        # besides copies of B, see `cheapest_plan`) hold at least this many copies of B.
        forced = max(0, (need - cover.sizes[b] - 1 - cover.bound) // cover.sizes[b])
    else:
        forced = max(0, -(-(need - MIXED_UNITS) // cover.sizes[b]))
    forced_cost = forced * cover.prices[cover.best]
    base = forced * cover.sizes[cover.best]
    table = cover.table_upto(need - base)
    for u in range(0, need - base):
        units = base + table[u][1]
        hours = units * cover.unit
        if hours >= needed_hours - 1e-9:
            continue  # no top-up: a pure-term plan, already a candidate
        extra = whole - hours
        cost = forced_cost + table[u][0] + topup_price(extra, hourly)
        candidates.append((round(cost, 6), hours + extra, table[u][2] + 1 + forced, (forced, u, extra)))
    best = min(candidates, key=lambda c: c[:3])
    plan = best[3]
    if not isinstance(plan, dict):  # rebuild the terms of the winning split
        forced, u, extra = plan
        counts = [0] * len(items)
        counts[cover.best] += forced
        while u > 0:
            i = table[u][3]
            counts[i] += 1
            u = max(0, u - cover.sizes[i])
        terms = [[items[i][0], c] for i, c in enumerate(counts) if c]
        plan = {
            "terms": terms + [[HOURLY, extra]],
            "hours": sum(c * items[i][1] for i, c in enumerate(counts)) + extra,
            "cost": math.fsum([*(c * items[i][2] for i, c in enumerate(counts)), topup_price(extra, hourly)]),
        }
    if len(cover.plans) >= 256:
        cover.plans.clear()
    cover.plans[key] = plan
    return plan


def _whole_units(hours: float, unit: int) -> int:
    """ceil(hours / unit) less a 1e-9 residue; exact past 2**52 units, where the float quotient can
    round below the need (Fraction is 100x slower, so only there)."""
    if hours / unit < 2**52:
        return math.ceil(hours / unit - 1e-9)
    from fractions import Fraction  # here, not at the top: only this rare case needs it in the browser

    return math.ceil(Fraction(hours) / unit - Fraction(1, 10**9))


class _Cover:
    """What a plan over one set of terms and prices needs whatever the hours: the unit, the cheapest
    term per hour B and the bound past which only copies of B are added, and the cover table."""

    def __init__(self, items: tuple[tuple[str, int, float], ...]) -> None:
        self.unit = reduce(math.gcd, (h for _, h, _ in items))
        self.sizes = sizes = [h // self.unit for _, h, _ in items]
        self.prices = [price for _, _, price in items]
        self.best = best = min(range(len(items)), key=lambda i: (items[i][2] / items[i][1], -items[i][1]))
        others = [s for i, s in enumerate(sizes) if i != best]
        # Fewer than s_B others in all, and fewer than s_B / gcd(s_i, s_B) copies of each: k copies of
        # term i make a multiple of h_B once k reaches that, and can be swapped the same way.
        self.bound = sizes[best] + min(
            sizes[best] * (max(others, default=0) + 1),
            sum((sizes[best] // math.gcd(s, sizes[best]) - 1) * s for s in others),
        )
        self.table = [(0.0, 0, 0, -1)]
        # need in units -> its plan; (HOURLY, started hours, hourly terms) -> a mixed plan (`cheapest_mixed`)
        self.plans: dict[int | tuple[str, int, tuple[float, float, float]], dict[str, Any]] = {}

    def table_upto(self, upto: int) -> list[tuple[float, int, int, int]]:
        """table[u] = (cost, units, count, item) of the cheapest cover of at least u units, grown on demand."""
        table, sizes, prices = self.table, self.sizes, self.prices
        for u in range(len(table), upto + 1):
            table.append(
                min(
                    (
                        round(table[max(0, u - s)][0] + prices[i], 6),
                        table[max(0, u - s)][1] + s,
                        table[max(0, u - s)][2] + 1,
                        i,
                    )
                    for i, s in enumerate(sizes)
                )
            )
        return table


# the same terms and prices are planned for several hour counts
_COVERS: dict[tuple[tuple[str, int, float], ...], _Cover] = {}


def _cover(items: tuple[tuple[str, int, float], ...]) -> _Cover:
    if items not in _COVERS:
        if len(_COVERS) > 256:
            _COVERS.clear()
        _COVERS[items] = _Cover(items)
    return _COVERS[items]


# -- prices -----------------------------------------------------------------------------------------


def option_price(option: dict[str, Any], term: dict[str, Any], quantities: dict[str, float]) -> float:
    """Price of one option over one term: flat per term or per TB per day; per-TB options are per plan."""
    if option["per"] == "term":
        return float(option["usd"][term["id"]])
    if option["per"] == "tb_day":
        usd_per_tb_day: float = option["usd"]
        hours: float = term["hours"]
        return usd_per_tb_day * quantities[option["quantity"]] * hours / 24
    if option["per"] == "tb":
        return 0.0
    raise ValueError(f"unknown option pricing {option['per']!r}")  # a catalog error, caught by tests


class OptionPrices:
    """The options a plan carries, priced once per input set: each option over one copy of each term
    (the same for every GPU and card count), their sum per term, and those billed once per plan."""

    def __init__(self, options: list[dict[str, Any]], terms: dict[str, Any], quantities: dict[str, float]) -> None:
        self.options = options
        self.each = {(o["id"], tid): option_price(o, term, quantities) for o in options for tid, term in terms.items()}
        self.per_term = {tid: math.fsum(self.each[(o["id"], tid)] for o in options) for tid in terms}
        self.per_plan = {o["id"]: o["usd"] * quantities[o["quantity"]] for o in options if o["per"] == "tb"}
        self.once = math.fsum(self.per_plan.values())


def term_price(rate: float, cards: int, term: dict[str, Any], options: OptionPrices) -> float:
    """One term of a plan: cards x hours x price per card-hour + the options billed by term."""
    hours: float = term["hours"]
    return cards * hours * rate + options.per_term[term["id"]]


def plan_breakdown(
    plan: dict[str, Any], rate_of: Callable[[str], float], cards: int, terms: dict[str, Any], options: OptionPrices
) -> dict[str, Any]:
    """GPU time per term of the plan (and of its on-demand top-up, `rate_of(HOURLY)`) and each option's
    share of the plan's price."""
    fixed = [(tid, count) for tid, count in plan["terms"] if tid != HOURLY]
    gpu = {tid: count * cards * terms[tid]["hours"] * rate_of(tid) for tid, count in fixed}
    opts = {
        o["id"]: math.fsum(count * options.each[(o["id"], tid)] for tid, count in fixed)
        for o in options.options
        if o["per"] != "tb"
    }
    for tid, count in plan["terms"]:
        if tid == HOURLY:
            gpu[HOURLY], extra = topup_breakdown(
                count, rate_of(HOURLY), cards, min(terms.values(), key=lambda t: t["hours"]), options
            )
            opts = {k: v + extra.get(k, 0.0) for k, v in opts.items()}
    opts.update(options.per_plan)
    return {"gpu_usd": gpu, "options_usd": opts, "total_usd": math.fsum([*gpu.values(), *opts.values()])}


def hourly_terms(
    rate: float, cards: int, shortest: dict[str, Any], options: OptionPrices
) -> tuple[float, float, float]:
    """On-demand billing as (per hour, per started period, period hours) for `topup_price`: the cards at
    `rate`, options billed by day pro rata, flat fees once per started shortest term."""
    per_day = math.fsum(
        options.each[(o["id"], shortest["id"])] / shortest["hours"] for o in options.options if o["per"] == "tb_day"
    )
    per_period = math.fsum(options.each[(o["id"], shortest["id"])] for o in options.options if o["per"] == "term")
    return cards * rate + per_day, per_period, shortest["hours"]


def on_demand_price(rate: float, cards: int, hours: float, shortest: dict[str, Any], options: OptionPrices) -> float:
    """Hourly billing alone: every started hour (at least one period's flat fees), plus per-TB options once."""
    billed = math.ceil(hours - 1e-9)
    per_hour, per_period, period = hourly_terms(rate, cards, shortest, options)
    return math.fsum([billed * per_hour, per_period * max(1, math.ceil(billed / period)), *options.per_plan.values()])


def topup_breakdown(
    hours: int, rate: float, cards: int, shortest: dict[str, Any], options: OptionPrices
) -> tuple[float, dict[str, float]]:
    """A top-up's GPU time and each option's share of it (as `topup_price` bills them)."""
    periods = math.ceil(hours / shortest["hours"]) if hours > 0 else 0
    opts = {
        o["id"]: options.each[(o["id"], shortest["id"])]
        * (hours / shortest["hours"] if o["per"] == "tb_day" else periods)
        for o in options.options
        if o["per"] != "tb"
    }
    return cards * hours * rate, opts
