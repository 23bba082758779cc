"""A small guide's calculator against this guide's, in headless Chromium, in one run (issue 50 item 6).

examples/heat-pump's readers download the generator's browser layers and one small calculator; this
guide's, the GPU calculators too. For each site, N cold loads (a fresh context: no cache, no service
worker) of its calculator page, taken in turn with the other's: the time from navigation to the
calculator going live (its status "ready": Pyodide started, the wheels unpacked, the modules imported),
read inside the page by an observer on the status, and the bytes of the site's own browser wheels.
The ratio of the medians is the figure: the baseline (this guide) is measured in the same run.

    python -m benchmarks.example_startup [--loads 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.serving import build, serve
from tests.site.browser import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "heat-pump"
# Records, in the page's own clock, when the first calculator's status turns "ready".
OBSERVE = """
addEventListener("DOMContentLoaded", () => {
  const status = document.querySelector(".guide-calc__status");
  if (!status) return;
  new MutationObserver(() => {
    if (status.dataset.state === "ready" && window.guideLiveAt === undefined) window.guideLiveAt = performance.now();
  }).observe(status, { attributes: true, attributeFilter: ["data-state"] });
});
"""
PAGES = {"heat-pump example": "", "this guide (memory)": "memory/"}


def build_example(site: Path) -> Path:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(EXAMPLE))
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=EXAMPLE, env=env, check=True)
    return site


def wheel_kib(site: Path) -> float:
    return sum(p.stat().st_size for p in site.glob("assets/calc/*/*.whl")) / 1024


def live_ms(browser, url: str) -> float:
    context = browser.new_context(service_workers="block")
    context.add_init_script(OBSERVE)
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.guideLiveAt !== undefined", timeout=180_000)
    value = page.evaluate("window.guideLiveAt")
    context.close()
    return value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args(argv)
    chromium = os.environ.get("GUIDE_CHROMIUM", "/usr/bin/chromium-headless-shell")
    with tempfile.TemporaryDirectory() as tmp:
        sites = {
            "heat-pump example": build_example(Path(tmp) / "example"),
            "this guide (memory)": build(Path(tmp) / "guide"),
        }
        times: dict[str, list[float]] = {name: [] for name in sites}
        with serve(sites["heat-pump example"]) as example_url, serve(sites["this guide (memory)"]) as guide_url:
            urls = {"heat-pump example": example_url, "this guide (memory)": guide_url + PAGES["this guide (memory)"]}
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                live_ms(browser, urls["heat-pump example"])  # warm the host's file cache for both
                live_ms(browser, urls["this guide (memory)"])
                for _ in range(args.loads):
                    for name, url in urls.items():
                        times[name].append(live_ms(browser, url))
                browser.close()
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, values in times.items():
            print(
                f"{name:22} live after {medians[name]:7.0f} ms (median of {len(values)} cold loads; "
                f"min {min(values):.0f}, max {max(values):.0f}); its wheels {wheel_kib(sites[name]):.0f} KiB"
            )
        ratio = medians["heat-pump example"] / medians["this guide (memory)"]
        print(f"example / this guide: {ratio:.2f}x the time to live")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
