"""The security headers of the site: one home for the page's meta policy, `make serve`'s headers,
the `_headers` file the build writes and the README's nginx and Caddy recipes (a test compares them).

The policy is the same for every response. The page's <meta> carries it for hosts that cannot send
headers, but a meta tag binds neither a worker nor framing: the calculator's worker gets its policy
(no eval, no fetch to another origin) only from the header sent with its script.
"""

from __future__ import annotations

from pathlib import Path

# Scripts: the site's own files only, and 'wasm-unsafe-eval' so Pyodide can compile WebAssembly; no
# inline script (the build refuses one, see content_policy) and no eval.
# Styles: own files only; the pages carry no style attribute or element, and Material's script styles
# through the CSSOM, which a policy does not restrict.
POLICY = (
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
)
# Only a header can forbid framing: browsers ignore frame-ancestors in a <meta> policy.
HEADER_ONLY_POLICY = ("frame-ancestors 'none'",)

META_POLICY = "; ".join(POLICY)
HEADER_POLICY = "; ".join(POLICY + HEADER_ONLY_POLICY)
# The site links to its sources on other sites; they learn nothing of which page the reader was on.
REFERRER_POLICY = "no-referrer"

# Sent with every response (pages, scripts, the worker, errors).
HEADERS = {
    "Content-Security-Policy": HEADER_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": REFERRER_POLICY,
    # Nothing on the site uses these; a script injected some day gets none of them either.
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), "
    "accelerometer=(), gyroscope=(), magnetometer=(), display-capture=(), browsing-topics=()",
}
# Only over HTTPS (a browser ignores it on http://, and `make serve` is plain http on loopback).
HTTPS_HEADERS = {"Strict-Transport-Security": "max-age=31536000"}

HEADERS_FILE = "_headers"


def host_headers() -> dict[str, str]:
    """What a production host sends with every response."""
    return {**HEADERS, **HTTPS_HEADERS}


def write_headers_file(site_dir: Path) -> Path:
    """`_headers` at the site root, read by Netlify and Cloudflare Pages (and not published by them)."""
    lines = [
        "# Security headers of the guide (generator/src/guidekit/site/headers.py); Netlify and Cloudflare Pages read this file.",
        "/*",
    ]
    lines += [f"  {name}: {value}" for name, value in host_headers().items()]
    path = site_dir / HEADERS_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
