"""`make serve`'s server: precompressed files with Content-Encoding, caching headers, a subpath, and
what a configured host refuses (malformed paths, listings, its own config, links out, 404 pages)."""

from __future__ import annotations

import gzip
import http.client
import threading
import urllib.error
import urllib.request

import brotli
import pytest

from guidekit.site.serve import accepted_encodings, make_server
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


@pytest.mark.parametrize(
    ("accept", "coding", "decode"),
    [
        ("gzip, deflate, br", "br", brotli.decompress),
        ("gzip", "gzip", gzip.decompress),
        ("br;q=0, gzip", "gzip", gzip.decompress),
        ("identity", None, lambda b: b),
        (None, None, lambda b: b),
    ],
)
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
    """A <meta> policy binds neither a worker nor framing: `python -m guidekit.site.serve` (make serve)
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
    assert not any(
        "unsafe-inline" in v or "unsafe-eval'" in v.replace("wasm-unsafe-eval", "") or v.startswith("'sha")
        for values in policy.values()
        for v in values
    )
    for headers in (worker_headers, page_headers, dict(missing.value.headers)):
        assert headers["Content-Security-Policy"] == worker_headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
        assert "camera=()" in headers["Permissions-Policy"] and "geolocation=()" in headers["Permissions-Policy"]
        # Plain http on loopback: HSTS belongs to the HTTPS host recipes only.
        assert "Strict-Transport-Security" not in headers


# -- what a configured host refuses ---------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A small built site under /guia/: a page per locale, a 404 page for Spanish (the root) and
    Japanese, a folder without index.html, the host's `_headers`, and two links out of the folder."""
    tmp_path = tmp_path_factory.mktemp("served")
    root = tmp_path / "site"
    for folder, text in (("", "inicio"), ("ja/", "ホーム")):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "index.html").write_text(f"<title>{text}</title>", encoding="utf-8")
    (root / "404.html").write_text("<title>No encontrada</title>", encoding="utf-8")
    (root / "404.html.br").write_bytes(brotli.compress(b"<title>No encontrada</title>"))
    (root / "ja" / "404.html").write_text("<title>見つかりません</title>", encoding="utf-8")
    (root / "assets" / "javascripts").mkdir(parents=True)
    (root / "assets" / "javascripts" / "guide-page.js").write_text("//", encoding="utf-8")
    (root / "_headers").write_text("/*\n  X-Content-Type-Options: nosniff\n", encoding="utf-8")
    (root / "_headers.gz").write_bytes(gzip.compress(b"/*\n"))
    (tmp_path / "secret.txt").write_text("private key", encoding="utf-8")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "index.html").write_text("private page", encoding="utf-8")
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (root / "leak").symlink_to(tmp_path / "private", target_is_directory=True)
    server = make_server(str(root), 0, prefix="/guia/")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _raw(port: int, target: str, encoding: str | None = None) -> tuple[int, dict, bytes]:
    """GET `target` exactly as written (no client-side quoting), over a fresh connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", target, headers={"Accept-Encoding": encoding} if encoding else {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(
    "target",
    [
        "/guia/%00",
        "/guia/index.html%00.js",
        "/guia/ja/%00/",
        "/guia/%zz",
        "/guia/%4",
        "/guia/%ff",
        "/guia/%ed%a0%80",
    ],
)
def test_a_malformed_path_is_a_bad_request_not_a_dropped_connection(site, target):
    """A NUL, a bad `%` escape and bytes that are not UTF-8 (a lone surrogate included) are the
    client's error; the NUL reached open() and the server dropped the connection without an answer."""
    status, headers, _ = _raw(site, target)
    assert status == 400
    assert headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    ("target", "page"),
    [
        ("/guia/nowhere.html", "No encontrada"),
        ("/guia/nowhere/deeper/", "No encontrada"),
        ("/guia/ja/nowhere.html", "見つかりません"),
        ("/guia/ja/nowhere/deeper", "見つかりません"),
        ("/guia/index.html/", "No encontrada"),  # a file is not a folder
        ("/guia/assets/", "No encontrada"),  # a folder without index.html: never a listing
        ("/guia/assets/javascripts/", "No encontrada"),
        ("/guia/_headers", "No encontrada"),  # the host's configuration
        ("/guia/_headers.gz", "No encontrada"),
        ("/guia/%5Fheaders", "No encontrada"),
        ("/guia/leak.txt", "No encontrada"),  # links out of the served folder
        ("/guia/leak/", "No encontrada"),
        ("/guia/leak/index.html", "No encontrada"),
    ],
)
def test_what_is_not_there_gets_the_sites_404_page_with_its_headers(site, target, page):
    status, headers, body = _raw(site, target)
    assert status == 404
    assert f"<title>{page}</title>" in body.decode("utf-8")
    assert headers["Content-Type"] == "text/html"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cache-Control"] == "no-cache"


def test_the_404_page_is_sent_precompressed_and_outside_the_subpath_is_not_the_sites(site):
    status, headers, body = _raw(site, "/guia/nowhere", encoding="br")
    assert status == 404 and headers["Content-Encoding"] == "br"
    assert brotli.decompress(body) == "<title>No encontrada</title>".encode()
    status, headers, body = _raw(site, "/nowhere")
    assert status == 404 and b"No encontrada" not in body
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_a_folder_without_its_slash_is_redirected_to_the_normalized_path(site):
    status, headers, _ = _raw(site, "/guia/ja")
    assert status == 301 and headers["Location"] == "/guia/ja/"
    status, headers, _ = _raw(site, "/guia/assets/../ja?x=1")
    assert status == 301 and headers["Location"] == "/guia/ja/?x=1"
    status, _, body = _raw(site, "/guia/ja/")
    assert status == 200 and "ホーム" in body.decode("utf-8")


def test_a_silent_connection_is_closed_and_frees_its_thread(served, monkeypatch):
    """Attack finding 22: `GET /` and nothing more (HTTP/0.9-style, left open) held a thread for as long
    as the client kept the socket; the handler now gives up after its timeout."""
    import socket
    import time

    from guidekit.site.serve import Handler

    monkeypatch.setattr(Handler, "timeout", 0.5)  # read at each connection: the server made above uses it
    url, _ = served
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"GET /")  # no line end: the server waits for the rest of the request line
        sock.settimeout(5)
        start = time.monotonic()
        assert sock.recv(1024) == b""  # closed by the server, not by this client
        assert time.monotonic() - start < 3
