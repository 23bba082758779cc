"""The speed model against published throughput measurements: estimate, error and leave-one-out error
for every row of calculators/data/throughput_measurements.json, and the cards of each workload in order.

    python -m benchmarks.throughput_accuracy [--json FILE]

The rows calibrate the model (`calculators.throughput`), so the fitted error alone would flatter it: the
leave-one-out column estimates each calibration row from its card's share fitted without it. The cost
page renders the same comparison at build time (`<!-- throughput-accuracy -->`); this command prints it
and writes it as JSON (default: benchmarks/results/throughput_accuracy.json). Exit status 1 when a
calibration row misses the target or a workload's cards come out of the measured order.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from calculators import throughput

DEFAULT_JSON = Path(__file__).parent / "results" / "throughput_accuracy.json"


def _pct(value) -> str:
    return "—" if value is None else f"{value:+.1%}"


def table(acc: dict) -> str:
    lines = [
        f"{'measurement':<52} {'cards':>5} {'use':<13} {'measured':>9} {'estimate':>9} {'error':>7} {'left out':>8}"
    ]
    for r in acc["rows"]:
        use = r["use"] if r["use"] == "calibration" else f"({r['excluded']})"
        lines.append(
            f"{r['id']:<52} {r['gpus']:>5} {use:<13} {r['measured']:9.0f} {r['estimate']:9.0f} "
            f"{_pct(r['error']):>7} {_pct(r['loo_error']):>8}"
        )
    lines.append("")
    lines.append(
        "fitted share of the dense matmul peak: "
        + ", ".join(f"{g} {s:.1%}" for g, s in acc["shares"].items())
        + f"; QLoRA dequantisation at {acc['dequant_share']:.1%} of the achieved bandwidth"
    )
    low, high = acc["band"]
    wide = acc["uncalibrated_band"]
    lines.append(
        f"range shown to the reader: {low - 1:+.1%} to {high - 1:+.1%} (a card without measurements: "
        f"{wide[0] - 1:+.1%} to {wide[1] - 1:+.1%})"
    )
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
        f"{s['calibration_rows']} calibration rows: worst error {s['worst_error']:.1%}, left out "
        f"{s['worst_loo_error']:.1%} (target: within {acc['target']:.0%}); cards in the measured order: "
        f"{'yes' if s['orders_hold'] and s['loo_orders_hold'] else 'no'}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help="where to write the rows (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    acc = throughput.accuracy()
    print(table(acc))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(acc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {args.json}")
    s = acc["summary"]
    return 0 if s["within_target"] and s["loo_within_target"] and s["orders_hold"] and s["loo_orders_hold"] else 1


if __name__ == "__main__":
    sys.exit(main())
