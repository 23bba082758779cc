"""Rental arithmetic: throughput per card, interruptions, the cheapest reservation, prices.

Float sums use math.fsum: the built-in sum() changed its rounding in Python 3.12, and the browser's
Pyodide must give the very same figures as the build's CPython.

Throughput is a two-class roofline (Williams, Waterman & Patterson 2009, "Roofline", CACM 52(4)):
the matrix multiplications run at the larger of their FLOPs at a utilization of the card's dense
bf16 peak and their weight traffic at the card's memory bandwidth; the element-wise kernels
(norms, activation functions, rotary embeddings, residual adds, attention I/O, the loss) and the
optimizer step are memory-bound and run at the bandwidth. Matrix FLOPs per token follow the usual
dense-transformer count (Kaplan et al. 2020, section 2.1; Narayanan et al. 2021 for recomputation):
2N forward, 4N backward, 6N for a full fine-tune; LoRA/QLoRA skip the frozen weights' gradients
(4N); gradient checkpointing re-runs the forward (+2N). Several cards add the gradient (and, for
FSDP, weight) collectives over the card's link, as a ring: each card sends 2(n-1)/n of the data
(Patarasuk & Yuan 2009), not overlapped with compute (a lower bound on scaling efficiency).

Interruptions follow Young's first-order model (Young 1974, "A first order approximation to the
optimum checkpoint interval", CACM 17(9)): a failure loses on average half a checkpoint interval
of work, plus the restart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce

NODE_CARDS = 8  # cards per node; a larger run crosses the network between nodes


def flops_per_token(params: int, method: str, checkpointing: bool) -> float:
    factor = 6 if method == "full" else 4
    return (factor + 2 * checkpointing) * params


@dataclass(frozen=True)
class StepWork:
    """One optimizer step on one card, independent of which card runs it."""
    tokens: float             # tokens this card trains per step
    matmul_flops: float
    weight_traffic: float     # bytes of weights the matrix multiplications read
    other_traffic: float      # bytes moved by element-wise kernels and the optimizer step
    sync_payload: float       # bytes handed to collectives per step (before the ring factor)


def card_step(work: StepWork, gpu: dict, utilization: float, bandwidth_share: float) -> dict:
    """Seconds per step on one card and which resource bounds the matrix multiplications."""
    bandwidth = gpu["bandwidth_gb_s"] * 1e9 * bandwidth_share
    compute_s = work.matmul_flops / (utilization * gpu["bf16_dense_tflops"] * 1e12)
    weights_s = work.weight_traffic / bandwidth
    step_s = max(compute_s, weights_s) + work.other_traffic / bandwidth
    return {"step_s": step_s, "tokens_per_s": work.tokens / step_s, "compute_share": compute_s / step_s}


def modelled_scaling(work: StepWork, step_s: float, gpu: dict, cards: int, bandwidth_share: float) -> float:
    """Scaling efficiency inside one node: step time / (step time + ring collectives on the link)."""
    if cards <= 1:
        return 1.0
    n = min(cards, NODE_CARDS)
    link = gpu["interconnect"]["gb_s"] * 1e9 / 2 * bandwidth_share  # the catalog lists both directions
    comm_s = work.sync_payload * (n - 1) / n / link
    return step_s / (step_s + comm_s)


def cluster_tokens_per_s(per_gpu: float, cards: int, efficiency: float, internode: float) -> float:
    """N cards deliver N x one card x the scaling efficiency, x the inter-node efficiency past one node."""
    if cards <= 1:
        return per_gpu
    return per_gpu * cards * efficiency * (internode if cards > NODE_CARDS else 1.0)


def run_hours(train_hours: float, cards: int, failures_per_100: float, interval_hours: float,
              write_hours: float, restart_hours: float, overhead_hours: float) -> dict:
    """Expected wall-clock hours of one output: training, checkpoint writes, interruptions, overhead."""
    writes = train_hours * write_hours / interval_hours if write_hours else 0.0  # no write time: none to count
    work = train_hours + writes
    failures = cards * failures_per_100 / 100 * work  # a failure of any card stops the run
    lost = failures * (restart_hours + min(interval_hours, work) / 2)
    return {"train": train_hours, "writes": writes, "failures": failures, "lost": lost,
            "overhead": overhead_hours, "total": work + lost + overhead_hours}


# -- the reservation planner -----------------------------------------------------------------------

def cheapest_plan(needed_hours: float, items: list[tuple[str, int, float]]) -> dict:
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


def _plan(cover: _Cover, need: int, items: list[tuple[str, int, float]]) -> dict:
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


def _whole_units(hours: float, unit: int) -> int:
    """ceil(hours / unit) less a 1e-9 residue; exact past 2**52 units, where the float quotient can
    round below the need (Fraction is 100x slower, so only there)."""
    if hours / unit < 2 ** 52:
        return math.ceil(hours / unit - 1e-9)
    from fractions import Fraction  # here, not at the top: only this rare case needs it in the browser

    return math.ceil(Fraction(hours) / unit - Fraction(1, 10 ** 9))


class _Cover:
    """What a plan over one set of terms and prices needs whatever the hours: the unit, the cheapest
    term per hour B and the bound past which only copies of B are added, and the cover table."""

    def __init__(self, items: tuple):
        self.unit = reduce(math.gcd, (h for _, h, _ in items))
        self.sizes = sizes = [h // self.unit for _, h, _ in items]
        self.prices = [price for _, _, price in items]
        self.best = best = min(range(len(items)), key=lambda i: (items[i][2] / items[i][1], -items[i][1]))
        others = [s for i, s in enumerate(sizes) if i != best]
        # Fewer than s_B others in all, and fewer than s_B / gcd(s_i, s_B) copies of each: k copies of
        # term i make a multiple of h_B once k reaches that, and can be swapped the same way.
        self.bound = sizes[best] + min(sizes[best] * (max(others, default=0) + 1),
                                       sum((sizes[best] // math.gcd(s, sizes[best]) - 1) * s for s in others))
        self.table = [(0.0, 0, 0, -1)]
        self.plans: dict[int, dict] = {}  # need in units -> its plan

    def table_upto(self, upto: int) -> list:
        """table[u] = (cost, units, count, item) of the cheapest cover of at least u units, grown on demand."""
        table, sizes, prices = self.table, self.sizes, self.prices
        for u in range(len(table), upto + 1):
            table.append(min((round(table[max(0, u - s)][0] + prices[i], 6), table[max(0, u - s)][1] + s,
                              table[max(0, u - s)][2] + 1, i) for i, s in enumerate(sizes)))
        return table


_COVERS: dict[tuple, _Cover] = {}  # the same terms and prices are planned for several hour counts


def _cover(items: tuple) -> _Cover:
    if items not in _COVERS:
        if len(_COVERS) > 256:
            _COVERS.clear()
        _COVERS[items] = _Cover(items)
    return _COVERS[items]


# -- prices -----------------------------------------------------------------------------------------

def option_price(option: dict, term: dict, quantities: dict) -> float:
    """Price of one option over one term: flat per term or per TB per day; per-TB options are per plan."""
    if option["per"] == "term":
        return float(option["usd"][term["id"]])
    if option["per"] == "tb_day":
        return option["usd"] * quantities[option["quantity"]] * term["hours"] / 24
    if option["per"] == "tb":
        return 0.0
    raise ValueError(f"unknown option pricing {option['per']!r}")  # a catalog error, caught by tests


class OptionPrices:
    """The options a plan carries, priced once per input set: each option over one copy of each term
    (the same for every GPU and card count), their sum per term, and those billed once per plan."""

    def __init__(self, options: list[dict], terms: dict, quantities: dict):
        self.options = options
        self.each = {(o["id"], tid): option_price(o, term, quantities) for o in options for tid, term in terms.items()}
        self.per_term = {tid: math.fsum(self.each[(o["id"], tid)] for o in options) for tid in terms}
        self.per_plan = {o["id"]: o["usd"] * quantities[o["quantity"]] for o in options if o["per"] == "tb"}
        self.once = math.fsum(self.per_plan.values())


def term_price(rate: float, cards: int, term: dict, options: OptionPrices) -> float:
    """One term of a plan: cards x hours x price per card-hour + the options billed by term."""
    return cards * term["hours"] * rate + options.per_term[term["id"]]


def plan_breakdown(plan: dict, rate_of, cards: int, terms: dict, options: OptionPrices) -> dict:
    """GPU time per term of the plan and each option's share of the plan's price."""
    gpu = {tid: count * cards * terms[tid]["hours"] * rate_of(tid) for tid, count in plan["terms"]}
    opts = {o["id"]: math.fsum(count * options.each[(o["id"], tid)] for tid, count in plan["terms"])
            for o in options.options if o["per"] != "tb"}
    opts.update(options.per_plan)
    return {"gpu_usd": gpu, "options_usd": opts, "total_usd": math.fsum([*gpu.values(), *opts.values()])}


def on_demand_price(rate: float, cards: int, hours: float, shortest: dict, options: OptionPrices) -> float:
    """Hourly billing: every started hour; options by day as if in terms of the shortest length."""
    billed = math.ceil(hours - 1e-9)
    periods = max(1, math.ceil(billed / shortest["hours"]))
    by_time = math.fsum(options.each[(o["id"], shortest["id"])] * (billed / shortest["hours"] if o["per"] == "tb_day"
                                                                   else periods)
                        for o in options.options if o["per"] != "tb")
    return math.fsum([cards * billed * rate, by_time, *options.per_plan.values()])
