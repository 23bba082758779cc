"""One typed figure (value + unit code from the calculators' display contract) to localized text."""

from __future__ import annotations

from functools import lru_cache

from guidekit.l10n import N_, NN_, Localizer, direction, escape

GB = 1e9  # the calculators report bytes; the page shows decimal gigabytes (10^9), as vendors do


@lru_cache(maxsize=4096)  # a pure function of its text, which the next answer mostly repeats
def num(text: str, figure_name: str | None = None) -> str:
    """A figure's text as HTML, isolated in <bdi> with the direction of its own script: "35.7 GB" left to
    right, Arabic «3 أيام» right to left, so the number comes first in reading order either way."""
    # bdi()'s markup, written out: escaping its constant attributes was a tenth of an answer's time.
    name = f' data-figure="{escape(figure_name)}"' if figure_name else ""
    return f'<bdi class="guide-num"{name} dir="{direction(text)}">{escape(text)}</bdi>'


def _seconds(value, loc: Localizer) -> str:
    fmt = loc.fmt
    return fmt.unit("second", value) if "second" in fmt.units else loc.t(N_("{value} s"), value=fmt.significant(value))


def _plan(terms: list, loc: Localizer) -> str:
    """Each term as "2 × 1 day", joined by plus signs. A single term is its label alone: "1 × 1 day"
    says it twice, and Arabic's «1 × يوم واحد» reads "1 × one day"."""
    t = loc.t
    parts = [
        t(label) if count == 1 else t(N_("{count} × {term}"), count=loc.fmt.number(count, max_frac=0), term=t(label))
        for count, label in terms
    ]
    return " + ".join(parts) or "—"


# One case per unit of the display contract (`guidekit.calc.display.UNITS`; a test holds them equal).
FORMATS = {
    "number": lambda v, loc: loc.fmt.significant(v),
    "count": lambda v, loc: loc.fmt.number(v, max_frac=0),
    "text": lambda v, loc: loc.t(v),
    "raw": lambda v, loc: str(v),
    "bool": lambda v, loc: loc.t(N_("Yes")) if v else loc.t(N_("No")),
    "plan": _plan,  # a reservation plan: [[count, term label msgid], ...]
    "bytes": lambda v, loc: loc.fmt.unit("gb", v / GB),
    "gb": lambda v, loc: loc.fmt.unit("gb", v),
    "tb": lambda v, loc: loc.fmt.significant(v) + " TB",
    "percent": lambda v, loc: loc.fmt.percent_of(v),
    "usd": lambda v, loc: loc.fmt.money(v),
    "usd_per_hour": lambda v, loc: loc.t(N_("{amount}/h"), amount=loc.fmt.money(v)),
    "hours": lambda v, loc: loc.fmt.unit("hour", v),
    "seconds": _seconds,
    "days": lambda v, loc: loc.fmt.unit("day", v),
    "tokens": lambda v, loc: loc.t(
        NN_("{count} token", "{count} tokens"), n=loc.fmt.plain(v, 0), count=loc.fmt.number(v, max_frac=0)
    ),
    "tokens_per_s": lambda v, loc: loc.t(N_("{count} tokens/s"), count=loc.fmt.significant(v)),
    "tflops": lambda v, loc: loc.fmt.significant(v) + " TFLOPS",
    "gb_per_s": lambda v, loc: loc.fmt.significant(v) + " GB/s",
}


def figure(value, unit: str, loc: Localizer) -> str:
    """Plain text for a value; the caller escapes it."""
    if value is None:
        return "—"
    fmt = loc.fmt
    if fmt.memo is None:
        return FORMATS[unit](value, loc)
    # The type is part of the key: 1, 1.0 and True are one dict key, but not one "raw" text.
    key = (unit, type(value), repr(value) if isinstance(value, (list, dict)) else value)
    text = fmt.memo.get(key)
    if text is None:
        if len(fmt.memo) > 8192:
            fmt.memo.clear()
        text = fmt.memo[key] = FORMATS[unit](value, loc)
    return text
