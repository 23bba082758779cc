"""The service worker's version and file lists, and the precompressed copies."""

from __future__ import annotations

import gzip

import brotli

from guidekit.runtime.offline import build_version, cache_lists, precompress, write_service_worker


def _site(tmp_path):
    for rel, text in {
        "index.html": "<p>hola</p>" * 200,
        "ja/index.html": "<p>やあ</p>",
        "compare/index.html": "x",
        "assets/stylesheets/guide.css": "a{}",
        "assets/javascripts/bundle.0123abcd.min.js": "1;" * 800,
        "assets/javascripts/bundle.0123abcd.min.js.map": "{}",
        "search/search_index.json": "{}",
        "assets/javascripts/lunr/min/lunr.ja.min.js": "",
        "assets/javascripts/lunr/min/lunr.de.min.js": "",
        "assets/pyodide/pyodide.asm.wasm": "\0asm" * 500,
        "assets/calc/abc/pkg-0.1-py3-none-any.whl": "PK",
        "assets/calc/pack-ja.json": "{}",
        "404.html": "",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return tmp_path


def test_version_changes_with_any_file(tmp_path):
    site = _site(tmp_path)
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    before = build_version(site, files)
    assert build_version(site, files) == before
    (site / "compare" / "index.html").write_text("y", encoding="utf-8")
    assert build_version(site, files) != before


def test_the_runtime_snapshot_counts_by_its_name_not_its_bytes(tmp_path):
    """Two builds of one site make snapshots whose bytes differ (timestamps, random state) under one name,
    the digest of what they are made from: the same name is the same version, a new name a new one."""
    site = _site(tmp_path)
    made = site / "assets" / "calc" / "snap" / "runtime-0123456789ab.pyodide-snapshot"
    made.parent.mkdir(parents=True)
    made.write_bytes(b"one build")
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    before = build_version(site, files)
    made.write_bytes(b"another build of the same inputs")
    assert build_version(site, files) == before
    renamed = [f.replace("0123456789ab", "ba9876543210") for f in files]
    made.rename(site / renamed[files.index(made.relative_to(site).as_posix())])
    assert build_version(site, renamed) != before


def test_shell_has_pages_and_theme_runtime_waits_for_a_calculator(tmp_path):
    site = _site(tmp_path)
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    shell, runtime = cache_lists(files, ["es", "ja"])
    assert {
        "./",
        "ja/",
        "compare/",
        "assets/stylesheets/guide.css",
        "search/search_index.json",
        "assets/javascripts/lunr/min/lunr.ja.min.js",
    } <= set(shell)
    assert "assets/javascripts/lunr/min/lunr.de.min.js" not in shell  # not a locale of this site
    assert not any(p.endswith(".map") or p == "404.html" for p in shell)
    assert set(runtime) == {
        "assets/pyodide/pyodide.asm.wasm",
        "assets/calc/abc/pkg-0.1-py3-none-any.whl",
        "assets/calc/pack-ja.json",
    }


def test_service_worker_carries_the_version_and_lists(tmp_path):
    site = _site(tmp_path)
    version = write_service_worker(site, ["es", "ja"])
    script = (site / "sw.js").read_text(encoding="utf-8")
    assert f'const VERSION = "{version}";' in script
    assert "__GUIDE_" not in script


def test_precompress_writes_faithful_copies_of_large_text_only(tmp_path):
    site = _site(tmp_path)
    precompress(site)
    page = (site / "index.html").read_bytes()
    assert brotli.decompress((site / "index.html.br").read_bytes()) == page
    assert gzip.decompress((site / "index.html.gz").read_bytes()) == page
    assert (site / "assets/pyodide/pyodide.asm.wasm.br").exists()
    assert not (site / "compare/index.html.br").exists()  # under 1 KiB
    assert not (site / "assets/calc/abc/pkg-0.1-py3-none-any.whl.gz").exists()  # a zip already
