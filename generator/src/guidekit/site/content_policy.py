"""What a page, a template and a file under `docs/` may bring into the site.

Contributors and translators add pages and files; a page that loads a script file from `docs/` would run
under `script-src 'self'`. So the build holds what they add to a policy and names each breach:

- a page's content (its Markdown rendered) carries text, images, links and tables: no `<script>` of any
  kind, no element that embeds, frames, posts or restyles (`iframe`, `object`, `form`, `style`, `link`,
  `base`, ...), no event handler, no `javascript:` URL, no `style=`, nothing that loads from another origin;
- the theme's templates may load their own scripts and styles, but no inline script, handler,
  `javascript:` URL or load from another origin;
- `docs/` publishes images, fonts, media and downloads only (`STATIC_TYPES`); an SVG only without script,
  handlers, embedded HTML or references to another origin, because a browser opening it runs its script.

The HTML is parsed by lexbor, a parser that follows the HTML standard as browsers do (with scripting on, as
a reader's browser has it), so markup that Python's HTMLParser reads differently (`<noscript>`, `<xmp>`,
CDATA, `<math>`'s `<style>`) cannot hide a handler from the check.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

# A <script> whose type names none of these is a data block (Material's `__config` JSON): the browser
# never runs it. Parameters are ignored, to err on the side of script.
_SCRIPT_TYPES = {
    "",
    "module",
    "importmap",
    "speculationrules",
    "text/javascript",
    "application/javascript",
    "application/ecmascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
}
# Elements a page's content may not hold, and why (the templates may use some of them for the theme).
PAGE_ELEMENTS = {
    "script": "runs script",
    "iframe": "embeds another document",
    "frame": "embeds another document",
    "frameset": "embeds another document",
    "object": "embeds a plug-in or document",
    "embed": "embeds a plug-in or document",
    "applet": "embeds a plug-in",
    "portal": "embeds another document",
    "fencedframe": "embeds another document",
    "base": "changes where every link of the page leads",
    "form": "sends what a reader types somewhere",
    "link": "loads a file into the page",
    "style": "restyles the page (the policy blocks inline style)",
}
# Attributes whose URL the browser fetches (or sends a request to) without the reader choosing it.
_LOADING = {
    "src",
    "srcset",
    "poster",
    "data",
    "background",
    "lowsrc",
    "dynsrc",
    "action",
    "formaction",
    "ping",
    "manifest",
    "codebase",
    "archive",
    "imagesrcset",
}
# URL attributes in general (a javascript: URL in any of them runs script).
_URLS = _LOADING | {"href", "xlink:href", "cite", "longdesc"}
# <link> relations the browser does not fetch: the theme's canonical and alternate-language links name the
# site's public address, which a build for a local preview does not share.
_LINK_NOT_FETCHED = {
    "canonical",
    "alternate",
    "author",
    "help",
    "license",
    "next",
    "prev",
    "bookmark",
    "me",
    "nofollow",
    "noopener",
    "noreferrer",
    "tag",
}
# Browsers drop ASCII whitespace and control characters from a URL before reading it, and read a
# backslash as a slash in http(s) URLs (`\\evil.example` is `//evil.example`).
_URL_NOISE = re.compile(r"[\x00-\x20]")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")


def _excerpt(text: str, limit: int = 80) -> str:
    """A short, printable quote of markup for a build log line (no newline can forge a log line)."""
    text = " ".join(text.split())
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


def _start_tag(node: LexborNode) -> str:
    attributes = "".join(f' {name}="{value or ""}"' for name, value in node.attributes.items())
    return f"<{node.tag}{attributes}>"


def _url(value: str) -> str:
    return _URL_NOISE.sub("", value).replace("\\", "/").lower()


def is_other_origin(value: str, data_allowed: bool = False) -> bool:
    """Whether a URL leaves the site: a scheme (https:, data:, blob:, ...) or a `//host`; relative paths and
    fragments stay. `data:` counts as the site's own where the policy lets images come from it."""
    url = _url(value)
    if url.startswith("//"):
        return True
    if data_allowed and url.startswith("data:"):
        return False
    return bool(_SCHEME.match(url))


def _srcset_urls(value: str) -> list[str]:
    return [candidate.split()[0] for candidate in value.split(",") if candidate.split()]


def _loads_elsewhere(node: LexborNode, name: str, value: str) -> bool:
    tag = node.tag or ""
    if name in ("href", "xlink:href"):
        if tag in ("a", "area"):
            return False  # a link the reader follows, not a load
        if tag == "link" and set((node.attributes.get("rel") or "").lower().split()) <= _LINK_NOT_FETCHED:
            return False
    elif name not in _LOADING:
        return False
    images = tag in ("img", "source", "picture", "image")
    urls = _srcset_urls(value) if name in ("srcset", "imagesrcset") else [value]
    return any(is_other_origin(url, data_allowed=images) for url in urls)


def _parse(html: str) -> LexborHTMLParser:
    # scripting=True: a reader's browser reads <noscript> as raw text; a parser without scripting would
    # see an attribute where the browser sees an element with a handler.
    return LexborHTMLParser(html, scripting=True)


def _elements(html: str) -> list[LexborNode]:
    root = _parse(html).root
    return [node for node in root.traverse() if node.tag and not node.tag.startswith("-")] if root else []


def _attribute_problems(node: LexborNode) -> list[str]:
    problems = []
    for raw_name, raw_value in node.attributes.items():
        name, value = raw_name.lower(), raw_value or ""
        if name.startswith("on") and len(name) > 2:
            problems.append(f"event handler {name}= in {_excerpt(_start_tag(node))}")
        elif name in _URLS and _url(value).startswith("javascript:"):
            problems.append(f"javascript: URL in {_excerpt(_start_tag(node))}")
        elif _loads_elsewhere(node, name, value):
            problems.append(f"{name}= loading from another origin in {_excerpt(_start_tag(node))}")
    return problems


def page_problems(html: str) -> list[str]:
    """What a page's content (its Markdown rendered, before the build adds its own markup) may not hold."""
    problems = []
    for node in _elements(html):
        tag = (node.tag or "").lower()
        if tag in PAGE_ELEMENTS:
            problems.append(f"a <{tag}> element, which {PAGE_ELEMENTS[tag]}: {_excerpt(_start_tag(node))}")
            continue
        if any(name.lower() == "style" for name in node.attributes):
            problems.append(f"a style= attribute, which the policy blocks: {_excerpt(_start_tag(node))}")
        if any(name.lower() == "srcdoc" for name in node.attributes):
            problems.append(f"a srcdoc= attribute, a document inside the page: {_excerpt(_start_tag(node))}")
        problems += _attribute_problems(node)
    return problems


def template_problems(html: str) -> list[str]:
    """What a whole page (the theme's templates around checked content) may not hold: inline script, which
    the policy blocks, a handler or a javascript: URL, a load from another origin."""
    problems = []
    for node in _elements(html):
        if node.tag == "script" and "src" not in node.attributes:
            kind = (node.attributes.get("type") or "").split(";")[0].strip().lower()
            body = node.text(deep=True).strip()
            if kind in _SCRIPT_TYPES and body:
                problems.append(f"inline <script> {_excerpt(body)}")
        problems += _attribute_problems(node)
    return problems


def policy_meta_problems(html: str) -> list[str]:
    """Each <meta http-equiv> (a refresh sends the reader elsewhere; others set headers) and
    <meta name="referrer"> (it overrides the site's no-referrer policy) in `html`: only the build's
    own, which `html_rewrite.add_security_meta` puts first in <head>, may set them."""
    return [
        _excerpt(_start_tag(node))
        for node in _elements(html)
        if node.tag == "meta"
        and ("http-equiv" in node.attributes or (node.attributes.get("name") or "").strip().lower() == "referrer")
    ]


# -- files under docs/ -----------------------------------------------------------------------------------

# What `docs/` publishes besides pages, by extension: images, fonts, media and downloads. Nothing a
# browser runs or renders as a document (.html, .js, .mjs, .css, .xml, .xhtml, .svgz, ...).
STATIC_TYPES = frozenset(
    {
        *("png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "bmp", "svg"),
        *("woff", "woff2", "ttf", "otf"),
        *("mp4", "webm", "ogg", "mp3", "wav", "m4a"),
        *("pdf", "zip", "gz", "tgz", "bz2", "xz", "tar", "7z", "csv", "tsv", "json", "jsonl", "txt", "parquet"),
    }
)
SVG_MAX_BYTES = 2_000_000
_SVG_REFUSED = {"script", "foreignobject", "iframe", "embed", "object", "handler", "listener"}
_CSS_ELSEWHERE = re.compile(r"@import|url\(\s*['\"]?(?!#)", re.IGNORECASE)


def static_file_problem(path: Path) -> str | None:
    """Why `docs/` must not publish the file at `path`, or None."""
    kind = path.suffix.lower().lstrip(".")
    if kind not in STATIC_TYPES:
        what = f"a .{kind} file" if kind else "a file without an extension"
        return (
            f"{what}, which a browser may run or render as a page: docs/ publishes pages (.md), images, fonts, "
            "media and downloads only. Move script, style and templates into the theme (custom_dir)"
        )
    return svg_problem(path.read_bytes()) if kind == "svg" else None


def svg_problem(data: bytes) -> str | None:
    """Why an SVG file would run script or load from another origin when opened, or None."""
    if len(data) > SVG_MAX_BYTES:
        return f"an SVG of {len(data):,} bytes, over the {SVG_MAX_BYTES:,} the build checks"
    if b"<!DOCTYPE" in data.upper() or b"<!ENTITY" in data.upper():
        return "an SVG with a DOCTYPE or entities (remove them: an entity can expand without bound)"
    if b"<?xml-stylesheet" in data:
        return "an SVG that loads a style sheet (<?xml-stylesheet?>)"
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        return f"an SVG that is not well-formed XML ({exc})"
    for element in root.iter():
        tag = str(element.tag).rsplit("}", 1)[-1]
        if tag.lower() in _SVG_REFUSED:
            return f"an SVG with a <{tag}> element, which runs script or embeds a page"
        if tag.lower() in ("set", "animate") and element.get("attributeName", "").lower().endswith("href"):
            return f"an SVG whose <{tag}> changes a link, which can make it run script"
        if tag.lower() == "style" and _CSS_ELSEWHERE.search(element.text or ""):
            return "an SVG whose <style> loads a file (url() or @import)"
        for raw_name, value in element.attrib.items():
            name = raw_name.rsplit("}", 1)[-1].lower()
            if name.startswith("on"):
                return f"an SVG with an event handler {name}= on <{tag}>"
            if name == "style" and _CSS_ELSEWHERE.search(value):
                return f"an SVG whose style= on <{tag}> loads a file (url() or @import)"
            if name == "href" and _url(value).startswith("javascript:"):
                return f"an SVG with a javascript: URL on <{tag}>"
            if name == "href" and tag != "a" and is_other_origin(value) and not _url(value).startswith("data:image/"):
                return f"an SVG whose <{tag}> loads {value[:60]!r} from another origin"
    return None
