"""Run every benchmark in turn: `python -m benchmarks` (what `make bench` does)."""

from __future__ import annotations

import sys

from benchmarks import (
    browser_tests_cpu,
    calculators_browser,
    calculators_cpython,
    example_startup,
    lighthouse_pages,
    memory_accuracy,
    pilot_scale_loop,
    throughput_accuracy,
)


def main() -> int:
    for bench in (
        calculators_cpython,
        calculators_browser,
        example_startup,
        lighthouse_pages,
        memory_accuracy,
        throughput_accuracy,
        pilot_scale_loop,
        browser_tests_cpu,
    ):
        print(f"\n== {bench.__name__}\n")
        status = bench.main([])
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
