"""The speed model against published throughput measurements: estimate, error and error with its
publication held out for every row of calculators/data/throughput_measurements.json, the held-out
report behind the ranges, and the cards of each workload in order.

    python -m benchmarks.throughput_accuracy [--json FILE]

The rows calibrate the model (`calculators.throughput`), so the fitted error alone would flatter it: the
held-out column estimates each calibration row from a fit without any row of its publication, and the
held-out report checks each publication against the range the others give. The cost page renders the
same comparison at build time (`<!-- throughput-accuracy -->`); this command prints it and writes it as
JSON (default: benchmarks/results/throughput_accuracy.json). Exit status 1 when, on the tuned frameworks
that calibrate the cards, fewer than 80 % of the held-out measurements fall inside their range or within
the target, or a workload's cards come out of the measured order.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from calculators import throughput_accuracy

DEFAULT_JSON = Path(__file__).parent / "results" / "throughput_accuracy.json"
HELD_OUT_GOAL = 0.8  # the share of held-out measurements inside their range, and within the target


def _pct(value) -> str:
    return "—" if value is None else f"{value:+.1%}"


def table(acc: dict) -> str:
    lines = [
        f"{'measurement':<52} {'cards':>5} {'stack':<5} {'use':<13} {'measured':>9} {'estimate':>9} {'error':>7} "
        f"{'held out':>8}"
    ]
    for r in acc["rows"]:
        use = r["use"] if r["use"] == "calibration" else f"({r['excluded']})"
        lines.append(
            f"{r['id']:<52} {r['gpus']:>5} {r['stack']:<5} {use:<13} {r['measured']:9.0f} {r['estimate']:9.0f} "
            f"{_pct(r['error']):>7} {_pct(r['loo_error']):>8}"
        )
    lines.append("")
    lines.append(
        "fitted share of the dense matmul peak: "
        + ", ".join(f"{g} {s:.1%}" for g, s in acc["shares"].items())
        + f"; QLoRA dequantisation at {acc['dequant_share']:.1%} of the achieved bandwidth"
    )
    for stack, fitted in acc["stacks"].items():
        lines.append(
            f"stack {stack}: efficiency {fitted['efficiency']:.1%}, {fitted['overhead_s']:.3f} s per micro-batch, "
            f"{fitted['step_overhead_s']:.3f} s per optimizer step"
        )
    low, high = acc["band"]
    wide = acc["wide_band"]
    lines.append(
        f"range shown to the reader: {low - 1:+.1%} to {high - 1:+.1%} on {', '.join(acc['well_calibrated'])}; "
        f"a card on one publication, FP8 only or none: {wide[0] - 1:+.1%} to {wide[1] - 1:+.1%}; "
        + "; ".join(f"stack {s}: at least {b[0] - 1:+.1%} to {b[1] - 1:+.1%}" for s, b in acc["stack_bands"].items())
    )
    lines.append("")
    lines.append(f"{'held out, by publication':<52} {'source':<22} {'error':>7} {'range':>15} inside")
    for r in acc["held_out"]["rows"]:
        band = f"{r['band'][0] - 1:+.0%}..{r['band'][1] - 1:+.0%}"
        lines.append(
            f"{r['id']:<52} {r['source'][:22]:<22} {r['error']:+7.1%} {band:>15} {'yes' if r['inside'] else 'NO'}"
        )
    lines.append("")
    for o in acc["orders"]:
        lines.append(
            f"order, {o['model']} {o['method']} {o['precision']} s={o['seq_len']} x{o['gpus']}: measured "
            f"{' > '.join(o['measured_order'])}; estimated {' > '.join(o['estimated_order'])}"
            f" [{'ok' if o['same_order'] else 'WRONG'}]"
        )
    for rel in acc["relative"]:
        lines.append(
            f"published ratio {rel['faster']} / {rel['slower']}: {rel['result']}; the model, "
            f"calculator defaults on one card: {rel['modelled_ratio']:.2f}x"
        )
    s = acc["summary"]
    lines.append(
        f"{s['calibration_rows']} calibration rows from {s['sources']} publications: worst error {s['worst_error']:.1%}, "
        f"{s['fitted_within_target']:.0%} within {acc['target']:.0%}; publication held out: worst "
        f"{s['worst_loo_error']:.1%}, {s['held_out_within_target']:.0%} within {acc['target']:.0%}, "
        f"{s['held_out_inside_band']:.0%} inside the range the other publications give; cards in the measured "
        f"order: {'yes' if s['orders_hold'] and s['loo_orders_hold'] else 'no'}"
    )
    for stack, part in acc["held_out"]["stacks"].items():
        lines.append(
            f"  stack {stack}: {part['count']} held-out rows, {part['inside_band']:.0%} inside their range, "
            f"{part['within_target']:.0%} within {acc['target']:.0%}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help="where to write the rows (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    acc = throughput_accuracy.accuracy()
    print(table(acc))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(acc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {args.json}")
    s = acc["summary"]
    tuned = acc["held_out"]["stacks"]["tuned"]
    held = min(tuned["inside_band"], tuned["within_target"])
    return 0 if held >= HELD_OUT_GOAL and s["orders_hold"] and s["loo_orders_hold"] else 1


if __name__ == "__main__":
    sys.exit(main())
