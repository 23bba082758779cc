"""Shared fixtures: the site built once per test session, and served on a free local port."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import calculators  # noqa: F401  (registers this guide's calculators, as mkdocs.yml's calculator_modules does)

ROOT = Path(__file__).resolve().parents[1]
# The generator's theme (the plugin adds it beneath custom_dir) and this guide's own overrides above it.
THEME = ROOT / "generator" / "src" / "guidekit" / "theme"
THEME_DIRS = [str(ROOT / "overrides"), str(THEME)]
LOCALES = ("es", "ja", "ar")
ROOTS = {"es": "", "ja": "ja/", "ar": "ar/"}  # each locale's folder in the built site (Spanish at the root)
ARTIFACTS = ROOT / "test-artifacts"


@functools.cache
def locale_packs() -> dict[str, dict]:
    """Each site locale's pack (CLDR formats and the gettext catalog), as the build writes it; read once."""
    from guidekit.site.locale_pack import locale_pack

    return {code: locale_pack(code, ROOT / "locales") for code in LOCALES}


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
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
    finally:
        override.unlink()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The tests build the site for one address and serve it at another origin and path, as happens
# when a build is published somewhere its SITE_URL did not name: nothing may depend on the match.
BUILT_FOR = "https://guide.example/guia/"
SERVED_AT = "/otro/camino/"


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items):
    """A test that reads the built site or wheel is a `build` test wherever it lives, and one that drives
    Chromium a `browser` test, even if its file forgets the mark: `make check` leaves both out."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if {"built_site", "project_wheel"} & fixtures:
            item.add_marker(pytest.mark.build)
        if "browser_type_launch_args" in fixtures:  # what pytest-playwright's page, context and browser need
            item.add_marker(pytest.mark.browser)
            # With `-n 2 --dist loadgroup` (make test) a locale's browser tests share one worker, so
            # each worker starts only its own locales' live pages (a test without a locale is Spanish's).
            params = getattr(getattr(item, "callspec", None), "params", {})
            item.add_marker(pytest.mark.xdist_group(f"browser-{params.get('locale', 'es')}"))
        elif any(d.scope == "module" for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs):
            # A module-scoped fixture (a training run, a test site's build, Pyodide in Node) is made again
            # in each worker that runs one of its tests, and again after another module ran in between:
            # the tests that use one run together, in one worker.
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def _once_per_run(tmp_path_factory, worker_id: str, name: str, make):
    """`make(folder)` once per test run, however many pytest-xdist workers ask: the first builds under a
    file lock, the others wait and read what it returned (JSON). Without xdist, a plain session fixture."""
    if worker_id == "master":
        return make(tmp_path_factory.mktemp(name))
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent  # the run's folder, above each worker's own
    answer = shared / f"{name}.json"
    with FileLock(str(shared / f"{name}.lock")):
        if not answer.is_file():
            folder = shared / name
            folder.mkdir(exist_ok=True)
            answer.write_text(json.dumps(make(folder)), encoding="utf-8")
    return json.loads(answer.read_text(encoding="utf-8"))


def _build_site(target: Path) -> list[str]:
    result = build_site(target, BUILT_FOR)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return [str(target), result.stdout + result.stderr]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id) -> tuple[Path, str, str]:
    """(site folder, build log, the site_url it was built for): one build per test run, read-only."""
    folder, log = _once_per_run(tmp_path_factory, worker_id, "site", _build_site)
    return Path(folder), log, BUILT_FOR


def _build_wheel(folder: Path) -> str:
    from guidekit.runtime.assets import build_wheels

    return str(build_wheels([ROOT], folder)[0])


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory, worker_id) -> Path:
    """This project's wheel as `pip wheel` builds it for the browser (before browser_only and bytecode),
    built once per test run for every test that reads it. Shared: a test that changes it works on a copy."""
    return Path(_once_per_run(tmp_path_factory, worker_id, "wheel", _build_wheel))


def _build_guidekit_wheel(folder: Path) -> list[str]:
    from guidekit.runtime.assets import build_wheels

    return [str(build_wheels([ROOT / "generator"], folder)[0])]


@pytest.fixture(scope="session")
def guidekit_wheel(tmp_path_factory, worker_id) -> Path:
    """guidekit's wheel as pip builds it from generator/ (what `pip install` installs), once per test run
    for every test that installs it."""
    return Path(_once_per_run(tmp_path_factory, worker_id, "guidekit-wheel", _build_guidekit_wheel)[0])


@pytest.fixture(scope="session")
def generator_wheel(tmp_path_factory) -> Path:
    """The generator's browser wheel as the build packs it from the installed guidekit (no pip: cheap)."""
    from guidekit.runtime.assets import generator_wheel

    return generator_wheel(tmp_path_factory.mktemp("generator-wheel"))


@contextlib.contextmanager
def serve_static(folder: Path, prefix: str = "/"):
    """`make serve`'s server (precompressed files, Content-Encoding) over `folder` on a free
    loopback port, under `prefix`; yields its base URL."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}{prefix}"
    server = subprocess.Popen(
        [sys.executable, "-m", "guidekit.site.serve", str(folder), "--port", str(port), "--prefix", prefix],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
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
    """Base URL of the built site, served on a port and under a path it was not built for."""
    with serve_static(built_site[0], SERVED_AT) as url:
        yield url


# -- Playwright against Debian's Chromium ------------------------------------------------------
# Debian's Chromium in its headless shell (`chromium-headless-shell`: the same build, engine and
# version as the `chromium` package, without the desktop browser around it; Playwright's own
# headless runs use the same shell). The browser tests are CPU-bound on two cores, and the shell
# takes about half the CPU of `chromium --headless` to load and check a page (benchmarks/README.md).
# GUIDE_CHROMIUM names another executable, e.g. /usr/bin/chromium for the full browser.
CHROMIUM = (
    os.environ.get("GUIDE_CHROMIUM") or shutil.which("chromium-headless-shell") or "/usr/bin/chromium-headless-shell"
)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    from tests.site.browser import CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} not found: install it with "
            "'apt-get install chromium-headless-shell fonts-noto-cjk fonts-noto-core'"
        )
    tmp = ROOT / ".tmp"
    os.environ.setdefault("XDG_CONFIG_HOME", str(tmp / "xdg-config"))
    os.environ.setdefault("XDG_CACHE_HOME", str(tmp / "xdg-cache"))
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
    }


# The calculators announce each request (guide:compute) and answer (guide:result) as events on their
# element; every page the tests open keeps the last of each on the element, as `guideInputs` and
# `guideResponse`, for the tests to read. The site itself sets no test hooks.
KEEP_ANSWERS = """
document.addEventListener("guide:compute", (e) => { e.target.guideInputs = e.detail.inputs; }, true);
document.addEventListener("guide:result", (e) => { e.target.guideResponse = e.detail.response; }, true);
"""
# The headless shell's own pointer enters each page it loads at (0, 0): a pointermove that no reader
# made (the full browser sends none), which would wake Material's bundle at load (guide-page.js), on a
# phone too. Stopped before the page's own listeners, so a page wakes as in a browser nobody touched.
NO_STRAY_POINTER = """
for (const type of ["pointerover", "pointerenter", "pointermove", "mouseover", "mouseenter", "mousemove"]) {
  addEventListener(type, (e) => { if (e.isTrusted && e.clientX === 0 && e.clientY === 0) e.stopImmediatePropagation(); }, true);
}
"""


class _KeepingAnswers:
    """The session's browser, whose every new context (and page) keeps the calculators' answers.

    Its contexts run without the site's service worker unless a test asks (`service_workers="allow"`):
    in a fresh context the worker's install downloads and stores every page of every locale, and a
    live calculator page then stores the whole runtime, about 0.5 s and 0.8 s of the browser's CPU
    each time, which the suite paid in hundreds of contexts. The worker stays in the tests about it
    (test_browser_offline.py), in every page of every locale (test_every_page_is_accessible_and_silent)
    and in the shared live calculator pages (LivePages)."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **kwargs):
        context = self._browser.new_context(**{"service_workers": "block", **kwargs})
        context.add_init_script(NO_STRAY_POINTER + KEEP_ANSWERS)
        return context

    def new_page(self, **kwargs):
        page = self._browser.new_page(**{"service_workers": "block", **kwargs})
        page.add_init_script(NO_STRAY_POINTER + KEEP_ANSWERS)
        return page

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser(browser):
    return _KeepingAnswers(browser)


@pytest.fixture(scope="session")
def live_pages(browser, site_url):
    """Started calculator pages shared across tests, each handed back at its defaults (LivePages)."""
    from tests.site.browser import LivePages

    pages = LivePages(browser, site_url)
    yield pages
    pages.close()
