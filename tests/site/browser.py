"""Helpers for the browser tests: what a page requested, what it logged, what axe-core found."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import BrowserContext, Page

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# Chromium's launch flags for the tests and the browser benchmarks: without the last five it keeps
# trying to reach Google's hosts on a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Console errors that are not defects of the site, each with why it is excluded. None: Material's
# language selector fetched sitemap.xml beside each <link rel="alternate"> (404s, or CSP errors when
# served elsewhere); the pages carry no such links now, the sitemap holds the alternates.
HARMLESS_CONSOLE: tuple[str, ...] = ()


@dataclass
class Recorder:
    """Every request and console error of one page, attached before navigation."""

    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @classmethod
    def attach(cls, page: Page) -> "Recorder":
        rec = cls()
        page.on("request", lambda r: rec.requests.append(r.url))
        page.on(
            "console",
            lambda m: rec.errors.append(f"{m.text} @ {m.location.get('url', '')}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: rec.errors.append(f"pageerror: {e}"))
        page.on("requestfailed", lambda r: rec.errors.append(f"requestfailed: {r.url}"))
        return rec

    def foreign_requests(self, base: str) -> list[str]:
        return [u for u in self.requests if not (u.startswith(base) or u.startswith("data:") or u.startswith("blob:"))]

    def real_errors(self) -> list[str]:
        return [e for e in self.errors if not any(h in e for h in HARMLESS_CONSOLE)]


def wait_until(page: Page, predicate: str, timeout_s: float = 90.0):
    """Evaluate `predicate` (a JS function; async allowed) every half second until it returns true.

    Not `page.wait_for_function`: it does not await a promise, so an async predicate passes at once."""
    deadline = time.monotonic() + timeout_s
    while page.evaluate(predicate) is not True:
        if time.monotonic() > deadline:
            raise TimeoutError(f"still not true after {timeout_s:.0f} s: {predicate.strip()[:120]}")
        page.wait_for_timeout(500)


def hold_runtime(target: Page | BrowserContext) -> None:
    """Leave the calculators' runtime (Pyodide) unanswered on this page or context: each calculator
    stays as the build rendered it, its pre-rendered answer shown and its status "loading" (the start
    gives up only after a minute). For tests of that page as built (layout, figures, screenshots),
    which raced the runtime before: its start costs about 6 s of the browser's CPU per page load, and
    the suite is CPU-bound on two cores."""
    target.route("**/pyodide.mjs", lambda route: None)  # neither answered nor refused: pending


# A phone as it reports itself, not a desktop browser at a phone's width: touch, no hover, its pixel
# ratio. Material's script treats a device without hover differently (it takes code blocks out of the
# tab order), so a narrow desktop window misses what a phone's reader meets.
PHONE = {"viewport": {"width": 412, "height": 823}, "is_mobile": True, "has_touch": True, "device_scale_factor": 1.75}


def wake_materials_script(page: Page):
    """Do what the reader's first touch does (guide-page.js then loads Material's bundle), and return
    once the bundle has mounted the page's components and they have measured themselves."""
    page.evaluate("""() => new Promise((resolve, reject) => {
        const settled = () => requestAnimationFrame(() => requestAnimationFrame(resolve));
        if (window.component$) return settled();
        // Material mounts in its own DOMContentLoaded listener, which runs after this one.
        document.addEventListener("DOMContentLoaded", () => setTimeout(settled), {once: true});
        setTimeout(() => reject(new Error("Material's bundle did not load within 30 s")), 30000);
        dispatchEvent(new Event("pointerdown"));
    })""")


def axe_violations(page: Page, impacts=("minor", "moderate", "serious", "critical")) -> list[str]:
    """Run axe-core (from node_modules, evaluated through the DevTools protocol so the page's CSP
    is untouched) and return its violations of every impact, one line each."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in impacts
    ]


# What a test may change on a calculator page besides the form: the folds, and the import box (the
# file's name, the panel with the file's answer). Kept as the page first showed them, and put back.
_KEEP_AS_BUILT = """() => {
    window.__guideAsBuilt = {
        folds: [...document.querySelectorAll("details")].map((d) => d.open),
        imports: [...document.querySelectorAll(".guide-calc__import-result, .guide-calc__file-name")]
            .map((el) => [el, el.innerHTML, el.dataset.ok]),
    };
}"""
# The calculator as a page opened at its defaults would show it: the form reset to the markup's values
# (the defaults the build rendered), folds and import box as built, the answer recomputed live.
_BACK_TO_DEFAULTS = """name => {
    const root = document.getElementById(`calc-${name}`);
    const form = root.querySelector("form");
    form.reset();
    root.querySelectorAll('input[type="file"]').forEach((picker) => { picker.value = ""; });
    const built = window.__guideAsBuilt;
    document.querySelectorAll("details").forEach((d, i) => { d.open = built.folds[i]; });
    for (const [el, html, ok] of built.imports) {
        el.innerHTML = html;
        if (ok === undefined) delete el.dataset.ok; else el.dataset.ok = ok;
    }
    root.guideInputs = null;
    root.guideResponse = null;
    document.activeElement?.blur();
    // A committed change, as a reader's choice sends it: the calculator reads the form and computes.
    form.querySelector("select, input:not([type=hidden]):not([type=file])").dispatchEvent(new Event("change", {bubbles: true}));
    window.scrollTo(0, 0);
}"""
_AT_DEFAULTS = """name => {
    const root = document.getElementById(`calc-${name}`);
    return root.querySelector(".guide-calc__status").dataset.state === "ready" && root.dataset.answer === "current"
        && root.guideResponse != null && location.search === "";
}"""


_FORGET_ANSWERS = """name => {
    const root = document.getElementById(`calc-${name}`);
    root.guideInputs = null;
    root.guideResponse = null;
}"""


class LivePages:
    """One live calculator page per (locale, calculator, screen), shared by the tests that begin where a
    reader opening the page begins: at the defaults, with the runtime started. Starting Pyodide costs
    about 6 s of the browser's CPU per page load, and the suite is CPU-bound; a test that needs the
    load itself (an address with inputs, a blocked file, a recorder of requests) opens its own page.

    `get` hands the page back at its defaults, as `_BACK_TO_DEFAULTS` leaves it; a page that does not
    settle there (a test left its worker stopped) is replaced by a fresh one. `log` is what a page
    requested and logged since it was opened, its start included, through every test that used it."""

    SCREENS = {"desktop": {"viewport": {"width": 1280, "height": 800}}, "phone": PHONE}

    def __init__(self, browser, site_url: str):
        self._browser, self._site_url = browser, site_url
        self._pages: dict[tuple[str, str, str], Page] = {}
        self._logs: dict[Page, Recorder] = {}

    def get(self, locale_root: str, name: str, screen: str = "desktop") -> Page:
        key = (locale_root, name, screen)
        page = self._pages.get(key)
        if page is not None:
            try:
                if "viewport" in self.SCREENS[screen]:  # a test may have resized it
                    page.set_viewport_size(self.SCREENS[screen]["viewport"])
                page.evaluate(_BACK_TO_DEFAULTS, name)
                page.wait_for_function(_AT_DEFAULTS, arg=name, timeout=30_000)
                # No answer recorded yet, as on a page just opened: a test waiting for the answer to
                # its own change must not take the reset's for it.
                page.evaluate(_FORGET_ANSWERS, name)
                return page
            except Exception:  # noqa: BLE001 - whatever went wrong, a fresh page starts clean
                page.context.close()
        context = self._browser.new_context(**self.SCREENS[screen], service_workers="allow")
        page = context.new_page()
        self._logs[page] = Recorder.attach(page)
        page.goto(f"{self._site_url}{locale_root}{name}/")
        page.wait_for_function(_AT_DEFAULTS.replace("&& root.guideResponse != null", ""), arg=name, timeout=90_000)
        page.evaluate(_KEEP_AS_BUILT)
        self._pages[key] = page
        return page

    def log(self, page: Page) -> Recorder:
        return self._logs[page]

    def close(self):
        for page in self._pages.values():
            page.context.close()


def apply_import(page: Page, name: str, timeout_ms: int = 60_000) -> None:
    """A pilot result read: the panel lists what it would change; take it into the form (the
    panel's "apply" button)."""
    root = page.locator(f"#calc-{name}")
    root.locator(".guide-calc__import-result").and_(page.locator('[data-ok="true"]')).wait_for(timeout=timeout_ms)
    root.locator(".guide-import__apply").click()
