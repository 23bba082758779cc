"""The build markers: the one table of the HTML comments a page may carry for the build to replace.

Each marker has a name, one pattern (the same in the Markdown and in the rendered HTML) and a renderer.
The generator's own are `calculator` and `figure`; a guide adds its own with `register`, from a build
extension (`guidekit.site.extensions`). The plugin replaces markers through `embed`; the page-skeleton
check (`i18n.structure`) counts them through `block_key` and `figure_names`. A marker registered here is
therefore both rendered and checked: a translation that loses it fails `guide-i18n status --strict` and
the build. An inline marker crosses Markdown as its slot (`inline_slots`), so it stays in its sentence
wherever it stands in the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable

from guidekit.i18n.markdown import CODE_SPAN, scan

if TYPE_CHECKING:  # `guide-i18n` imports the markers without the build's Jinja
    from jinja2 import Environment

    from guidekit.l10n import LocalePack


@dataclass
class PageContext:
    """What a renderer may need about the page being built."""

    env: Environment  # the partials' Jinja environment for this locale
    pack: LocalePack  # the locale pack
    page: str  # the page's source path, for error messages
    # Each build extension's state, by module name: what its `configure` returned from its options.
    extensions: dict[str, object] = field(default_factory=dict)
    # The page placing each calculator, as a URL relative to this page (a `Carry` link's target).
    calculator_pages: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Marker:
    name: str
    pattern: re.Pattern[str]  # group 1, when present, is the marker's argument
    render: Callable[[re.Match[str], PageContext], str]
    inline: bool = False  # inside a sentence (word order may move it); otherwise on a line of its own

    def key(self, match: re.Match[str]) -> str:
        """How the skeleton check names one occurrence, e.g. `calculator: memory`."""
        return f"{self.name}: {match[1]}" if self.pattern.groups else self.name

    def slot(self, match: re.Match[str]) -> str:
        """An inline marker's stand-in while Markdown reads the page. Python-Markdown takes an HTML comment that
        starts a line for a raw HTML block and pulls it out of its paragraph; an empty <span> stays in the
        sentence wherever it stands. `embed` renders the slot. (Arguments are `[\\w.-]`: no quoting needed.)"""
        return f'<span data-guide-{self.name}="{match[1] if self.pattern.groups else ""}"></span>'

    @cached_property
    def slot_pattern(self) -> re.Pattern[str]:
        """The slot in the HTML; group 1 is the argument, as in `pattern`."""
        return re.compile(rf'<span data-guide-{re.escape(self.name)}="([^"<>]*)"></span>')


def _calculator(match: re.Match[str], ctx: PageContext) -> str:
    from . import calculator_embed

    return calculator_embed.render_calculator(match[1], ctx.env, ctx.pack, ctx.calculator_pages)


def _figure(match: re.Match[str], ctx: PageContext) -> str:
    from . import prose_figures

    return prose_figures.render_figure(match[1], ctx.pack, ctx.page)


_TABLE: dict[str, Marker] = {}


def block(name: str, render: Callable[[re.Match[str], PageContext], str], argument: str | None = None) -> Marker:
    """A marker on a line of its own: `<!-- NAME -->`, or `<!-- NAME: ARGUMENT -->` with `argument` a regex."""
    arg = rf":\s*({argument})" if argument else ""
    return Marker(name, re.compile(rf"<!--\s*{re.escape(name)}{arg}\s*-->"), render)


def register(marker: Marker) -> None:
    """Add a marker to the table (or replace the one of that name)."""
    if not re.fullmatch(r"[a-z][a-z0-9-]*", marker.name):
        raise ValueError(f"a marker's name is lowercase letters, digits and hyphens (got {marker.name!r})")
    _TABLE[marker.name] = marker


def table() -> tuple[Marker, ...]:
    """Every registered marker, in the order they were registered."""
    return tuple(_TABLE.values())


register(Marker("figure", re.compile(r"<!--\s*figure:\s*([\w.-]+)\s*-->"), _figure, inline=True))
register(block("calculator", _calculator, argument=r"[A-Za-z0-9_-]+"))


def arguments(html: str, name: str) -> list[str]:
    """The arguments of every occurrence of one marker, e.g. the calculators a page places."""
    return _TABLE[name].pattern.findall(html)


def block_key(line: str) -> str | None:
    """The key of the block marker that makes up `line` by itself, if any."""
    for marker in table():
        if not marker.inline and (match := marker.pattern.fullmatch(line.strip())):
            return marker.key(match)
    return None


def figure_names(line: str) -> list[str]:
    """The arguments of the inline markers in `line`, outside code spans (those are shown, not rendered)."""
    prose = CODE_SPAN.sub("", line)
    return [match[1] for marker in table() if marker.inline for match in marker.pattern.finditer(prose)]


def _outside_code_spans(line: str, change: Callable[[str], str]) -> str:
    pieces, start = [], 0
    for span in CODE_SPAN.finditer(line):
        pieces += [change(line[start : span.start()]), span[0]]
        start = span.end()
    return "".join([*pieces, change(line[start:])])


def inline_slots(markdown: str) -> str:
    """A page's Markdown with each inline marker of its prose replaced by the marker's slot; markers in fenced
    code and code spans stay as written, to be shown. (Indented code blocks are not told apart: the pages
    fence their code.)"""

    def slots(prose: str) -> str:
        for marker in table():
            if marker.inline:
                prose = marker.pattern.sub(marker.slot, prose)
        return prose

    return "".join(
        _outside_code_spans(line, slots) if kind == "text" else line
        for kind, line in scan(markdown.splitlines(keepends=True))
    )


def embed(html: str, ctx: PageContext) -> str:
    """Every marker in a page's HTML, and every inline marker's slot, replaced by what its renderer makes."""
    for marker in table():

        def render(match: re.Match[str], marker: Marker = marker) -> str:
            return marker.render(match, ctx)

        if marker.inline:
            html = marker.slot_pattern.sub(render, html)
        html = marker.pattern.sub(render, html)
    return html
