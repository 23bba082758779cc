"""Calculators in headless Chromium, one run, ratios against a baseline taken in the same run.

1. Start-up: bare Pyodide on an empty page (baseline) vs the calculator page becoming live;
   median of N cold loads each (fresh browser context: no cache), and their ratio.
2. Warm start-up: the same page again in a context whose service worker has cached the runtime,
   against the cold start-up above.
3. Bytes over the wire, cold: the calculator page and a guide page served with the precompressed
   files (as `make serve` and a configured host do) against the same build served uncompressed;
   apart, what the site's service worker then fetches in the background to read offline (every
   locale's pages and the files they share; the runtime's revalidations). Served uncompressed, that
   copy also downloads the 9.6 MB WebAssembly again: a fresh context's HTTP cache did not keep it.
4. Recompute for one committed input change, in each calculator: p50/p95 of the time Python takes
   inside the worker, and of the round trip from the change to the new answer in the page (no
   typing debounce: a committed change is computed at once). The changes take turns over three
   fields per calculator, one of them a model input, and each sets a value not set before, so no
   answer is one the worker has already given. Each change comes once the previous answer is
   painted and a reader's pause later (PAUSE_MS), the first a second after the page is live
   (FIRST_CHANGE_MS). Beside the worker's own clock, the worker thread's CPU time per message, from
   a Chrome trace of as many further changes: on a busy machine the clock also counts the time other
   threads and processes held the CPU.

With --against REV, the same measures for a git revision's site, built and served beside this one and
loaded in turn with it, and this build's ratio to it.

--eager-wasm starts Chromium with V8's optimizing WebAssembly compiler run on all of Pyodide up front
(--no-wasm-dynamic-tiering) instead of on each function once it has run a while. By default the
compiler works on background threads during the first minute of answers; on a two-core machine they
take the CPU from the worker, whose clock then reads 1.3 to 1.9 times its CPU time. With the flag the
two agree: a quieter measure for comparing two versions of the code, not what a reader's browser does.

    python -m benchmarks.calculators_browser [--loads 5] [--changes 100] [--against REV] [--eager-wasm]
    (--loads 0: recompute only)
"""

from __future__ import annotations

import argparse
import contextlib
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
from tests.site.browser import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
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
# (page, calculator, [(field, its value for the i-th change as a JavaScript expression of i)]) for the
# recompute timing: a training input, a model input and, for cost, the rental and the throughput.
RECOMPUTE = (
    ("memory/", "memory", [("micro_batch", "1 + i % 64"), ("seq_len", "512 + 16 * i"), ("lora_rank", "4 + i")]),
    (
        "cost/",
        "cost",
        [("runs", "1 + i"), ("utilization", "(0.2 + 0.003 * i).toFixed(3)"), ("seq_len", "512 + 16 * i")],
    ),
)
# A reader's next edit comes no sooner than this after the answer is painted. Changes fired back to
# back would also time the painting of the previous answer, which shares the CPU with the worker.
PAUSE_MS = 150
# A reader's first edit comes this long after the calculator is live (reading the form): the worker
# warms up meanwhile (calculator-worker.js, MessageType.WARM).
FIRST_CHANGE_MS = 1000

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


def cold_load(browser, url: str, ready_selector: str, offline_copy: bool = False) -> tuple[float, int, int]:
    """Seconds from navigation to `ready_selector` in a fresh context, and the bytes over the wire:
    those the page asked for (its worker's included), and those of the service worker's copy for
    reading offline. With `offline_copy`, once timed, the load waits for that copy to be complete
    (the worker installed), so that the second figure is all of it, not wherever the network was
    idle first."""
    context = browser.new_context()
    page = context.new_page()
    finished = []
    context.on("requestfinished", lambda r: finished.append(r))  # the page's workers' requests too
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(ready_selector, state="attached", timeout=120_000)
    seconds = time.perf_counter() - start
    if offline_copy:
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_load_state("networkidle")
    sizes = [
        (r.service_worker is not None, r.sizes()["responseBodySize"] + r.sizes()["responseHeadersSize"])
        for r in finished
    ]
    context.close()
    return seconds, sum(n for by_worker, n in sizes if not by_worker), sum(n for by_worker, n in sizes if by_worker)


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
    threads = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    handled: dict[tuple, list[float]] = {}
    for e in events:
        if (
            e.get("ph") == "X"
            and e.get("name") == "HandlePostMessage"
            and threads.get((e["pid"], e["tid"])) == "DedicatedWorker thread"
        ):
            handled.setdefault((e["pid"], e["tid"]), []).append(e.get("tdur", 0) / 1000)
    return max(handled.values(), key=len, default=[])  # the calculator's worker: it handled every change


def _changes(
    page, name: str, fields: list[tuple[str, str]], changes: int, first: int
) -> tuple[list[float], list[float]]:
    """Make `changes` committed changes (values from the `first`-th on); (round trips in the page,
    compute times inside the worker), in ms."""
    values = (
        "[" + ", ".join(f"[{json.dumps(field)}, (i) => String({expression})]" for field, expression in fields) + "]"
    )
    return page.evaluate(
        """async ([name, changes, first, pause]) => {
            const root = document.getElementById(`calc-${name}`);
            const fields = %s;
            const trips = [], inside = [];
            for (let i = first; i < first + changes; i++) {
                const [fieldName, value] = fields[i %% fields.length];
                const field = document.getElementById(`calc-${name}-${fieldName}`);
                const done = new Promise((resolve) => root.addEventListener('guide:result', (e) => resolve(e.detail), {once: true}));
                const start = performance.now();
                field.value = value(i);
                field.dispatchEvent(new Event('change', {bubbles: true}));
                const detail = await done;
                trips.push(performance.now() - start);
                inside.push(detail.computeMs);
                await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, pause)));
            }
            return [trips, inside];
        }"""
        % values,
        [name, changes, first, PAUSE_MS],
    )


def machine_times() -> list[int] | None:
    """The whole machine's CPU time so far, from /proc/stat (Linux): [busy, idle, steal] in clock ticks,
    all cores together; None elsewhere."""
    try:
        user, nice, system, idle, iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    except (OSError, ValueError):
        return None
    return [user + nice + system + irq + softirq, idle + iowait, steal]


def machine_share(before: list[int] | None, after: list[int] | None) -> str:
    """How busy the machine was between two `machine_times`: the worker's clock counts the time other
    threads and processes held its core, and a hypervisor's steal time too."""
    if before is None or after is None:
        return "not measured (no /proc/stat)"
    busy, idle, steal = (a - b for a, b in zip(after, before))
    total = max(1, busy + idle + steal)
    return f"busy {busy / total:.0%} of all cores' time, stolen by the host {steal / total:.0%}"


def recompute_times(
    browser, url: str, name: str, fields: list[tuple[str, str]], changes: int
) -> tuple[list[float], list[float], list[float], str]:
    """(round trips in the page, compute times inside the worker, the worker's CPU per message), in
    ms, for committed changes, and how busy the machine was while the clocks were read. The clocks are
    read untraced; the CPU comes from as many further changes under a Chrome trace, whose recording
    takes CPU from every thread."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(f'#calc-{name} .guide-calc__status[data-state="ready"]', timeout=120_000)
    page.wait_for_timeout(FIRST_CHANGE_MS)
    before = machine_times()
    trips, inside = _changes(page, name, fields, changes, 0)
    machine = machine_share(before, machine_times())
    trace = Path(tempfile.mkdtemp()) / "trace.json"
    browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline", "toplevel"])
    _changes(page, name, fields, changes, changes)
    browser.stop_tracing()
    context.close()
    cpu = worker_cpu_ms(trace)
    shutil.rmtree(trace.parent)
    return trips, inside, cpu, machine


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _by_field(fields, times: list[float], first: int) -> str:
    """p50 / p95 of the changes to each field: the i-th change (from the `first`-th) set fields[i % n]."""
    n = len(fields)
    return ";  ".join(
        f"{field} {percentile(times[(k - first) % n :: n], 0.5):.1f} / {percentile(times[(k - first) % n :: n], 0.95):.1f}"
        for k, (field, _) in enumerate(fields)
    )


def _recompute_lines(name: str, fields, changes: int, times) -> list[str]:
    trips, inside, cpu, machine = times
    lines = [
        f"  machine while the clocks were read: {machine}",
        f"  inside the worker  p50 {percentile(inside, 0.5):5.1f} ms   p95 {percentile(inside, 0.95):5.1f} ms"
        f"   (the first change {inside[0]:.1f} ms)",
        f"    by field changed, p50 / p95 ms: {_by_field(fields, inside, 0)}",
    ]
    if len(cpu) == changes:  # the trace holds each change's message, and nothing else (changes `changes` on)
        lines.append(f"  worker thread CPU  p50 {percentile(cpu, 0.5):5.1f} ms   p95 {percentile(cpu, 0.95):5.1f} ms")
        lines.append(f"    by field changed, p50 / p95 ms: {_by_field(fields, cpu, changes)}")
    lines.append(f"  page round trip    p50 {percentile(trips, 0.5):5.1f} ms   p95 {percentile(trips, 0.95):5.1f} ms")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--against", metavar="REV", help="a git revision whose site is the baseline")
    parser.add_argument(
        "--eager-wasm",
        action="store_true",
        help="compile all of Pyodide with V8's optimizing tier at start (see above)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("XDG_CONFIG_HOME", str(ROOT / ".tmp" / "xdg-config"))
    os.environ.setdefault("XDG_CACHE_HOME", str(ROOT / ".tmp" / "xdg-cache"))
    sites = {"this build": None} | ({args.against: args.against} if args.against else {})
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        built = {label: build(Path(tmp) / f"site{i}", revision) for i, (label, revision) in enumerate(sites.items())}
        site = built["this build"]
        for name, text in BASELINE_FILES.items():
            (site / name).write_text(text, encoding="utf-8")
        p = stack.enter_context(sync_playwright())
        flags = ["--js-flags=--no-wasm-dynamic-tiering"] if args.eager_wasm else []
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS + flags)
        if args.loads:
            with serve(site, compressed=False) as plain:
                plain_calc = cold_load(browser, plain + "memory/", READY, offline_copy=True)[1:]
                plain_guide = cold_load(browser, plain, "article", offline_copy=True)[1:]
        bases = {label: stack.enter_context(serve(path)) for label, path in built.items()}
        base = bases["this build"]
        bare, calc_bytes = [], []
        live, warm = {label: [] for label in sites}, {label: [] for label in sites}
        for _ in range(args.loads):  # interleaved, so drift hits all alike
            bare.append(cold_load(browser, base + "bench-empty.html", "body[data-ready]")[0])
            for label, url in bases.items():
                seconds, *size = cold_load(browser, url + "memory/", READY, offline_copy=url == base)
                live[label].append(seconds)
                if url == base:
                    calc_bytes.append(size)
                warm[label].append(warm_load(browser, url + "memory/"))
        if args.loads:
            guide_bytes = cold_load(browser, base, "article", offline_copy=True)[1:]
        recompute = {
            (label, name): recompute_times(browser, url + path, name, fields, args.changes)
            for path, name, fields in RECOMPUTE
            for label, url in bases.items()
        }
        browser.close()
    if args.loads:
        bare_m = statistics.median(bare)
        live_m, warm_m = statistics.median(live["this build"]), statistics.median(warm["this build"])
        calc_m = [statistics.median(n[i] for n in calc_bytes) for i in (0, 1)]
        print(f"start-up, median of {args.loads} loads:")
        print(f"  bare Pyodide, cold (baseline)  {bare_m:6.2f} s")
        print(f"  memory calculator live, cold   {live_m:6.2f} s   ratio {live_m / bare_m:.2f}x bare Pyodide")
        print(
            f"  memory calculator live, warm   {warm_m:6.2f} s   ratio {warm_m / live_m:.2f}x cold (service worker cache)"
        )
        if args.against:
            other = statistics.median(live[args.against])
            print(
                f"  {args.against} live, cold {other:6.2f} s ({other / bare_m:.2f}x bare Pyodide); "
                f"this build {live_m / other:.2f}x it"
            )
        print("bytes over the wire, cold (precompressed vs uncompressed):")
        for what, (own, copy), (plain_own, plain_copy) in (
            ("calculator page", calc_m, plain_calc),
            ("guide page", guide_bytes, plain_guide),
        ):
            print(
                f"  {what:<16} {own / 1e3:7.0f} kB vs {plain_own / 1e3:7.0f} kB   ratio {own / plain_own:.2f};"
                f"  then the service worker's offline copy {copy / 1e3:5.0f} kB vs {plain_copy / 1e3:5.0f} kB"
            )
    if args.eager_wasm:
        print("(--eager-wasm: Pyodide compiled with V8's optimizing tier up front, not as a browser does by default)")
    for _, name, fields in RECOMPUTE:
        print(
            f"{name} calculator, recompute over {args.changes} committed changes to {', '.join(f for f, _ in fields)} "
            f"(no debounce, {PAUSE_MS} ms apart):"
        )
        for label in sites:
            if args.against:
                print(f" {label}:")
            print("\n".join(_recompute_lines(name, fields, args.changes, recompute[(label, name)])))
        if args.against:
            ours, theirs = recompute[("this build", name)][1], recompute[(args.against, name)][1]
            print(
                f"  this build / {args.against}, inside the worker: p50 {percentile(ours, 0.5) / percentile(theirs, 0.5):.2f}x"
                f"   p95 {percentile(ours, 0.95) / percentile(theirs, 0.95):.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
