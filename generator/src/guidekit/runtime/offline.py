"""What makes the built site work offline and load once: the service worker, and the precompressed
`.br`/`.gz` copies a static host sends with `Content-Encoding`."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import brotli

from .snapshot import SUFFIX as SNAPSHOT_SUFFIX

SW_TEMPLATE = Path(__file__).parent / "sw.js"
SW_NAME = "sw.js"
# The calculators' runtime: cached when a calculator page asks, not by every guide page.
RUNTIME_DIRS = ("assets/pyodide/", "assets/calc/")
# Worth compressing: text formats, WebAssembly and the runtime's memory snapshot (31 MB, 5 MB as brotli).
# Zips and images are compressed already.
COMPRESSIBLE = {".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".txt", ".wasm", SNAPSHOT_SUFFIX}
MIN_BYTES = 1024
COMPRESSED_SUFFIXES = (".br", ".gz")


def _site_files(site_dir: Path) -> list[str]:
    return sorted(
        p.relative_to(site_dir).as_posix()
        for p in site_dir.rglob("*")
        if p.is_file() and p.suffix not in COMPRESSED_SUFFIXES and p.name != SW_NAME
    )


def build_version(site_dir: Path, files: list[str]) -> str:
    """Digest of every file's path and bytes: any change to the build is a new version. The runtime's
    memory snapshot counts by its name, which carries the digest of what it is made from: its bytes differ
    between two builds of the same site (`guidekit.runtime.snapshot`)."""
    digest = hashlib.sha256()
    for rel in files:
        content = b"" if rel.endswith(SNAPSHOT_SUFFIX) else (site_dir / rel).read_bytes()
        digest.update(rel.encode() + b"\0" + hashlib.sha256(content).digest())
    return digest.hexdigest()[:16]


def _page_url(rel: str) -> str | None:
    if not rel.endswith("index.html"):
        return None
    return rel.removesuffix("index.html") or "./"


def cache_lists(files: list[str], locales: list[str]) -> tuple[list[str], list[str]]:
    """(shell, runtime) as paths relative to the site root.

    Shell: every page, the theme's and the guide's CSS and JavaScript, each locale's search index
    and the lunr files for these locales' languages. Runtime: Pyodide's files and assets/calc."""
    lunr = {f"assets/javascripts/lunr/min/lunr.{loc}.min.js" for loc in locales} | {
        "assets/javascripts/lunr/min/lunr.stemmer.support.min.js",
        "assets/javascripts/lunr/min/lunr.multi.min.js",
        "assets/javascripts/lunr/tinyseg.js",
    }
    shell, runtime = [], []
    for rel in files:
        if rel.endswith(".map"):
            continue
        if rel.startswith(RUNTIME_DIRS):
            runtime.append(rel)
        elif (url := _page_url(rel)) is not None:
            shell.append(url)
        elif rel.startswith("assets/javascripts/lunr/"):
            if rel in lunr:
                shell.append(rel)
        elif rel.startswith(("assets/stylesheets/", "assets/javascripts/", "assets/images/")) or rel.endswith(
            "search/search_index.json"
        ):
            shell.append(rel)
    return shell, runtime


def write_service_worker(site_dir: Path, locales: list[str]) -> str:
    """Write sw.js at the site root; returns the build version it carries."""
    files = _site_files(site_dir)
    version = build_version(site_dir, files)
    shell, runtime = cache_lists(files, locales)
    script = (
        SW_TEMPLATE.read_text(encoding="utf-8")
        .replace("__GUIDE_VERSION__", version)
        .replace("__GUIDE_SHELL__", json.dumps(shell))
        .replace("__GUIDE_RUNTIME__", json.dumps(runtime))
    )
    (site_dir / SW_NAME).write_text(script, encoding="utf-8")
    return version


def precompress(site_dir: Path) -> dict[str, int]:
    """Write `.br` and `.gz` beside every compressible file over 1 KiB, where they are smaller.
    Returns the bytes of those files as they are and as brotli, for the build log."""
    totals = {"identity": 0, "br": 0}
    for path in sorted(site_dir.rglob("*")):
        if not path.is_file() or path.suffix not in COMPRESSIBLE or path.stat().st_size < MIN_BYTES:
            continue
        data = path.read_bytes()
        # Brotli's top quality costs minutes on Pyodide's 9 MB of WebAssembly; 9 is close in size. gzip's 9
        # takes 3 s on the 31 MB memory snapshot for 1 % less than 6 (0.5 s): the fallback gets 6 there.
        quality = 11 if len(data) < 1_000_000 else 9
        level = 9 if len(data) < 16_000_000 else 6
        sizes = {}
        for suffix, packed in (
            (".br", brotli.compress(data, quality=quality)),
            (".gz", gzip.compress(data, compresslevel=level, mtime=0)),
        ):
            target = path.with_name(path.name + suffix)
            if len(packed) < len(data):
                target.write_bytes(packed)
            else:
                target.unlink(missing_ok=True)
            sizes[suffix] = min(len(packed), len(data))
        totals["identity"] += len(data)
        totals["br"] += sizes[".br"]
    return totals
