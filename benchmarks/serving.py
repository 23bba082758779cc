"""Building the site and serving it for a benchmark: the same build and server as `make serve`."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from guidebuild.serve import make_server

ROOT = Path(__file__).resolve().parents[1]


def build(site: Path) -> Path:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=ROOT, env=env, check=True)
    return site


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(site: Path, compressed: bool = True):
    """Base URL of `site` on a free loopback port: with the precompressed files (`make serve`), or
    uncompressed like `python -m http.server` (the baseline)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    if compressed:
        server = make_server(str(site), port)
    else:
        server = ThreadingHTTPServer(("127.0.0.1", port), partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()
        server.server_close()
