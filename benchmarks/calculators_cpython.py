"""The cost calculator's answer time in CPython, as a ratio to the memory calculator's in the same run.

A cost answer prices every catalog GPU at 11 card counts, plans each reservation and repeats the
ranking at both ends of the throughput range; the memory answer is the baseline the page already had.
Cases: the defaults, a pinned term, and a job far longer than the longest term (the planner's long path).

    python -m benchmarks.calculators_cpython [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import calculators

CASES = {
    "defaults": {},
    "pinned week": {"term": "1w"},
    "sweep of 6, 64 cards": {"runs": 6, "cards": 64},
    "long job (1e11 tokens)": {"tokens": 1e11, "epochs": 3},
    "sweep of 6, 8 cards, 48 h deadline": {"runs": 6, "cards": 8, "deadline_hours": 48},
    "spot, billed by the second": {"capacity": "spot", "billing": "second"},
    # The reader's own prices leave the H100 a month and on-demand hours only (0: not offered).
    "own prices, two terms offered": {
        "gpu": "h100-sxm-80gb",
        **{f"price_h100-sxm-80gb_{t}": 0 for t in ("spot", "1d", "1w", "3m")},
        "price_h100-sxm-80gb_hourly": 1.99,
        "price_h100-sxm-80gb_1m": 1.6,
    },
}


def median_seconds(name: str, inputs: dict, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = calculators.compute(name, inputs)
        times.append(time.perf_counter() - start)
        assert answer["ok"], answer
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    baseline = median_seconds("memory", {}, args.repeat)
    print(f"memory calculator, defaults (baseline): {baseline * 1000:.1f} ms")
    for label, inputs in CASES.items():
        seconds = median_seconds("cost", inputs, args.repeat)
        print(f"cost, {label}: {seconds * 1000:.1f} ms, {seconds / baseline:.1f}× the baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
