"""Calculators in headless Chromium, one run, ratios against a baseline taken in the same run.

1. Start-up: bare Pyodide on an empty page (baseline) vs the calculator page becoming live;
   median of N cold loads each (fresh browser context: no cache), and their ratio.
2. Warm start-up: the same page again in a context whose service worker has cached the runtime,
   against the cold start-up above.
3. Bytes over the wire, cold: the calculator page and a guide page served with the precompressed
   files (as `make serve` and a configured host do) against the same build served uncompressed.
4. Recompute for one committed input change, in each calculator: p50/p95 of the time Python takes
   inside the worker, and of the round trip from the change to the new answer in the page (no
   typing debounce: a committed change is computed at once). Each change waits until the previous
   answer is painted, as a reader's next edit would. Beside the worker's own clock, the worker
   thread's CPU time per message from a Chrome trace: on a busy machine the clock also counts the
   time other threads and processes held the CPU.

    python -m benchmarks.calculators_browser [--loads 5] [--changes 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.serving import build, serve

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
READY = '#calc-memory .guide-calc__status[data-state="ready"]'
# True once the service worker holds the runtime's largest files (looked up as the worker does).
RUNTIME_CACHED = """async () => {
    const scope = (await navigator.serviceWorker.getRegistration()).scope;
    for (const name of ['pyodide.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip']) {
        const url = new URL(`assets/pyodide/${name}`, scope).href;
        if (!(await caches.match(url, { ignoreSearch: true, ignoreVary: true }))) return false;
    }
    return true;
}"""
# (page, calculator, an integer field and the values it cycles through) for the recompute timing.
RECOMPUTE = (("memory/", "memory", "micro_batch", 16), ("cost/", "cost", "runs", 16))

# The baseline: what Pyodide alone costs, in the same kind of module worker the site uses. Files, not
# inline script or a blob: worker, since the site's Content-Security-Policy header governs them too.
BASELINE_FILES = {
    "bench-empty.html": """<!doctype html><meta charset="utf-8"><title>bare pyodide</title>
<script type="module" src="bench-empty.js"></script><body></body>""",
    "bench-empty.js": """const worker = new Worker(new URL("bench-empty-worker.js", import.meta.url), {type: "module"});
worker.onmessage = () => { document.body.dataset.ready = "yes"; };""",
    "bench-empty-worker.js": """import { loadPyodide } from "./assets/pyodide/pyodide.mjs";
const py = await loadPyodide({ indexURL: new URL("assets/pyodide/", import.meta.url).href });
py.runPython("1 + 1");
postMessage("ready");""",
}


def cold_load(browser, url: str, ready_selector: str) -> tuple[float, int]:
    """Seconds from navigation to `ready_selector`, and bytes over the wire, in a fresh context."""
    context = browser.new_context()
    page = context.new_page()
    finished = []
    context.on("requestfinished", lambda r: finished.append(r))   # the calculator worker's requests too
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(ready_selector, state="attached", timeout=120_000)
    seconds = time.perf_counter() - start
    page.wait_for_load_state("networkidle")
    size = sum(r.sizes()["responseBodySize"] + r.sizes()["responseHeadersSize"] for r in finished)
    context.close()
    return seconds, size


def warm_load(browser, url: str) -> float:
    """Seconds to live on a second visit, once the service worker has cached the runtime."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(READY, timeout=120_000)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60_000)
    # Polled here: wait_for_function does not await a promise, so an async predicate passes at once.
    while not page.evaluate(RUNTIME_CACHED):
        page.wait_for_timeout(250)
    start = time.perf_counter()
    page.reload()
    page.wait_for_selector(READY, timeout=120_000)
    seconds = time.perf_counter() - start
    context.close()
    return seconds


def worker_cpu_ms(trace: Path) -> list[float]:
    """CPU time of each message the calculator worker handled, in ms, from a Chrome trace: the
    thread's own time, which the other processes on a busy machine do not inflate."""
    events = json.loads(trace.read_text())["traceEvents"]
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    handled: dict[tuple, list[float]] = {}
    for e in events:
        if e.get("ph") == "X" and e.get("name") == "HandlePostMessage" and threads.get((e["pid"], e["tid"])) == "DedicatedWorker thread":
            handled.setdefault((e["pid"], e["tid"]), []).append(e.get("tdur", 0) / 1000)
    return max(handled.values(), key=len, default=[])   # the calculator's worker: it handled every change


def recompute_times(browser, url: str, name: str, field: str, cycle: int, changes: int) -> tuple[list[float], list[float], list[float]]:
    """(round trips in the page, compute times inside the worker, the worker's CPU per message), in
    ms, for committed changes."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(f'#calc-{name} .guide-calc__status[data-state="ready"]', timeout=120_000)
    trace = Path(tempfile.mkdtemp()) / "trace.json"
    browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline", "toplevel"])
    trips, inside = page.evaluate(
        """async ([name, fieldName, cycle, changes]) => {
            const root = document.getElementById(`calc-${name}`);
            const field = document.getElementById(`calc-${name}-${fieldName}`);
            const trips = [], inside = [];
            for (let i = 0; i < changes; i++) {
                const done = new Promise((resolve) => root.addEventListener('guide:result', (e) => resolve(e.detail), {once: true}));
                const start = performance.now();
                field.value = String(1 + (i % cycle));
                field.dispatchEvent(new Event('change', {bubbles: true}));
                const detail = await done;
                trips.push(performance.now() - start);
                inside.push(detail.computeMs);
                // The next change comes after this answer is on screen, as a reader's would.
                await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
            }
            return [trips, inside];
        }""",
        [name, field, cycle, changes],
    )
    browser.stop_tracing()
    context.close()
    cpu = worker_cpu_ms(trace)
    shutil.rmtree(trace.parent)
    return trips, inside, cpu


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--changes", type=int, default=100)
    args = parser.parse_args(argv)
    os.environ.setdefault("XDG_CONFIG_HOME", str(ROOT / ".tmp" / "xdg-config"))
    os.environ.setdefault("XDG_CACHE_HOME", str(ROOT / ".tmp" / "xdg-cache"))
    with tempfile.TemporaryDirectory() as tmp:
        site = build(Path(tmp) / "site")
        for name, text in BASELINE_FILES.items():
            (site / name).write_text(text, encoding="utf-8")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            with serve(site, compressed=False) as plain:
                _, plain_calc = cold_load(browser, plain + "memory/", READY)
                _, plain_guide = cold_load(browser, plain, "article")
            with serve(site) as base:
                bare, live, warm, calc_bytes = [], [], [], []
                for _ in range(args.loads):  # interleaved, so drift hits all alike
                    bare.append(cold_load(browser, base + "bench-empty.html", "body[data-ready]")[0])
                    seconds, size = cold_load(browser, base + "memory/", READY)
                    live.append(seconds)
                    calc_bytes.append(size)
                    warm.append(warm_load(browser, base + "memory/"))
                _, guide_bytes = cold_load(browser, base, "article")
                recompute = {name: recompute_times(browser, base + path, name, field, cycle, args.changes)
                             for path, name, field, cycle in RECOMPUTE}
            browser.close()
    bare_m, live_m, warm_m = statistics.median(bare), statistics.median(live), statistics.median(warm)
    calc_m = statistics.median(calc_bytes)
    print(f"start-up, median of {args.loads} loads:")
    print(f"  bare Pyodide, cold (baseline)  {bare_m:6.2f} s")
    print(f"  memory calculator live, cold   {live_m:6.2f} s   ratio {live_m / bare_m:.2f}x bare Pyodide")
    print(f"  memory calculator live, warm   {warm_m:6.2f} s   ratio {warm_m / live_m:.2f}x cold (service worker cache)")
    print("bytes over the wire, cold (precompressed vs uncompressed):")
    print(f"  calculator page  {calc_m / 1e6:6.2f} MB vs {plain_calc / 1e6:6.2f} MB   ratio {calc_m / plain_calc:.2f}")
    print(f"  guide page       {guide_bytes / 1e3:6.0f} kB vs {plain_guide / 1e3:6.0f} kB   ratio {guide_bytes / plain_guide:.2f}")
    for name, (trips, inside, cpu) in recompute.items():
        print(f"{name} calculator, recompute over {args.changes} committed changes (no debounce):")
        print(f"  inside the worker  p50 {percentile(inside, 0.5):5.1f} ms   p95 {percentile(inside, 0.95):5.1f} ms")
        if len(cpu) == args.changes:  # the trace holds each change's message, and nothing else
            print(f"  worker thread CPU  p50 {percentile(cpu, 0.5):5.1f} ms   p95 {percentile(cpu, 0.95):5.1f} ms")
        print(f"  page round trip    p50 {percentile(trips, 0.5):5.1f} ms   p95 {percentile(trips, 0.95):5.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
