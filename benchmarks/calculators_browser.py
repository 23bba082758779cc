"""Calculators in headless Chromium, one run, ratios against a baseline taken in the same run.

1. Start-up: bare Pyodide on an empty page (baseline) vs the calculator page becoming live;
   median of N cold loads each (fresh browser context: no cache), and their ratio.
2. Recompute round trip for one input change: p50/p95 over M changes, from the input event to
   the new answer in the page.
3. Bytes transferred by a guide page and by a calculator page (cold).

    python -m benchmarks.calculators_browser [--loads 5] [--changes 100]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The baseline: what Pyodide alone costs, in the same kind of module worker the site uses.
EMPTY_PAGE = """<!doctype html><meta charset="utf-8"><title>bare pyodide</title>
<script type="module">
const src = `import { loadPyodide } from "${new URL('assets/pyodide/pyodide.mjs', location.href)}";
const py = await loadPyodide({ indexURL: "${new URL('assets/pyodide/', location.href)}" });
py.runPython("1 + 1"); postMessage("ready");`;
const worker = new Worker(URL.createObjectURL(new Blob([src], {type: "text/javascript"})), {type: "module"});
worker.onmessage = () => { document.body.dataset.ready = "yes"; };
</script><body></body>"""


def build(site: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=ROOT, env=env, check=True)
    (site / "bench-empty.html").write_text(EMPTY_PAGE, encoding="utf-8")


def serve(site: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).close()
            return server
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def cold_load(browser, url: str, ready_selector: str) -> tuple[float, int]:
    """Seconds from navigation to `ready_selector`, and bytes received, in a fresh context."""
    context = browser.new_context()
    page = context.new_page()
    received = []
    page.on("response", lambda r: received.append(r))
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(ready_selector, state="attached", timeout=120_000)
    seconds = time.perf_counter() - start
    page.wait_for_load_state("networkidle")
    size = sum(len(r.body()) for r in received if r.ok)
    context.close()
    return seconds, size


def recompute_round_trips(browser, url: str, changes: int) -> list[float]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector('#calc-memory .guide-calc__status[data-state="ready"]', timeout=120_000)
    times = page.evaluate(
        """async (changes) => {
            const root = document.getElementById('calc-memory');
            const field = document.getElementById('calc-memory-micro_batch');
            const out = [];
            for (let i = 0; i < changes; i++) {
                const done = new Promise((resolve) => root.addEventListener('guide:result', resolve, {once: true}));
                const start = performance.now();
                field.value = String(1 + (i % 16));
                field.dispatchEvent(new Event('input', {bubbles: true}));
                await done;
                out.push(performance.now() - start);
            }
            return out;
        }""",
        changes,
    )
    context.close()
    return times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--port", type=int, default=8731)
    args = parser.parse_args(argv)
    os.environ.setdefault("XDG_CONFIG_HOME", str(ROOT / ".tmp" / "xdg-config"))
    os.environ.setdefault("XDG_CACHE_HOME", str(ROOT / ".tmp" / "xdg-cache"))
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build(site)
        server = serve(site, args.port)
        base = f"http://127.0.0.1:{args.port}/"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                bare, live, calc_bytes = [], [], []
                for _ in range(args.loads):  # interleaved, so drift hits both alike
                    bare.append(cold_load(browser, base + "bench-empty.html", "body[data-ready]")[0])
                    seconds, size = cold_load(browser, base + "memory/", '#calc-memory .guide-calc__status[data-state="ready"]')
                    live.append(seconds)
                    calc_bytes.append(size)
                _, guide_bytes = cold_load(browser, base, "article")
                trips = recompute_round_trips(browser, base + "memory/", args.changes)
                browser.close()
        finally:
            server.terminate()
    bare_m, live_m = statistics.median(bare), statistics.median(live)
    print(f"start-up, median of {args.loads} cold loads:")
    print(f"  bare Pyodide (baseline)        {bare_m:6.2f} s")
    print(f"  memory calculator live         {live_m:6.2f} s   ratio {live_m / bare_m:.2f}x")
    debounce = re.search(r"DEBOUNCE_MS = (\d+)", (ROOT / "overrides/assets/javascripts/calculator.js").read_text()).group(1)
    print(f"recompute round trip over {args.changes} changes (input event to new answer, including the "
          f"{debounce} ms typing debounce): p50 {percentile(trips, 0.5):.1f} ms, p95 {percentile(trips, 0.95):.1f} ms")
    print(f"bytes (cold): guide page {guide_bytes / 1e6:.2f} MB, calculator page {statistics.median(calc_bytes) / 1e6:.2f} MB "
          f"(ratio {statistics.median(calc_bytes) / guide_bytes:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
