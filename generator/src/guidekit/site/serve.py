"""A static file server that behaves like a configured production host (`make serve`).

It sends the `.br` or `.gz` file the build wrote beside an asset, with `Content-Encoding` and
`Vary: Accept-Encoding`, when the browser accepts it, the caching headers the README's
deployment section recommends, and the security headers of generator/src/guidekit/site/headers.py with every
response (the calculator's worker has its Content-Security-Policy only from them). `--prefix /path/`
serves the folder under a subpath, as a host that publishes the site at https://example.org/path/ would.
Like such a host it answers a malformed path with 400, a missing file or a folder without index.html
with the site's 404 page (/ja/404.html under /ja/), and never serves `_headers` or a file that a
symbolic link places outside the folder.

    python -m guidekit.site.serve site [--port 8000] [--bind 127.0.0.1] [--prefix /guia/]
"""

from __future__ import annotations

import argparse
import email.utils
import functools
import os
import posixpath
import re
import sys
import urllib.parse
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, BinaryIO

from .headers import HEADERS

# Preferred first: brotli is smaller; gzip for clients that only take it.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
# Material's own files carry a content hash in their name and never change; everything else
# (pages, sw.js, the guide's scripts, Pyodide) is revalidated, so a new build shows at once.
IMMUTABLE = re.compile(r"\.[0-9a-f]{8}\.min\.(js|css)$")


# The host's own configuration, which the build writes beside the pages (generator/src/guidekit/site/headers.py): a host
# reads it and never serves it.
HOST_FILES = frozenset({"_headers"})
# A `%` not followed by two hex digits.
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def request_path(target: str) -> str | None:
    """The decoded, normalized path of a request target ("/a/../b%20c/?q" -> "/b c/"), or None when
    it is malformed: a bad `%` escape, bytes that are not UTF-8, or a NUL (which no file name holds)."""
    raw = target.split("?", 1)[0].split("#", 1)[0]
    if _BAD_ESCAPE.search(raw):
        return None
    try:
        path = urllib.parse.unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\0" in path:
        return None
    # `..` cannot climb above the root, as on a real host; a trailing slash still means a folder.
    normal = "/" + posixpath.normpath("/" + path).lstrip("/")
    return normal + "/" if path.endswith(("/", "/.", "/..")) and normal != "/" else normal


def cache_control(path: str) -> str:
    return "public, max-age=31536000, immutable" if IMMUTABLE.search(path) else "no-cache"


def accepted_encodings(header: str) -> set[str]:
    """Codings the client accepts (RFC 9110 §12.5.3): listed without `q=0`."""
    accepted = set()
    for part in header.split(","):
        coding, _, params = part.strip().partition(";")
        if not coding.strip():
            continue
        q = params.strip().removeprefix("q=") if params.strip().startswith("q=") else "1"
        try:
            if float(q) > 0:
                accepted.add(coding.strip().lower())
        except ValueError:
            continue
    return accepted


class SiteServer(ThreadingHTTPServer):
    """The server `make_server` makes: it carries the access log switch and the subpath it serves."""

    verbose: bool
    prefix: str
    server_address: tuple[str, int]  # bound at construction: the AF_INET socket's own (host, port)


class Handler(SimpleHTTPRequestHandler):
    prefix = "/"
    server: SiteServer  # made only by make_server
    # Seconds a connection may stay silent: each holds a thread, and one left open mid-request (an
    # HTTP/0.9 `GET /` and no more) held its thread until the client went away.
    timeout = 10

    def send_head(self) -> BinaryIO | None:
        path = request_path(self.path)
        if path is None:
            self.send_error(HTTPStatus.BAD_REQUEST, "Malformed path")
            return None
        # Under a subpath, anything outside it is not the site's (a plain 404, as on the real host).
        if not path.startswith(self.prefix):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        parts = [part for part in path[len(self.prefix) :].split("/") if part]
        file = os.path.join(self.directory, *parts)
        if os.path.isdir(file):
            index = os.path.join(file, "index.html")
            if not self._servable(index):
                return self._send_not_found(parts)  # never a listing
            if not path.endswith("/"):
                # The normalized path, never the raw one: a raw "//host/x" would send the browser to another site.
                query = urllib.parse.urlsplit(self.path).query
                self._redirect(urllib.parse.quote(path + "/") + (f"?{query}" if query else ""))
                return None
            file = index
        elif path.endswith("/") or not self._servable(file):
            return self._send_not_found(parts[:-1])
        return self._send_file(file, *self._encoded(file))

    def _servable(self, file: str) -> bool:
        """A file inside the served folder once symbolic links are followed, and not the host's own."""
        if os.path.basename(file).removesuffix(".br").removesuffix(".gz") in HOST_FILES:
            return False
        root = os.path.realpath(self.directory)
        return os.path.isfile(file) and os.path.realpath(file).startswith(root + os.sep)

    def _encoded(self, file: str) -> tuple[str, str | None]:
        """The file to send for `file` and its Content-Encoding: the `.br` or `.gz` copy the client accepts."""
        accepted = accepted_encodings(self.headers.get("Accept-Encoding", ""))
        for coding, suffix in ENCODINGS:
            if coding in accepted and self._servable(file + suffix):
                return file + suffix, coding
        return file, None

    def _send_not_found(self, folders: list[str]) -> BinaryIO | None:
        """The site's 404 page nearest the missing path (/ja/404.html under /ja/, else the root's)."""
        for depth in range(len(folders), -1, -1):
            page = os.path.join(self.directory, *folders[:depth], "404.html")
            if self._servable(page):
                return self._send_file(page, *self._encoded(page), status=HTTPStatus.NOT_FOUND)
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")
        return None

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None

    def _send_file(
        self, path: str, body_path: str, coding: str | None, status: HTTPStatus = HTTPStatus.OK
    ) -> BinaryIO | None:
        try:
            f = open(body_path, "rb")
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        stat = os.fstat(f.fileno())
        since = self.headers.get("If-Modified-Since")
        try:
            unchanged = since is not None and email.utils.parsedate_to_datetime(since).timestamp() >= int(stat.st_mtime)
        except (TypeError, ValueError):
            unchanged = False
        if unchanged and status == HTTPStatus.OK:
            f.close()
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("Cache-Control", cache_control(path))
            self.end_headers()
            return None
        self.send_response(status)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Last-Modified", self.date_time_string(stat.st_mtime))
        self.send_header("Vary", "Accept-Encoding")
        if coding:
            self.send_header("Content-Encoding", coding)
        self.send_header("Cache-Control", cache_control(path))
        self.end_headers()
        return f

    def end_headers(self) -> None:
        # Every response, errors and redirects included. No HSTS: this server is plain http.
        for name, value in HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # quiet by default; `--verbose` restores the access log
        if self.server.verbose:
            super().log_message(format, *args)


def make_server(
    folder: str, port: int, bind: str = "127.0.0.1", prefix: str = "/", verbose: bool = False
) -> SiteServer:
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    handler = type("PrefixedHandler", (Handler,), {"prefix": prefix})
    server = SiteServer((bind, port), functools.partial(handler, directory=folder))
    server.verbose = verbose
    server.prefix = prefix
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--prefix", default="/")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.folder):
        parser.error(f"{args.folder} is not a folder; build the site first (make site)")
    server = make_server(args.folder, args.port, args.bind, args.prefix, args.verbose)
    host, port = server.server_address[:2]
    print(f"Serving {args.folder} at http://{host}:{port}{server.prefix} (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
