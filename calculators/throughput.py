"""The speed model's evidence: published throughput measurements, each card's share of its matmul peak
fitted to them, and how well the model then reproduces every one of them.

`data/throughput_measurements.json` holds what each source states (card, model, method, precision,
sequence, micro-batch, checkpointing, cards, framework, tokens/s) and how the model reads it (`model_id`,
`assumed` for what the source leaves out, `use`). Each row is evaluated by the cost calculator's own
formulas (`_cost_model.step_work`, `card_step`, `modelled_scaling`) on the memory model's run of that
workload, so the comparison checks the model a reader gets, not a copy of it.

The fit: one share of the dense matmul peak per card, the least-squares fit of the relative error
(estimate / measured − 1) over the card's calibration rows (a one-dimensional golden-section search: the
estimate grows with the share). Only arithmetic and square roots, which IEEE 754 rounds exactly: the
browser's Pyodide links another libm, whose log and exp differ in the last bit, and must fit the very
same shares as CPython. The
bandwidth share stays the calculator's stated 80 %: the calibration rows are compute-bound, and the fit
barely moves with it (the sum of squared errors differs by 1 % between 80 % and 90 %), so fitting it
would pick an end of whatever range it was given. QLoRA's dequantisation rate (a share of that
bandwidth) is fitted to the QLoRA rows as a ratio to their LoRA twin of the same source and shape, each
twin's card share set so the twin is reproduced: the ratio isolates the dequantisation from the stack.

The software stack: each card's share is fitted to measurements of tuned frameworks (NeMo/Megatron,
llm-foundry, torchtitan, the MLPerf submissions); another stack, Hugging Face transformers + PEFT, runs
the same step at an efficiency of its own plus fixed times per optimizer step and per micro-batch
(`_cost_model.on_stack`), all fitted to that stack's measurements with the cards' shares held. A card
measured only on another stack (no tuned row) then takes the share its rows need through that stack's fit.

The range a reader is shown (`Calibration.range_of`) comes from sources held out whole: every row of one
publication (its `label`) is estimated from a fit without that publication, and the band holds the
central 90 % of the measured / estimated ratios. A card calibrated on one publication only, or on FP8 rows only
(whose bf16 speed rests on the FP8 speed-up assumed in `_cost_model`), takes the wide band: every
held-out ratio, and each card's rows estimated at the mean share of the other cards. A stack's band
widens its card's. No fitted row decides its own range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from guidekit.calc import normalize

from . import _data, memory
from ._cost_model import FP8_SPEEDUP, StepWork, card_step, cluster_tokens_per_s, modelled_scaling, on_stack, step_work
from ._memory_model import unsharded

TARGET = 0.2  # every calibration measurement within ±20 %
BANDWIDTH_SHARE = 0.8  # the cost calculator's default share of peak bandwidth (not fitted: see above)
INTERNODE_EFFICIENCY = 0.9  # the cost calculator's default efficiency across nodes
_SHARES = (0.01, 1.0)  # the search range of a share of peak
_METHODS = {"pretrain": "full", "full": "full", "lora": "lora", "qlora": "qlora"}
TUNED, HF = "tuned", "hf"  # the stacks a row may name; the cards' shares are fitted to TUNED rows
STACKS = (HF, TUNED)


@dataclass(frozen=True)
class Stack:
    """A training stack against the tuned frameworks: its efficiency on the same step, and its fixed
    seconds per micro-batch and per optimizer step (`_cost_model.on_stack`). The tuned stack is (1, 0, 0)
    by definition."""

    efficiency: float = 1.0
    overhead_s: float = 0.0  # per micro-batch: the Python loop, kernel launches, data collation
    step_overhead_s: float = 0.0  # per optimizer step: clipping, zeroing, the loss read back, FSDP's syncs


REFERENCE = Stack()


def data() -> dict[str, Any]:
    return _data.throughput_measurements()


@dataclass(frozen=True)
class Row:
    """One measurement, ready to estimate: its step's work, card and card count."""

    id: str
    gpu: dict[str, Any]
    cards: int
    fp8: bool
    measured: float  # tokens/s per GPU
    use: str
    work: StepWork
    stack: str = TUNED
    source: str = ""  # the publication (its label): held out whole
    excluded: str | None = None  # why a shown row is not fitted

    def step_s(self, share: float, dequant_share: float = 1.0, fp8_speedup: float = FP8_SPEEDUP) -> float:
        """Seconds per step on one card of the tuned stack at a share of the matmul peak."""
        step = card_step(self.work, self.gpu, share, BANDWIDTH_SHARE, dequant_share, self.fp8, fp8_speedup)
        step_s: float = step["step_s"]
        return step_s

    def at(self, step_s: float, stack: Stack = REFERENCE) -> float:
        """Tokens/s per GPU from a tuned step time, on a stack and on the row's card count."""
        step_s = on_stack(step_s, self.work.micro_batches, stack)
        efficiency = modelled_scaling(self.work, step_s, self.gpu, self.cards, BANDWIDTH_SHARE)
        per_card = self.work.tokens / step_s
        return cluster_tokens_per_s(per_card, self.cards, efficiency, INTERNODE_EFFICIENCY) / self.cards

    def estimate(
        self, share: float, dequant_share: float = 1.0, stack: Stack = REFERENCE, fp8_speedup: float = FP8_SPEEDUP
    ) -> float:
        """Tokens/s per GPU the calculator's formulas give this row at a share of the matmul peak."""
        return self.at(self.step_s(share, dequant_share, fp8_speedup), stack)


def model_inputs(row: dict[str, Any]) -> dict[str, Any]:
    """The memory calculator's inputs for a measurement's workload (what its source states, and its `assumed`)."""
    source = data()
    arch = source.get("architectures", {}).get(row["model_id"])
    model = (
        {"model": "custom", **{k: v for k, v in arch.items() if k != "source"}} if arch else {"model": row["model_id"]}
    )
    stated = {
        "seq_len": row["seq_len"],
        "micro_batch": row["micro_batch"],
        "gradient_checkpointing": row["gradient_checkpointing"],
    }
    inputs = {
        **model,
        "method": _METHODS[row["method"]],
        **{k: v for k, v in stated.items() if v is not None},
        **{k: v for k, (v, _why) in row.get("assumed", {}).items()},
        # What the source states (DDP keeps a whole copy per card), else a multi-card row is sharded.
        "parallelism": row.get("parallelism") or ("single" if row["gpus"] == 1 else "fsdp"),
        "gpus": min(row["gpus"], memory.MAX_SEARCH_CARDS),
    }
    return inputs


def _row(row: dict[str, Any], gpus: dict[str, Any]) -> Row:
    values, errors = normalize(memory.INPUTS, model_inputs(row))
    errors += memory.check(values) if not errors else []
    if errors or row["gpu"] not in gpus:
        raise ValueError(
            f"calculators/data/throughput_measurements.json: row {row['id']!r} cannot be modelled: "
            f"{errors or 'unknown gpu ' + repr(row['gpu'])}"
        )
    state = unsharded(memory.build_run(memory.prepare(values)))
    global_batch = row.get("global_batch")
    work = step_work(state, row["gpus"], global_batch * values["seq_len"] if global_batch else None)
    return Row(
        row["id"],
        gpus[row["gpu"]],
        row["gpus"],
        row["precision"] == "fp8",
        row["tokens_per_s_per_gpu"],
        row["use"],
        work,
        row["stack"],
        row["label"],
        row.get("excluded"),
    )


@lru_cache(maxsize=None)
def rows() -> tuple[Row, ...]:
    gpus = {g["id"]: g for g in _data.gpus()}
    return tuple(_row(r, gpus) for r in data()["measurements"])


def _search(error: Callable[[float], float], low: float, high: float, steps: int = 80) -> float:
    """The x in [low, high] that minimises a unimodal `error(x)`: golden-section search."""
    a, b = low, high
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = error(c), error(d)
    for _ in range(steps):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = error(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = error(d)
    return (a + b) / 2


def _squared_error(pairs: Iterable[tuple[float, float]]) -> float:
    return math.fsum((estimate / measured - 1) ** 2 for estimate, measured in pairs)


def fit_share(
    fitted: list[Row],
    fp8_speedup: float = FP8_SPEEDUP,
    dequant_share: float = 1.0,
    stacks: dict[str, Stack] | None = None,
) -> float:
    """One card's share of its matmul peak, fitted to its rows (each on its stack, the tuned one by default)."""
    stack_of = stacks or {}
    return _search(
        lambda u: _squared_error(
            (r.estimate(u, dequant_share, stack_of.get(r.stack, REFERENCE), fp8_speedup), r.measured) for r in fitted
        ),
        *_SHARES,
    )


def _twin_share(twin: Row) -> float:
    """The share at which a LoRA twin is reproduced exactly (its stack's speed, whatever it is)."""
    return _search(lambda u: (twin.estimate(u) / twin.measured - 1) ** 2, *_SHARES)


def fit_dequant(pairs: list[tuple[Row, Row]]) -> float:
    """QLoRA's dequantisation rate (a share of the achieved bandwidth), fitted to (QLoRA, LoRA twin) pairs."""
    if not pairs:
        return 1.0
    shares = [_twin_share(twin) for _, twin in pairs]
    return _search(
        lambda k: _squared_error(
            (q.estimate(u, k) / twin.estimate(u), q.measured / twin.measured) for (q, twin), u in zip(pairs, shares)
        ),
        0.01,
        1.0,
    )


def _pairs(all_rows: Iterable[Row], twin: str = "lora_twin") -> list[tuple[Row, Row]]:
    """(row, its twin) for the rows that name one: a QLoRA row's LoRA twin, or an FP8 row's bf16 twin."""
    by_id = {r.id: r for r in all_rows}
    return [(by_id[m["id"]], by_id[m[twin]]) for m in data()["measurements"] if m.get(twin)]


def fit_fp8(pairs: list[tuple[Row, Row]]) -> float:
    """What FP8 gains on the linear layers over bf16, fitted to (FP8, bf16 twin) pairs of one source and
    shape: each twin's share set so the twin is reproduced, the speed-up so the pairs' ratios are. None:
    the peak ratio."""
    if not pairs:
        return FP8_SPEEDUP
    shares = [_twin_share(twin) for _, twin in pairs]
    return _search(
        lambda k: _squared_error(
            (f.estimate(u, fp8_speedup=k) / twin.estimate(u), f.measured / twin.measured)
            for (f, twin), u in zip(pairs, shares)
        ),
        1.0,
        FP8_SPEEDUP,
    )


def _solve(columns: list[list[float]], target: list[float]) -> list[float] | None:
    """The least-squares coefficients of `columns` against `target` (normal equations, at most three
    unknowns, Gaussian elimination); None when the columns are not independent."""
    n = len(columns)
    rows_ = [
        [math.fsum(p * q for p, q in zip(ci, cj)) for cj in columns] + [math.fsum(p * q for p, q in zip(ci, target))]
        for ci in columns
    ]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(rows_[r][c]))
        rows_[c], rows_[pivot] = rows_[pivot], rows_[c]
        if abs(rows_[c][c]) <= 1e-12 * max(1.0, abs(rows_[c][n])):
            return None
        for r in range(n):
            if r != c:
                f = rows_[r][c] / rows_[c][c]
                rows_[r] = [x - f * y for x, y in zip(rows_[r], rows_[c])]
    return [rows_[i][n] / rows_[i][i] for i in range(n)]


def fit_stack(fitted: list[Row], share_of: Callable[[str], float], dequant_share: float) -> Stack:
    """A stack's efficiency, its fixed time per micro-batch and per optimizer step, fitted to its rows with
    each card's share held.

    Least squares of the relative error in time per step, which is linear in (1 / efficiency, o, p): the
    tuned stack's step time t over the row's m micro-batches, measured at r tokens/s per card, predicts
    t / e + o m + p seconds where the row took tokens / r (the scaling of a multi-card row taken at the
    tuned step time). Exact and instant, so that holding out each publication costs nothing. A fixed
    time needs rows of at least two micro-batch sizes to be told apart from a lower efficiency (with one
    size, none is assumed), and the time per micro-batch needs rows that accumulate a different number of
    micro-batches to be told apart from the time per step (else there is only the latter). Of the forms
    allowed, the least error with no time negative and the stack never faster than the tuned one."""
    if not fitted:
        return REFERENCE
    a, b, c = [], [], []
    for r in fitted:
        step_s = r.step_s(share_of(r.gpu["id"]), dequant_share)  # the stacks' rows are bf16
        tuned = r.at(step_s)  # tokens/s per GPU on the tuned stack
        took = step_s * tuned / r.measured  # the step time the measurement implies, scaling as tuned
        a.append(step_s / took)
        b.append(r.work.micro_batches / took)
        c.append(1 / took)
    forms: list[tuple[int, ...]] = [()]  # which of (per micro-batch, per step) are fitted
    if len({r.work.tokens / r.work.micro_batches for r in fitted}) > 1:
        forms.append((2,))
        if len({r.work.micro_batches for r in fitted}) > 1:
            forms += [(1,), (1, 2)]
    ones = [1.0] * len(fitted)
    best: tuple[float, list[float]] | None = None
    for form in forms:
        times = [(b, c)[i - 1] for i in form]
        free = _solve([a, *times], ones)
        if free is not None and free[0] < 1:  # faster than tuned: efficiency 1, the fixed times alone
            rest = _solve(times, [1 - x for x in a]) if times else []
            free = None if rest is None else [1.0, *rest]
        if free is None or any(v < 0 for v in free[1:]):
            continue
        coef = [free[0], 0.0, 0.0]
        for i, v in zip(form, free[1:]):
            coef[i] = v
        error = math.fsum((x * coef[0] + y * coef[1] + z * coef[2] - 1) ** 2 for x, y, z in zip(a, b, c))
        if best is None or error < best[0]:
            best = (error, coef)
    if best is None:
        return REFERENCE
    inverse, per_micro, per_step = best[1]
    return Stack(1 / inverse, per_micro, per_step)


def _mean(values: Iterable[float]) -> float:
    listed = list(values)
    return math.fsum(listed) / len(listed)


def _by_gpu(fitted: Iterable[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in fitted:
        out.setdefault(r.gpu["id"], []).append(r)
    return out


@dataclass(frozen=True)
class Fit:
    """What the rows of every publication but `held_out` give: each card's share, QLoRA's dequantisation
    rate and each stack."""

    shares: dict[str, float]  # GPU id -> fitted share of its dense matmul peak (cards with tuned rows only)
    dequant_share: float
    stacks: dict[str, Stack]
    fp8_speedup: float

    def share(self, gpu_id: str) -> float:
        """The card's fitted share, or for a card with no measurement the mean of the others'."""
        return self.shares.get(gpu_id) or _mean(self.shares.values())

    def estimate(self, r: Row) -> float:
        stack = self.stacks.get(r.stack, REFERENCE)
        return r.estimate(self.share(r.gpu["id"]), self.dequant_share, stack, self.fp8_speedup)


def _calibrating(held_out: frozenset[str]) -> list[Row]:
    return [r for r in rows() if r.use == "calibration" and r.source not in held_out]


# Holding a publication out leaves most cards' rows and most pairs as they were: the same rows give the
# same fit, so each is fitted once per set of row ids (and the constants it is fitted under).


@lru_cache(maxsize=None)
def _share_of(ids: tuple[str, ...], fp8_speedup: float, dequant_share: float, stacks: tuple[Stack, ...]) -> float:
    by_id = {r.id: r for r in rows()}
    return fit_share([by_id[i] for i in ids], fp8_speedup, dequant_share, dict(zip(STACKS, stacks, strict=True)))


@lru_cache(maxsize=None)
def _pairs_fit(ids: tuple[tuple[str, str], ...], twin: str) -> float:
    by_id = {r.id: r for r in rows()}
    pairs = [(by_id[a], by_id[b]) for a, b in ids]
    return fit_fp8(pairs) if twin == "fp8_twin" else fit_dequant(pairs)


def _fit_shares(
    fitted: Iterable[Row], fp8_speedup: float, dequant_share: float, stacks: dict[str, Stack] | None = None
) -> dict[str, float]:
    """Each card's share, fitted to its rows among `fitted` (each on its stack, the tuned one by default)."""
    on = tuple((stacks or {}).get(s, REFERENCE) for s in STACKS)
    return {
        gid: _share_of(tuple(r.id for r in own), fp8_speedup, dequant_share, on) for gid, own in _by_gpu(fitted).items()
    }


def _twins(held_out: frozenset[str], twin: str) -> list[tuple[Row, Row]]:
    """The pairs of publications not held out. A pair on another variant of a card is kept: its ratio is
    measured on one card and stack, whatever that card's absolute speed."""
    kept = {
        r.id for r in rows() if r.source not in held_out and (r.use == "calibration" or r.excluded == "card_variant")
    }
    return [(a, b) for a, b in _pairs(rows(), twin) if a.id in kept and b.id in kept]


def _twin_fit(held_out: frozenset[str], twin: str) -> float:
    """The FP8 speed-up (`fp8_twin`) or QLoRA's dequantisation rate (`lora_twin`) without `held_out`."""
    return _pairs_fit(tuple((a.id, b.id) for a, b in _twins(held_out, twin)), twin)


@lru_cache(maxsize=None)
def fit(held_out: frozenset[str] = frozenset()) -> Fit:
    """The fit without the publications `held_out` (none: the calculator's): the FP8 speed-up and QLoRA's
    rate from their pairs, each card's share from the tuned rows, then each other stack on the cards that
    have a share. A card measured only on another stack then takes its share through that stack's fit."""
    fp8 = _twin_fit(held_out, "fp8_twin")
    dequant = _twin_fit(held_out, "lora_twin")
    calibrating = _calibrating(held_out)
    shares = _fit_shares((r for r in calibrating if r.stack == TUNED), fp8, dequant)
    own = Fit(shares, dequant, {}, fp8)
    held = [r for r in calibrating if r.gpu["id"] in shares]
    stacks = {TUNED: REFERENCE} | {
        s: fit_stack([r for r in held if r.stack == s], own.share, dequant) for s in STACKS if s != TUNED
    }
    shares |= _fit_shares((r for r in calibrating if r.gpu["id"] not in shares), fp8, dequant, stacks)
    return Fit(shares, dequant, stacks, fp8)


@lru_cache(maxsize=None)
def held_out_estimates(held_out: frozenset[str] = frozenset()) -> dict[str, float]:
    """Row id -> its estimate from a fit without its own publication (and without `held_out`)."""
    out: dict[str, float] = {}
    for source in sorted({r.source for r in _calibrating(held_out)}):
        without = fit(held_out | {source})
        out |= {r.id: without.estimate(r) for r in _calibrating(held_out) if r.source == source}
    return out


COVERAGE = 0.9  # the share of held-out measurements a range is meant to hold


def _quantile(ordered: list[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between the two nearest."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _span(ratios: Iterable[float]) -> tuple[float, float]:
    """The central `COVERAGE` of the held-out measured / estimate ratios (the estimate itself always inside):
    not their extremes, which one odd measurement would set for every reader."""
    ordered = sorted(ratios)
    if not ordered:
        return 1.0, 1.0
    tail = (1 - COVERAGE) / 2
    return min(_quantile(ordered, tail), 1.0), max(_quantile(ordered, 1 - tail), 1.0)


@dataclass(frozen=True)
class Calibration(Fit):
    """The calculator's fit and the ranges its estimates carry (see the module docstring)."""

    band: tuple[float, float] = (1.0, 1.0)  # a tuned card calibrated on several publications, bf16 among them
    wide_band: tuple[float, float] = (1.0, 1.0)  # a card on one publication, on FP8 rows only, or on none
    stack_bands: tuple[tuple[str, tuple[float, float]], ...] = ()  # a stack's held-out spread
    well_calibrated: frozenset[str] = frozenset()  # the cards that take `band`

    def range_of(self, gpu_id: str, stack: str = TUNED) -> tuple[float, float]:
        """(low, high): measured / estimate at the ends of this card's range on this stack."""
        low, high = self.band if gpu_id in self.well_calibrated else self.wide_band
        other = dict(self.stack_bands).get(stack)
        return (min(low, other[0]), max(high, other[1])) if other else (low, high)

    @property
    def uncalibrated_band(self) -> tuple[float, float]:
        return self.wide_band


def calibrate(held_out: frozenset[str] = frozenset()) -> Calibration:
    """The fit without `held_out`, with the ranges its own held-out publications give."""
    base = fit(held_out)
    calibrating = _calibrating(held_out)
    estimates = held_out_estimates(held_out)
    ratio = {r.id: r.measured / estimates[r.id] for r in calibrating}
    tuned = [r for r in calibrating if r.stack == TUNED]
    sources = {gid: {r.source for r in own} for gid, own in _by_gpu(tuned).items()}
    bf16 = {r.gpu["id"] for r in tuned if not r.fp8}
    well = frozenset(gid for gid, s in sources.items() if len(s) > 1 and gid in bf16)
    # A card fitted on no row of its own: each card's rows estimated at the mean of the other cards' shares.
    others = [
        r.measured
        / r.estimate(
            _mean(u for g, u in base.shares.items() if g != r.gpu["id"]),
            base.dequant_share,
            REFERENCE,
            base.fp8_speedup,
        )
        for r in tuned
        if len(base.shares) > 1
    ]
    return Calibration(
        base.shares,
        base.dequant_share,
        base.stacks,
        base.fp8_speedup,
        band=_span(ratio[r.id] for r in tuned if r.gpu["id"] in well),
        wide_band=_span([*(ratio[r.id] for r in tuned), *others]),
        stack_bands=tuple((s, _span(ratio[r.id] for r in calibrating if r.stack == s)) for s in STACKS if s != TUNED),
        well_calibrated=well,
    )


@lru_cache(maxsize=None)
def calibration() -> Calibration:
    """The fit the cost calculator uses and its ranges, computed once per process."""
    return calibrate()
