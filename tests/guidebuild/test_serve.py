"""`make serve`'s server: precompressed files with Content-Encoding, caching headers, a subpath."""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.request

import brotli
import pytest

from guidebuild.serve import accepted_encodings, make_server
from tests.conftest import serve_static


@pytest.fixture()
def served(tmp_path):
    page = b"<!doctype html><title>x</title>" + b"hola " * 400
    (tmp_path / "index.html").write_bytes(page)
    (tmp_path / "index.html.br").write_bytes(brotli.compress(page))
    (tmp_path / "index.html.gz").write_bytes(gzip.compress(page))
    (tmp_path / "main.0123abcd.min.css").write_text("a{}", encoding="utf-8")
    server = make_server(str(tmp_path), 0, prefix="/guia/")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", page
    server.shutdown()
    server.server_close()


def _get(url, encoding=None, since=None):
    request = urllib.request.Request(url)
    if encoding is not None:
        request.add_header("Accept-Encoding", encoding)
    if since:
        request.add_header("If-Modified-Since", since)
    with urllib.request.urlopen(request) as response:
        return response.status, dict(response.headers), response.read()


@pytest.mark.parametrize(("accept", "coding", "decode"), [
    ("gzip, deflate, br", "br", brotli.decompress),
    ("gzip", "gzip", gzip.decompress),
    ("br;q=0, gzip", "gzip", gzip.decompress),
    ("identity", None, lambda b: b),
    (None, None, lambda b: b),
])
def test_sends_the_precompressed_file_the_client_accepts(served, accept, coding, decode):
    base, page = served
    status, headers, body = _get(base + "/guia/", accept)
    assert status == 200
    assert headers.get("Content-Encoding") == coding
    assert headers["Content-Type"] == "text/html"
    assert headers["Vary"] == "Accept-Encoding"
    assert decode(body) == page


def test_pages_revalidate_hashed_theme_files_do_not(served):
    base, _ = served
    _, page_headers, _ = _get(base + "/guia/index.html")
    assert page_headers["Cache-Control"] == "no-cache"
    _, css_headers, _ = _get(base + "/guia/main.0123abcd.min.css")
    assert "immutable" in css_headers["Cache-Control"]
    with pytest.raises(urllib.error.HTTPError) as error:
        _get(base + "/guia/index.html", since=page_headers["Last-Modified"])
    assert error.value.code == 304


def test_outside_the_subpath_is_not_found(served):
    base, _ = served
    with pytest.raises(urllib.error.HTTPError) as error:
        _get(base + "/index.html")
    assert error.value.code == 404


def test_accepted_encodings_reads_q_values():
    assert accepted_encodings("gzip;q=0.5, br;q=0, deflate") == {"gzip", "deflate"}
    assert accepted_encodings("") == set()


def _directives(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (d.split() for d in policy.split(";") if d.strip())}


def test_serve_sends_the_hosts_security_headers_with_the_worker_pages_and_errors(tmp_path):
    """A <meta> policy binds neither a worker nor framing: `python -m guidebuild.serve` (make serve)
    sends the policy as a header with every response, the worker's script above all."""
    worker = tmp_path / "assets" / "javascripts" / "calculator-worker.js"
    worker.parent.mkdir(parents=True)
    worker.write_text("self.onmessage = () => {};", encoding="utf-8")
    (tmp_path / "index.html").write_text("<!doctype html><title>x</title>", encoding="utf-8")
    with serve_static(tmp_path, "/guia/") as base:
        _, worker_headers, _ = _get(base + "assets/javascripts/calculator-worker.js")
        _, page_headers, _ = _get(base)
        with pytest.raises(urllib.error.HTTPError) as missing:
            _get(base + "nowhere/")
    policy = _directives(worker_headers["Content-Security-Policy"])
    # No eval, only WebAssembly compilation; no script, fetch or import from another origin.
    assert policy["script-src"] == ["'self'", "'wasm-unsafe-eval'"]
    assert policy["connect-src"] == ["'self'"] and policy["default-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert not any("unsafe-inline" in v or "unsafe-eval'" in v.replace("wasm-unsafe-eval", "") or v.startswith("'sha")
                   for values in policy.values() for v in values)
    for headers in (worker_headers, page_headers, dict(missing.value.headers)):
        assert headers["Content-Security-Policy"] == worker_headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
        assert "camera=()" in headers["Permissions-Policy"] and "geolocation=()" in headers["Permissions-Policy"]
        # Plain http on loopback: HSTS belongs to the HTTPS host recipes only.
        assert "Strict-Transport-Security" not in headers
