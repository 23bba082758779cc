"""Run every benchmark in turn: `python -m benchmarks` (what `make bench` does)."""

from __future__ import annotations

import sys

from benchmarks import calculators_browser, lighthouse_pages, pilot_estimate_matrix


def main() -> int:
    for bench in (calculators_browser, lighthouse_pages, pilot_estimate_matrix):
        print(f"\n== {bench.__name__}\n")
        status = bench.main([])
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
