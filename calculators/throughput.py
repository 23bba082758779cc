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

The range a reader is shown (`Calibration.band`): the lowest and highest measured / estimated ratio of
the calibration rows, each estimated with its own row left out of the fit (leave-one-out). A card with no
calibration row gets the wider band of the leave-one-card-out test: each card's rows estimated with the
mean of the other cards' shares.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import _data, memory
from ._cost_model import StepWork, card_step, cluster_tokens_per_s, modelled_scaling, step_work
from ._inputs import normalize
from ._memory_model import unsharded

TARGET = 0.2  # every calibration measurement within ±20 %
BANDWIDTH_SHARE = 0.8  # the cost calculator's default share of peak bandwidth (not fitted: see above)
INTERNODE_EFFICIENCY = 0.9  # the cost calculator's default efficiency across nodes
_SHARES = (0.01, 1.0)  # the search range of a share of peak
_METHODS = {"pretrain": "full", "full": "full", "lora": "lora", "qlora": "qlora"}


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

    def estimate(self, share: float, dequant_share: float = 1.0) -> float:
        """Tokens/s per GPU the calculator's formulas give this row at a share of the matmul peak."""
        step = card_step(self.work, self.gpu, share, BANDWIDTH_SHARE, dequant_share, self.fp8)
        efficiency = modelled_scaling(self.work, step["step_s"], self.gpu, self.cards, BANDWIDTH_SHARE)
        return cluster_tokens_per_s(step["tokens_per_s"], self.cards, efficiency, INTERNODE_EFFICIENCY) / self.cards


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
        "parallelism": "single" if row["gpus"] == 1 else "fsdp",
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
    )


@lru_cache(maxsize=None)
def rows() -> tuple[Row, ...]:
    gpus = {g["id"]: g for g in _data.gpus()}
    return tuple(_row(r, gpus) for r in data()["measurements"])


def _search(error: Callable[[float], float], low: float, high: float) -> float:
    """The x in [low, high] that minimises a unimodal `error(x)`: golden-section search."""
    a, b = low, high
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = error(c), error(d)
    for _ in range(80):
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


def fit_share(fitted: list[Row]) -> float:
    """One card's share of its matmul peak, fitted to its rows."""
    return _search(lambda u: _squared_error((r.estimate(u), r.measured) for r in fitted), *_SHARES)


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


def _pairs(all_rows: Iterable[Row]) -> list[tuple[Row, Row]]:
    by_id = {r.id: r for r in all_rows}
    return [(by_id[m["id"]], by_id[m["lora_twin"]]) for m in data()["measurements"] if m.get("lora_twin")]


def _mean(values: Iterable[float]) -> float:
    listed = list(values)
    return math.fsum(listed) / len(listed)


@dataclass(frozen=True)
class Calibration:
    shares: dict[str, float]  # GPU id -> fitted share of its dense matmul peak (calibrated cards only)
    dequant_share: float  # QLoRA's dequantisation rate, as a share of the achieved bandwidth
    band: tuple[float, float]  # (low, high): measured / estimate, leave-one-out, over the calibration rows
    uncalibrated_band: tuple[float, float]  # the same for a card fitted on no row of its own (leave one card out)

    def share(self, gpu_id: str) -> float:
        """The card's fitted share, or for a card with no measurement the mean of the others'."""
        return self.shares.get(gpu_id) or _mean(self.shares.values())

    def range_of(self, gpu_id: str) -> tuple[float, float]:
        return self.band if gpu_id in self.shares else self.uncalibrated_band


def _by_gpu(fitted: Iterable[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in fitted:
        out.setdefault(r.gpu["id"], []).append(r)
    return out


def _leave_one_out(calibrating: list[Row]) -> dict[str, float | None]:
    """Row id -> its estimate with the card's share fitted to the card's other rows (None: no other row)."""
    out: dict[str, float | None] = {}
    for own in _by_gpu(calibrating).values():
        for r in own:
            others = [o for o in own if o is not r]
            out[r.id] = r.estimate(fit_share(others)) if others else None
    return out


def _leave_one_card_out(calibrating: list[Row], shares: dict[str, float]) -> dict[str, float]:
    """Row id -> its estimate at the mean of the other cards' shares."""
    return {
        r.id: r.estimate(_mean(s for g, s in shares.items() if g != r.gpu["id"]))
        for r in calibrating
        if len(shares) > 1
    }


@lru_cache(maxsize=None)
def _fit() -> tuple[Calibration, dict[str, float | None], dict[str, float]]:
    all_rows = rows()
    calibrating = [r for r in all_rows if r.use == "calibration"]
    shares = {gid: fit_share(own) for gid, own in _by_gpu(calibrating).items()}
    loo = _leave_one_out(calibrating)
    locard = _leave_one_card_out(calibrating, shares)
    ratios = [r.measured / estimate for r in calibrating if (estimate := loo[r.id])]
    card_ratios = [r.measured / locard[r.id] for r in calibrating if r.id in locard]
    band = (min(ratios + [1.0]), max(ratios + [1.0]))
    wide = (min(card_ratios + [band[0]]), max(card_ratios + [band[1]]))
    return Calibration(shares, fit_dequant(_pairs(all_rows)), band, wide), loo, locard


def calibration() -> Calibration:
    """The fit the cost calculator uses, computed once per process (about 40 ms in CPython)."""
    return _fit()[0]


def _workload(m: dict[str, Any]) -> tuple[object, ...]:
    """Rows that differ only by card (and submitter) measure the same workload."""
    return (
        m["model_id"],
        m["method"],
        m["precision"],
        m["seq_len"],
        m["micro_batch"],
        m["gradient_checkpointing"],
        m["gpus"],
    )


def _orders(measurements: list[dict[str, Any]], estimate_of: Callable[[dict[str, Any]], float]) -> list[dict[str, Any]]:
    """For each workload measured on several cards: the cards fastest first, as measured and as estimated."""
    groups: dict[tuple[object, ...], dict[str, list[dict[str, Any]]]] = {}
    for m in measurements:
        groups.setdefault(_workload(m), {}).setdefault(m["gpu"], []).append(m)
    out = []
    for cards in groups.values():
        if len(cards) < 2:
            continue
        measured = {g: _mean(m["tokens_per_s_per_gpu"] for m in ms) for g, ms in cards.items()}
        estimated = {g: _mean(estimate_of(m) for m in ms) for g, ms in cards.items()}
        by_measured = sorted(measured, key=measured.__getitem__, reverse=True)
        by_estimate = sorted(estimated, key=estimated.__getitem__, reverse=True)
        first = cards[by_measured[0]][0]
        out.append(
            {
                "model": first["model"],
                "method": first["method"],
                "precision": first["precision"],
                "seq_len": first["seq_len"],
                "gpus": first["gpus"],
                "measured_order": by_measured,
                "estimated_order": by_estimate,
                "same_order": by_measured == by_estimate,
                "measured": measured,
                "estimated": estimated,
            }
        )
    return out


def accuracy() -> dict[str, Any]:
    """Every measurement against the model: the fitted estimate and error, the leave-one-out ones, and
    whether the cards of each workload measured on several come out in the measured order."""
    cal, loo, locard = _fit()
    by_id = {r.id: r for r in rows()}
    pairs = {q.id: twin for q, twin in _pairs(rows())}
    out_rows = []
    for m in data()["measurements"]:
        r = by_id[m["id"]]
        if r.id in pairs:  # a QLoRA row: its twin's stack speed, the fitted dequantisation rate
            twin = pairs[r.id]
            u = _twin_share(twin)
            fitted = r.estimate(u, cal.dequant_share) / twin.estimate(u) * twin.measured
            others = [(q, t) for q, t in _pairs(rows()) if q is not r]
            left_out: float | None = r.estimate(u, fit_dequant(others)) / twin.estimate(u) * twin.measured
        else:
            fitted = r.estimate(cal.share(r.gpu["id"]))
            left_out = loo.get(r.id) if r.use == "calibration" else fitted
        shape = model_inputs(m)
        out_rows.append(
            {
                "id": m["id"],
                "gpu": m["gpu"],
                "gpu_name": r.gpu["name"],
                "gpus": m["gpus"],
                "model": m["model"],
                "method": m["method"],
                "precision": m["precision"],
                "seq_len": shape.get("seq_len"),
                "micro_batch": shape.get("micro_batch"),
                "checkpointing": shape.get("gradient_checkpointing"),
                "framework": m["framework"],
                "label": m["label"],
                "source_title": m["source_title"],
                "url": m["url"],
                "date": m["date"],
                "use": m["use"],
                "excluded": m.get("excluded"),
                "assumed": sorted(m.get("assumed", {})),
                "lora_twin": m.get("lora_twin"),
                "measured": m["tokens_per_s_per_gpu"],
                "estimate": fitted,
                "error": fitted / m["tokens_per_s_per_gpu"] - 1,
                "loo_estimate": left_out,
                "loo_error": None if left_out is None else left_out / m["tokens_per_s_per_gpu"] - 1,
            }
        )
    calibrating = [m for m in data()["measurements"] if m["use"] == "calibration"]
    estimates = {row["id"]: row["estimate"] for row in out_rows}
    loo_estimates = {row["id"]: row["loo_estimate"] for row in out_rows}
    used = [row for row in out_rows if row["use"] == "calibration"]
    orders = _orders(calibrating, lambda m: estimates[m["id"]])
    loo_orders = _orders(calibrating, lambda m: loo_estimates[m["id"]])
    worst = max(abs(row["error"]) for row in used)
    worst_loo = max(abs(row["loo_error"]) for row in used if row["loo_error"] is not None)
    return {
        "target": TARGET,
        "bandwidth_share": BANDWIDTH_SHARE,
        "shares": {g: cal.shares[g] for g in sorted(cal.shares)},
        "dequant_share": cal.dequant_share,
        "band": list(cal.band),
        "uncalibrated_band": list(cal.uncalibrated_band),
        "leave_one_card_out": {rid: est for rid, est in locard.items()},
        "rows": out_rows,
        "orders": orders,
        "loo_orders": loo_orders,
        "relative": relative_checks(),
        "summary": {
            "calibration_rows": len(used),
            "worst_error": worst,
            "worst_loo_error": worst_loo,
            "within_target": all(abs(row["error"]) <= TARGET for row in used),
            "loo_within_target": all(row["loo_error"] is not None and abs(row["loo_error"]) <= TARGET for row in used),
            "orders_hold": all(o["same_order"] for o in orders),
            "loo_orders_hold": all(o["same_order"] for o in loo_orders),
        },
    }


def relative_checks() -> list[dict[str, Any]]:
    """Published ratios without absolute figures, against the model's ratio for the calculator's default
    workload on one card of each (the sources do not state theirs)."""
    from ._registry import compute

    out = []
    for rel in data().get("relative_results", []):
        faster, slower = rel["gpus"]
        speeds = {}
        for gid in rel["gpus"]:
            answer = compute("cost", {"gpu": gid, "cards": 1, "memory_per_gpu_gb": 1})
            speeds[gid] = answer["result"]["tokens_per_s_per_gpu"]
        out.append(
            {
                "id": rel["id"],
                "faster": faster,
                "slower": slower,
                "result": rel["result"],
                "ratio_low": rel["ratio_low"],
                "ratio_high": rel["ratio_high"],
                "precision": rel["precision"],
                "url": rel["url"],
                "modelled_ratio": speeds[faster] / speeds[slower],
            }
        )
    return out
