"""Lighthouse (mobile preset) and axe on the built site, every locale: scores, LCP, TBT, transfer.

Serves a built folder the way `make serve` does (precompressed files with Content-Encoding), or
uncompressed with `--plain` (how the site was served before), runs Lighthouse from
benchmarks/lighthouse/node_modules against Debian's Chromium, and prints one line per page.
Lighthouse's own figures are simulated (Lantern, 4x CPU slowdown, slow 4G), so they compare runs
of this script with each other, not with a phone in the hand.

    python -m benchmarks.lighthouse_pages [--site DIR] [--plain] [--pages memory/ ...] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.serving import build, serve

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "benchmarks" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
LOCALE_ROOTS = ("", "ja/", "ar/")
PAGES = ("", "compare/", "memory/", "cost/")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def lighthouse(url: str, out: Path) -> dict:
    if not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is missing: run 'npm ci --prefix benchmarks/lighthouse' (make bench does).")
    env = dict(os.environ, CHROME_PATH="/usr/bin/chromium")
    subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            "--only-categories=" + ",".join(CATEGORIES),
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking",
        ],
        env=env,
        check=True,
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    audits = report["audits"]
    failed = sorted(
        key
        for cat in CATEGORIES[1:]
        for ref in report["categories"][cat]["auditRefs"]
        if ref["weight"] and (audits[(key := ref["id"])].get("score") not in (None, 1))
    )
    return {
        "url": url,
        **{cat: round(100 * report["categories"][cat]["score"]) for cat in CATEGORIES},
        "lcp_ms": round(audits["largest-contentful-paint"]["numericValue"]),
        "tbt_ms": round(audits["total-blocking-time"]["numericValue"]),
        "fcp_ms": round(audits["first-contentful-paint"]["numericValue"]),
        "transfer_kib": round(audits["total-byte-weight"]["numericValue"] / 1024),
        "render_blocking": [
            (i["url"].rsplit("/", 1)[-1], round(i.get("wastedMs", 0)))
            for i in audits["render-blocking-resources"].get("details", {}).get("items", [])
        ],
        "lcp_element": (audits.get("largest-contentful-paint-element", {}).get("details", {}).get("items") or [{}])[0]
        .get("items", [{}])[0]
        .get("node", {})
        .get("snippet", "")[:80],
        "failed_audits": failed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="an already built folder (default: build one now)")
    parser.add_argument("--plain", action="store_true", help="serve without precompressed files")
    parser.add_argument("--pages", nargs="*", default=[loc + p for loc in LOCALE_ROOTS for p in PAGES])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build(Path(tmp) / "site")
        with serve(site, compressed=not args.plain) as base:
            for i, page in enumerate(args.pages):
                row = lighthouse(base + page, Path(tmp) / f"lh-{i}.json")
                rows.append(row)
                print(
                    f"/{page:14} perf {row['performance']:3} a11y {row['accessibility']:3} "
                    f"bp {row['best-practices']:3} seo {row['seo']:3}  LCP {row['lcp_ms']:5} ms  "
                    f"TBT {row['tbt_ms']:4} ms  {row['transfer_kib']:6} KiB  failed {row['failed_audits']}",
                    flush=True,
                )
                print(f"    render-blocking {row['render_blocking']}; LCP element {row['lcp_element']!r}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
