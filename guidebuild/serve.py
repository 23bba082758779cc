"""A static file server that behaves like a configured production host (`make serve`).

It sends the `.br` or `.gz` file the build wrote beside an asset, with `Content-Encoding` and
`Vary: Accept-Encoding`, when the browser accepts it, the caching headers the README's
deployment section recommends, and the security headers of guidebuild/headers.py with every
response (the calculator's worker has its Content-Security-Policy only from them). `--prefix /path/`
serves the folder under a subpath, as a host that publishes the site at https://example.org/path/ would.

    python -m guidebuild.serve site [--port 8000] [--bind 127.0.0.1] [--prefix /guia/]
"""

from __future__ import annotations

import argparse
import email.utils
import functools
import os
import re
import sys
import urllib.parse
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from .headers import HEADERS

# Preferred first: brotli is smaller; gzip for clients that only take it.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
# Material's own files carry a content hash in their name and never change; everything else
# (pages, sw.js, the guide's scripts, Pyodide) is revalidated, so a new build shows at once.
IMMUTABLE = re.compile(r"\.[0-9a-f]{8}\.min\.(js|css)$")


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


class Handler(SimpleHTTPRequestHandler):
    prefix = "/"

    def translate_path(self, path: str) -> str:
        return super().translate_path("/" + path[len(self.prefix):])

    def send_head(self):
        # Under a subpath, anything outside it does not exist (a 404, as on the real host).
        if not urllib.parse.urlsplit(self.path).path.startswith(self.prefix):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # the redirect to the folder with a slash
            path = os.path.join(path, "index.html")
        accepted = accepted_encodings(self.headers.get("Accept-Encoding", ""))
        for coding, suffix in ENCODINGS:
            if coding in accepted and os.path.isfile(path + suffix):
                return self._send_file(path, path + suffix, coding)
        if os.path.isfile(path):
            return self._send_file(path, path, None)
        return super().send_head()

    def _send_file(self, path: str, body_path: str, coding: str | None):
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
        if unchanged:
            f.close()
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("Cache-Control", cache_control(path))
            self.end_headers()
            return None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Last-Modified", self.date_time_string(stat.st_mtime))
        self.send_header("Vary", "Accept-Encoding")
        if coding:
            self.send_header("Content-Encoding", coding)
        self.send_header("Cache-Control", cache_control(path))
        self.end_headers()
        return f

    def end_headers(self):
        # Every response, errors and redirects included. No HSTS: this server is plain http.
        for name, value in HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format, *args):  # quiet by default; `--verbose` restores the access log
        if self.server.verbose:
            super().log_message(format, *args)


def make_server(folder: str, port: int, bind: str = "127.0.0.1", prefix: str = "/", verbose: bool = False):
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    handler = type("PrefixedHandler", (Handler,), {"prefix": prefix})
    server = ThreadingHTTPServer((bind, port), functools.partial(handler, directory=folder))
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
