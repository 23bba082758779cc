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

from guidekit.site.serve import make_server

ROOT = Path(__file__).resolve().parents[1]


def build(site: Path, revision: str | None = None) -> Path:
    """The working tree's site built into `site`; given a git revision, that revision's site, built
    from its own files (the baseline of an A/B taken in one run)."""
    source, env = ROOT, dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if revision:
        source = site.parent / f"{site.name}-source"
        source.mkdir()
        archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        (source / "node_modules").symlink_to(ROOT / "node_modules")  # Pyodide, for the build's bytecode
        # Its packages, not the working tree's: the guide's and the generator's (since the two were split,
        # the `guide` plugin's entry point names guidekit, so a revision from before the split cannot be built
        # by this environment).
        env["PYTHONPATH"] = os.pathsep.join([str(source), str(source / "generator" / "src")])
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=source, env=env, check=True)
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
