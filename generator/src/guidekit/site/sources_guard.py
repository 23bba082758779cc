"""What the project's sources may bring into the site: their own files, and front matter as text.

MkDocs follows symbolic links under `docs/` (folders too) and publishes what they point at, so
`docs/es/environ.txt -> /proc/self/environ` would publish the build's environment; the plugin reads
`results/` and the catalogs the same way. A link that stays inside its own folder (a locale sharing
another's images) publishes nothing new and is allowed; one that leads out of it, or resolves to
nothing (a loop, a missing target), is refused before anything is written. So is a guarded folder that
is itself a link, or sits under one, between it and the project root: its target would be published
whole.

Front matter is YAML text, but the theme prints `title`, `description` and the others into the page
as HTML, unescaped (MkDocs' Jinja does not autoescape): `title: '"><meta http-equiv=refresh ...>'`
became markup in <head>. MkDocs' own titles (from a page's `# heading`) are HTML already, so these
fields are made HTML the same way, once, and every template, the nav and the search index show them
as written.
"""

from __future__ import annotations

import html
import math
import os
import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import yaml
from mkdocs.utils.meta import YAML_RE

# Front-matter fields Material's templates print unescaped: <title>, the header, the nav and the search
# index (title), <meta name=description|author>, the nav's <small> (subtitle), a class name (status).
PRINTED_FIELDS = ("title", "description", "author", "subtitle", "status")


def one_line(text: str) -> str:
    """A name or message as one log line: control and bidi characters escaped, so a file name
    cannot start a new line of its own or reverse the text around it."""
    return "".join(
        ch
        if ch.isprintable() and not 0x202A <= ord(ch) <= 0x202E and not 0x2066 <= ord(ch) <= 0x2069
        else ascii(ch)[1:-1]
        for ch in text
    )


def linked_folder(folder: Path, root: Path) -> str | None:
    """One line when `folder`, or a folder between it and the project `root`, is a symbolic link (or
    the folder lies outside the root altogether), else None."""
    folder, root = Path(os.path.abspath(folder)), Path(os.path.abspath(root))
    if not folder.is_relative_to(root):
        return None  # a folder the project names outside itself (a shared catalog): not the project's to guard
    for path in [folder, *folder.parents]:
        if path == root:
            return None
        if path.is_symlink():
            return (
                f"{one_line(_shown(path, root))} is a symbolic link to {one_line(os.readlink(path))}: the build "
                "reads and publishes only the project's own folders. Replace the link with the folder itself"
            )
    return None


def outside_links(folder: Path, root: Path) -> list[str]:
    """One line for `folder` when it is itself a link or under one (`linked_folder`), else one for each
    symbolic link under it, at any depth, that resolves outside it or to nothing (links are not followed
    while looking, so a link to `/` or a loop costs nothing)."""
    folder = Path(folder)
    if (line := linked_folder(folder, root)) is not None:
        return [line]
    if not folder.is_dir():
        return []
    home = os.path.realpath(folder)
    shown = _shown(folder, root)
    lines = []
    for parent, dirs, files in os.walk(folder, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(parent, name)
            if not path.is_symlink():
                continue
            link = f"{one_line(_shown(path, root))} is a symbolic link to {one_line(os.readlink(path))}"
            try:
                target = os.path.realpath(path, strict=True)
            except OSError:  # a loop, or a target that does not exist
                lines.append(f"{link}, which leads nowhere (a loop or a missing file): remove it")
                continue
            if os.path.commonpath([home, target]) != home:
                lines.append(
                    f"{link}, outside {shown}/: only files inside {shown}/ are published or read. "
                    "Replace the link with a copy of what it points at, or remove it"
                )
    return lines


def _shown(path: Path, root: Path) -> str:
    path = Path(os.path.abspath(path))
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def front_matter_as_html(meta: MutableMapping[str, Any]) -> list[str]:
    """Turns the printed fields of `meta` into HTML text in place; returns what cannot be text (a
    list or mapping where the theme prints a string)."""
    problems = []
    for field in PRINTED_FIELDS:
        value = meta.get(field)
        if value is None:
            continue
        if isinstance(value, (dict, list, tuple, set)):
            problems.append(f"front matter '{field}' must be text, not a {type(value).__name__}")
            continue
        meta[field] = html.escape(str(value), quote=True)
    return problems


def unread_front_matter(markdown: str) -> str | None:
    """Why the page's front matter is still in its Markdown, or None. MkDocs removes front matter it
    reads and keeps, as the page's first paragraph, front matter it cannot read, without a word: an
    unquoted ': ' inside a value does that."""
    if not (match := YAML_RE.match(markdown)):
        return None
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f", line {mark.line + 2}" if mark else ""  # +1 for counting from 1, +1 for the opening ---
        what = getattr(exc, "problem", None) or type(exc).__name__
        return f"its front matter is not YAML ({what}{where}); quote a value that holds ': ' or ' #'"
    return None if isinstance(data, dict) else "its front matter is not a mapping of fields"


def front_matter_problem(meta: Mapping[str, Any]) -> str | None:
    """What in a page's front matter Material would read wrongly, or None: `search.boost` other than a
    finite number wrote `Infinity` into the search index, which is not JSON, so the locale's search
    stopped working; `hide` other than a list of names stopped the build with a TypeError."""
    search = meta.get("search")
    if search is not None:
        if not isinstance(search, Mapping):
            return "its front matter's `search` is not a mapping (e.g. `search: {boost: 2}`)"
        boost = search.get("boost")
        finite = isinstance(boost, (int, float)) and not isinstance(boost, bool) and math.isfinite(boost)
        if boost is not None and not finite:
            return f"its front matter's `search.boost` is {boost!r}, not a finite number"
        if "exclude" in search and not isinstance(search["exclude"], bool):
            return f"its front matter's `search.exclude` is {search['exclude']!r}, not true or false"
    hide = meta.get("hide")
    if hide is not None and not (isinstance(hide, list) and all(isinstance(item, str) for item in hide)):
        return f"its front matter's `hide` is {hide!r}, not a list of names (e.g. `hide: [toc]`)"
    return None


_TEMPLATE_NAME = re.compile(r"[\w-]+(?:/[\w-]+)*\.html")
_ICON_NAME = re.compile(r"[\w-]+(?:/[\w-]+)+")


def front_matter_paths_problem(meta: Mapping[str, Any], theme_dirs: list[str]) -> str | None:
    """What in a page's front matter names a template or an icon the theme does not have, or None:
    `template: ../../etc/passwd` and `icon: ../../x` stopped the build with a TemplateNotFound traceback."""
    template = meta.get("template")
    if template is not None and not (
        isinstance(template, str)
        and _TEMPLATE_NAME.fullmatch(template)
        and any(Path(d, template).is_file() for d in theme_dirs)
    ):
        return f"its front matter's `template` is {template!r}, not a template of the theme (such as main.html)"
    icon = meta.get("icon")
    if icon is not None and not (
        isinstance(icon, str)
        and _ICON_NAME.fullmatch(icon)
        and any(Path(d, ".icons", f"{icon}.svg").is_file() for d in theme_dirs)
    ):
        return f"its front matter's `icon` is {icon!r}, not one of the theme's icons (such as material/chip)"
    return None


# Python-Markdown's time grows with the square of some runs inside one block (20,000 `[` took 46 s) and
# faster still with nesting (a 2,000-deep list ran past 600 s), so a page's shape is bounded before it runs.
# The guide's own pages stay far inside: at most 37 kB, 27 columns of indent, 7 `[` in a block.
MAX_PAGE_CHARS = 200_000
MAX_INDENT = 64  # columns (a tab counts 4): a list or quote nested about 16 levels
MAX_QUOTE_DEPTH = 16
MAX_PER_BLOCK = {"[": 128, "<": 512}
_QUOTES = re.compile(r"(?:> ?)*")


def page_shape_problem(markdown: str) -> str | None:
    """Why a page's Markdown is too large or too deep to convert in bounded time, or None."""
    if len(markdown) > MAX_PAGE_CHARS:
        return f"the page holds {len(markdown):,} characters, over {MAX_PAGE_CHARS:,}: split it into pages"
    counts, start = dict.fromkeys(MAX_PER_BLOCK, 0), 1
    for number, line in enumerate(markdown.split("\n"), 1):
        if not line.strip():
            counts, start = dict.fromkeys(MAX_PER_BLOCK, 0), number + 1
            continue
        stripped = line.expandtabs(4)
        indent = len(stripped) - len(stripped.lstrip(" "))
        if indent > MAX_INDENT:
            return f"line {number} is indented {indent} columns, over {MAX_INDENT}: nest lists and quotes less deeply"
        quotes = _QUOTES.match(stripped, indent)
        if quotes and (depth := quotes.group(0).count(">")) > MAX_QUOTE_DEPTH:
            return f"line {number} nests quotes {depth} deep, over {MAX_QUOTE_DEPTH}"
        for char, limit in MAX_PER_BLOCK.items():
            counts[char] += line.count(char)
            if counts[char] > limit:
                return (
                    f"the block from line {start} holds over {limit} '{char}', which Markdown reads in time that "
                    "grows with their square: split the block with blank lines"
                )
    return None
