"""Faults a reader sees in the rendered page that an editor does not see in the Markdown.

Two rules, each for the scripts where it applies, reported by `guide-i18n status` as kind `typeset`:

- **A space after a Japanese unit** (Japanese, Chinese). A figure keeps a half-width space before a Latin
  unit or word (「80 GB を」), but a unit written in Japanese ends the figure as a word does, and a space
  after it is a space inside the sentence: 「15.9 時間 かかります」. The pages are checked as written
  (「3 枚 で」) and with each `<!-- figure: -->` marker rendered as the build renders it: a marker whose
  figure ends in Japanese (「20.4 時間」) takes no space after it.
- **An unisolated run in right-to-left text** (Arabic, Hebrew …). A Latin letter or digit touching a
  neutral character (/ + – %) takes the paragraph's direction there, so «1/N» is drawn «N/1» and
  «+30–40%» «40%–30+». Such runs belong in an isolating span (`<span class="guide-num">`, a `dir="ltr"`
  span, `<bdi>`) or between Unicode isolates (U+2066 … U+2069), in prose, tables and link text. In a
  heading only the isolates count: the table of contents prints the heading's text without its tags.

Code (blocks and spans), HTML comments, tags and link targets are not text a reader sees as prose.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator

from .markdown import CODE_SPAN, front_matter_end, scan
from .problems import Problem

KIND = "typeset"

# -- Japanese: a space after a unit written in Japanese ------------------------------------------------------

UNSPACED = frozenset({"ja", "zh"})  # written without spaces between words (BCP 47 primary subtags)
_WORDS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and ideographs (not punctuation)
_UNIT_SPACE = re.compile(rf"\d[ \u00a0]?([{_WORDS}]+)[ \u00a0]+(?=[{_WORDS}])")
_MARKER_SPACE = re.compile(rf"<!--\s*figure:\s*([\w.-]+)\s*-->[ \u00a0]+(?=[{_WORDS}])")
_ENDS_IN_WORD = re.compile(rf"[{_WORDS}]\s*$")
_HIDDEN = "\x1a"  # what a marker or a tag stands in as: neither a word nor a space

# -- right to left: a run that is not isolated -----------------------------------------------------------------

_NEUTRALS = "/+\u2013%"  # slash, plus, en dash, percent: the ones that flip a figure in a right-to-left line
_TOUCHES = re.compile(rf"[0-9A-Za-z][{_NEUTRALS}]|[{_NEUTRALS}][0-9A-Za-z]")
_ISOLATES = re.compile(r"\u2066[^\u2069]*\u2069|\u2067[^\u2069]*\u2069|\u2068[^\u2069]*\u2069")
# An element that isolates its text, with its content (no nesting of the same element in prose).
_ISOLATING = re.compile(
    r"<span\b[^>]*(?:class=\"[^\"]*\bguide-num\b[^\"]*\"|dir=\"ltr\")[^>]*>.*?</span>|<bdi\b[^>]*>.*?</bdi>"
    r"|<code\b[^>]*>.*?</code>",
    re.DOTALL,
)
_NOT_PROSE = re.compile(r"<!--.*?-->|\]\([^)\s]*(?:\s+\"[^\"]*\")?\)|<[^<>]+>|\{[#.][^}]*\}")


def _blank(pattern: re.Pattern[str], text: str, fill: str = " ") -> str:
    """`text` with what `pattern` matches replaced by `fill` (same length, so positions hold)."""
    return pattern.sub(lambda m: fill * len(m.group(0)), text)


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of the page's body outside code blocks, with code spans blanked."""
    lines = text.splitlines()
    end = front_matter_end(lines)
    start = 0 if end is None else end + 1
    for number, (kind, line) in enumerate(scan(lines[start:]), start + 1):
        if kind == "text":
            yield number, _blank(CODE_SPAN, line)


def _excerpt(line: str, start: int, end: int) -> str:
    return line[max(0, start - 12) : end + 12].strip()


def unit_space_problems(
    locale: str, where: str, text: str, figure_text: Callable[[str], str | None] = lambda name: None
) -> list[Problem]:
    """A space after a figure whose unit is Japanese, before Japanese text; `figure_text` renders a
    marker's figure in `locale` (None when it cannot say)."""
    if locale.split("-")[0].split("_")[0].lower() not in UNSPACED:
        return []
    problems = []
    for number, line in _prose_lines(text):
        for match in _UNIT_SPACE.finditer(_blank(_NOT_PROSE, line, _HIDDEN)):
            problems.append(
                Problem(
                    locale,
                    KIND,
                    where,
                    f"a space after the unit «{match[1]}» before Japanese text "
                    f"(«{_excerpt(line, match.start(), match.end())}»): remove it",
                    line=number,
                )
            )
        for match in _MARKER_SPACE.finditer(line):
            shown = figure_text(match[1])
            if shown is not None and _ENDS_IN_WORD.search(shown):
                problems.append(
                    Problem(
                        locale,
                        KIND,
                        where,
                        f"the figure {match[1]} is written «{shown.strip()}», a Japanese unit, and the space "
                        "after its marker shows as a space inside the sentence: remove it",
                        line=number,
                    )
                )
    return problems


def isolation_problems(locale: str, where: str, text: str, direction: str) -> list[Problem]:
    """Latin letters or digits touching / + – % outside an isolating span, in a right-to-left page."""
    if direction != "rtl":
        return []
    problems = []
    for number, line in _prose_lines(text):
        heading = line.lstrip().startswith("#")
        if heading:
            # The table of contents keeps the heading's text, not its tags: only the isolates hold there.
            seen = _blank(_NOT_PROSE, _blank(_ISOLATES, line))
        else:
            seen = _blank(_NOT_PROSE, _blank(_ISOLATING, _blank(_ISOLATES, line)))
        if match := _TOUCHES.search(seen):
            run = _excerpt(line, match.start(), match.end())
            fix = (
                "the table of contents drops the heading's tags: put the run between U+2066 and U+2069 "
                "(inside its span)"
                if heading
                else 'wrap the run in <span class="guide-num">…</span>'
            )
            problems.append(
                Problem(locale, KIND, where, f"«{run}» is not isolated and is drawn out of order: {fix}", line=number)
            )
    return problems


def figure_renderer(project, locale: str) -> Callable[[str], str | None]:
    """A function that writes a figure as the build writes it in `locale`, or None when it cannot (the
    calculators do not import here, or the figure refuses: the build reports both)."""
    if locale.split("-")[0].split("_")[0].lower() not in UNSPACED:
        return lambda name: None
    try:
        for module in project.guide_options.get("calculator_modules") or []:
            importlib.import_module(module)
        from guidekit import calc
        from guidekit.render import figure
        from guidekit.site.locale_pack import locale_pack
        from guidekit.site.markers.prose_figures import prose_localizer

        loc = prose_localizer(locale_pack(locale, project.locales_dir, project.default_locale))
    except (ImportError, ValueError, OSError):
        return lambda name: None
    shown: dict[str, str | None] = {}

    def render(name: str) -> str | None:
        if name not in shown:
            try:
                found = calc.figure(name)
                shown[name] = None if found is None else figure(found["value"], found["unit"], loc)
            except Exception:  # noqa: BLE001  (a figure that refuses is the build's to report, with its reason)
                shown[name] = None
        return shown[name]

    return render


def locale_problems(project, locale: str) -> list[Problem]:
    """Both rules over every page of `locale`."""
    from guidekit.site.locales import text_direction

    direction = text_direction(locale)
    render = figure_renderer(project, locale)
    problems = []
    for page in project.pages(locale):
        file = project.page(locale, page)
        text = file.read_text(encoding="utf-8")
        where = project.rel(file)
        problems += unit_space_problems(locale, where, text, render)
        problems += isolation_problems(locale, where, text, direction)
    return problems
