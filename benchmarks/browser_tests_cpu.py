"""What the browser tests' work costs in CPU: Debian's Chromium headless shell (what the tests drive)
against the full `chromium --headless` (the baseline), the same work in turn in one run.

The suite is CPU-bound on two cores, so the measure is the whole machine's busy CPU time (from
/proc/stat: every Chromium process, the server, Playwright's driver) while each browser does one
kind of work, in fresh contexts as the tests open them:

- guide: six guide pages, loaded until the network is idle;
- held: four calculator pages with their runtime held (pages checked as built);
- live: three calculator pages until their runtime answers (a Pyodide start each);
- axe: axe-core on a held calculator page and a guide page, on a phone.

Each kind is measured --repeats times per browser, alternating browsers; the table gives medians and
the shell's ratio to the full browser. Run it on a quiet machine.

    python -m benchmarks.browser_tests_cpu [--repeats 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.serving import build, serve
from tests.site.browser import AXE, CHROMIUM_ARGS, PHONE, hold_runtime

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = {"chromium": "/usr/bin/chromium", "headless-shell": "/usr/bin/chromium-headless-shell"}
READY = "() => document.querySelector('.guide-calc__status')?.dataset.state === 'ready'"
GUIDE = ["faq/", "compare/", "glossary/", "ja/faq/", "ar/compare/", ""]
HELD = ["memory/", "cost/", "ja/memory/", "ar/cost/"]
LIVE = ["memory/", "ja/cost/", "ar/memory/"]


def busy_cpu_s() -> float:
    """The machine's CPU time spent outside idle and I/O wait since boot, in seconds."""
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(n) for n in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / 100


def work(browser, base: str, kind: str) -> None:
    def page(**screen):
        return browser.new_context(service_workers="block", **screen).new_page()

    if kind == "guide":
        for path in GUIDE:
            p = page()
            p.goto(base + path, wait_until="networkidle")
            p.context.close()
    elif kind == "held":
        for path in HELD:
            p = page()
            hold_runtime(p)
            p.goto(base + path, wait_until="load")
            p.context.close()
    elif kind == "live":
        for path in LIVE:
            p = page()
            p.goto(base + path)
            p.wait_for_function(READY, timeout=120_000)
            p.context.close()
    elif kind == "axe":
        source = AXE.read_text(encoding="utf-8")
        for path in ("memory/", "faq/"):
            p = page(**PHONE)
            hold_runtime(p)
            p.goto(base + path, wait_until="load")
            p.evaluate(source)
            p.evaluate("async () => { await axe.run(document, {resultTypes: ['violations']}); return 1; }")
            p.context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "browser_tests_cpu.json")
    args = parser.parse_args(argv)
    missing = [exe for exe in BROWSERS.values() if not Path(exe).exists()]
    if missing:
        print(f"not found: {', '.join(missing)} (apt-get install chromium chromium-headless-shell)", file=sys.stderr)
        return 1
    kinds = ("guide", "held", "live", "axe")
    cpu: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in kinds} for name in BROWSERS}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        site = build(Path(tmp) / "site")
        with serve(site) as base:
            for _ in range(args.repeats):
                for name, exe in BROWSERS.items():
                    browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
                    work(browser, base, "guide")  # warm the disk cache and the browser
                    for kind in kinds:
                        time.sleep(0.5)
                        before = busy_cpu_s()
                        work(browser, base, kind)
                        cpu[name][kind].append(round(busy_cpu_s() - before, 2))
                    browser.close()
    medians = {name: {kind: statistics.median(v) for kind, v in by_kind.items()} for name, by_kind in cpu.items()}
    print(f"{'work':6} {'chromium':>9} {'shell':>9} {'ratio':>6}   (busy CPU s, median of {args.repeats})")
    for kind in (*kinds, "total"):
        full = sum(medians["chromium"].values()) if kind == "total" else medians["chromium"][kind]
        shell = sum(medians["headless-shell"].values()) if kind == "total" else medians["headless-shell"][kind]
        print(f"{kind:6} {full:9.2f} {shell:9.2f} {shell / full:6.2f}")
    args.json.write_text(
        json.dumps({"date": time.strftime("%Y-%m-%d"), "runs": cpu, "medians": medians}, indent=1) + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
