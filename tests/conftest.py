"""Shared fixtures: the site built once per test session, and served on a free local port."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ("es", "ja", "ar")
ARTIFACTS = ROOT / "test-artifacts"


def build_site(target: Path, site_url: str, config_file: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into `target`, as if published at `site_url`.

    The override is a config that INHERITs the real one; it sits beside mkdocs.yml (git-ignored)
    because MkDocs resolves a config's relative paths from its own folder."""
    override = config_file.parent / f".mkdocs-test-{os.getpid()}.yml"
    override.write_text(f"INHERIT: {config_file.name}\nsite_url: {site_url}\n", encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    try:
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(override), "-d", str(target)],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )
    finally:
        override.unlink()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> tuple[Path, str, str]:
    """(site folder, build log, site_url). The site is built for the port the tests serve it on,
    so absolute URLs (hreflang, sitemap) stay on the test server's origin."""
    target = tmp_path_factory.mktemp("site")
    url = f"http://127.0.0.1:{_free_port()}/"
    result = build_site(target, url)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return target, result.stdout + result.stderr, url


@contextlib.contextmanager
def serve_static(folder: Path, port: int | None = None):
    """A static HTTP server over `folder` on loopback, like any static host; yields its base URL."""
    port = port or _free_port()
    base = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base, timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=5)


@pytest.fixture(scope="session")
def site_url(built_site) -> str:
    """Base URL of a static server over the built site, on the port it was built for."""
    site_dir, _, base = built_site
    with serve_static(site_dir, int(base.rsplit(":", 1)[1].strip("/"))) as url:
        yield url


# -- Playwright against Debian's Chromium ------------------------------------------------------
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium not found: install it with 'apt-get install chromium fonts-noto-cjk fonts-noto-core'")
    tmp = ROOT / ".tmp"
    os.environ.setdefault("XDG_CONFIG_HOME", str(tmp / "xdg-config"))
    os.environ.setdefault("XDG_CACHE_HOME", str(tmp / "xdg-cache"))
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        # Without these Chromium keeps trying to reach Google's hosts on a closed network.
        "args": ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    }
