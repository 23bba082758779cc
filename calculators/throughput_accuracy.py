"""How the speed model (`throughput`) reproduces the published measurements it is fitted to and those it
never saw: each row fitted and with its own publication held out, the cards of each workload in the
measured order, published ratios without absolute figures, and the held-out report behind the ranges
(every publication held out whole, against the range the remaining ones give).

Read by the cost page's accuracy table, its figures, `python -m benchmarks.throughput_accuracy` and the
tests; the calculator itself needs only `throughput.calibration()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from . import throughput


def _mean(values: Iterable[float]) -> float:
    listed = list(values)
    return sum(listed) / len(listed)


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
    """Every measurement against the model: the fitted estimate and error, the estimate with its own
    publication held out and that error, the range of its card and stack, and whether the cards of
    each workload measured on several come out in the measured order."""
    cal = throughput.calibration()
    held = throughput.held_out_estimates()
    by_id = {r.id: r for r in throughput.rows()}
    out_rows = []
    for m in throughput.data()["measurements"]:
        r = by_id[m["id"]]
        fitted = cal.estimate(r)
        left_out = held.get(r.id, fitted)  # a shown row was never fitted: its estimate is out of sample
        shape = throughput.model_inputs(m)
        low, high = cal.range_of(r.gpu["id"], r.stack)
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
                "stack": m["stack"],
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
                "loo_error": left_out / m["tokens_per_s_per_gpu"] - 1,
                "band": [low, high],
            }
        )
    calibrating = [m for m in throughput.data()["measurements"] if m["use"] == "calibration"]
    estimates = {row["id"]: row["estimate"] for row in out_rows}
    loo_estimates = {row["id"]: row["loo_estimate"] for row in out_rows}
    used = [row for row in out_rows if row["use"] == "calibration"]
    orders = _orders(calibrating, lambda m: estimates[m["id"]])
    loo_orders = _orders(calibrating, lambda m: loo_estimates[m["id"]])
    held_out = held_out_report()
    return {
        "target": throughput.TARGET,
        "bandwidth_share": throughput.BANDWIDTH_SHARE,
        "shares": {g: cal.shares[g] for g in sorted(cal.shares)},
        "dequant_share": cal.dequant_share,
        "stacks": {
            s: {"efficiency": st.efficiency, "overhead_s": st.overhead_s, "step_overhead_s": st.step_overhead_s}
            for s, st in cal.stacks.items()
        },
        "band": list(cal.band),
        "wide_band": list(cal.wide_band),
        "stack_bands": {s: list(b) for s, b in cal.stack_bands},
        "well_calibrated": sorted(cal.well_calibrated),
        "rows": out_rows,
        "orders": orders,
        "loo_orders": loo_orders,
        "held_out": held_out,
        "relative": relative_checks(),
        "summary": {
            "calibration_rows": len(used),
            "sources": len({row["label"] for row in used}),
            "worst_error": max(abs(row["error"]) for row in used),
            "worst_loo_error": max(abs(row["loo_error"]) for row in used),
            "fitted_within_target": _share(abs(row["error"]) <= throughput.TARGET for row in used),
            "loo_within_target": _share(abs(row["loo_error"]) <= throughput.TARGET for row in used),
            "held_out_inside_band": held_out["inside_band"],
            "held_out_within_target": held_out["within_target"],
            "orders_hold": all(o["same_order"] for o in orders),
            "loo_orders_hold": all(o["same_order"] for o in loo_orders),
        },
    }


def _share(flags: Iterable[bool]) -> float:
    listed = list(flags)
    return sum(listed) / len(listed)


@lru_cache(maxsize=1)
def held_out_report() -> dict[str, Any]:
    """Each publication held out whole: its rows estimated by a fit without it, against the range that
    fit would show (itself from the remaining publications held out in turn). Nothing a row's own
    publication says enters its estimate or its range."""
    measurements = {m["id"]: m for m in throughput.data()["measurements"]}
    rows_out = []
    for source in sorted({r.source for r in throughput.rows() if r.use == "calibration"}):
        without = throughput.calibrate(frozenset({source}))
        for r in throughput.rows():
            if r.use != "calibration" or r.source != source:
                continue
            estimate = without.estimate(r)
            low, high = without.range_of(r.gpu["id"], r.stack)
            ratio = r.measured / estimate
            rows_out.append(
                {
                    "id": r.id,
                    "source": source,
                    "stack": r.stack,
                    "gpu": r.gpu["id"],
                    "measured": measurements[r.id]["tokens_per_s_per_gpu"],
                    "estimate": estimate,
                    "error": estimate / r.measured - 1,
                    "band": [low, high],
                    "inside": low <= ratio <= high,
                }
            )

    def shares(chosen: list[dict[str, Any]]) -> dict[str, float]:
        return {
            "count": len(chosen),
            "inside_band": _share(row["inside"] for row in chosen),
            "within_target": _share(abs(row["error"]) <= throughput.TARGET for row in chosen),
        }

    by_stack = {s: shares([row for row in rows_out if row["stack"] == s]) for s in throughput.STACKS}
    return {"rows": rows_out, **shares(rows_out), "stacks": by_stack}


def relative_checks() -> list[dict[str, Any]]:
    """Published ratios without absolute figures, against the model's ratio for the calculator's default
    workload on one card of each (the sources do not state theirs)."""
    from guidekit.calc import compute

    out = []
    for rel in throughput.data().get("relative_results", []):
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
