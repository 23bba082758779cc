"""A timestamp in the reader's locale, from CLDR patterns exported into the locale pack.

Like numbers (`_numbers`), dates cannot use Babel in the browser, so the build exports the locale's
medium date pattern, short time pattern, the pattern that joins them, month names and AM/PM marks,
and this formatter applies them (a test checks it against Babel's own output). Times are shown in
UTC, whatever offset the file was written with, so two runs compare at a glance.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from ._isolate import bdi, plain
from ._markers import N_
from ._pack import DateData, LocalePack
from ._text import Translator

# RFC 3339 date-time: 't'/'z' in either case, any fraction, a leap second. ASCII digits only ([0-9]: Python's \d
# also takes Arabic-Indic ones). The result contract validates with it, and the date display reads its fields from it.
DATE_TIME = re.compile(
    r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})[Tt](?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):"
    r"(?P<second>[0-9]{2})(?:\.(?P<fraction>[0-9]+))?(?P<zone>[Zz]|[+-](?P<off_h>[0-9]{2}):(?P<off_m>[0-9]{2}))"
)
_FIELD = re.compile(r"'(?:[^']|'')*'|([A-Za-z])\1*")


def parse_timestamp(text: str) -> datetime | None:
    """The instant `text` names, in UTC; None when it is not RFC 3339 (the result contract's own pattern)."""
    m = DATE_TIME.fullmatch(text)
    if not m:
        return None
    micro = (m["fraction"] or "").ljust(6, "0")[:6]
    zone = "+00:00" if m["zone"] in "Zz" else m["zone"]
    day = f"{m['year']}-{m['month']}-{m['day']}"
    try:
        # A leap second (:60) is shown as :59; Python's datetime has no 61st second.
        when = datetime.fromisoformat(f"{day}T{m['hour']}:{m['minute']}:{min(int(m['second']), 59):02d}.{micro}{zone}")
    except ValueError:
        return None
    return when.astimezone(timezone.utc)


def apply_pattern(pattern: str, when: datetime, dates: DateData) -> str:
    """`when` through a CLDR date/time pattern (the fields the medium date and short time use)."""

    def field(m: re.Match[str]) -> str:
        token = m.group(0)
        if token.startswith("'"):
            return token[1:-1].replace("''", "'") if token != "''" else "'"
        letter, width = token[0], len(token)
        if letter == "y":
            return f"{when.year % 100:02d}" if width == 2 else f"{when.year:0{width}d}"
        if letter in "ML":
            if width >= 4:
                return dates["months_wide"][when.month - 1]
            return dates["months"][when.month - 1] if width == 3 else f"{when.month:0{width}d}"
        if letter == "a":
            return dates["periods"][0 if when.hour < 12 else 1]
        numbers = {
            "d": when.day,
            "H": when.hour,
            "h": (when.hour % 12) or 12,
            "K": when.hour % 12,
            "k": when.hour or 24,
            "m": when.minute,
            "s": when.second,
        }
        if letter in numbers:
            return f"{numbers[letter]:0{width}d}"
        return token  # a field no exported pattern uses: kept visible rather than guessed

    return _FIELD.sub(field, pattern)


def format_timestamp(when: datetime, dates: DateData) -> str:
    """Date and time as the locale writes them: medium date, short time, joined by the locale's pattern."""
    date = apply_pattern(dates["date"], when, dates)
    time = apply_pattern(dates["time"], when, dates)
    return dates["datetime"].replace("{1}", date).replace("{0}", time)


def timestamp_html(text: str, pack: LocalePack, t: Translator) -> str:
    """`<time datetime>` with the machine-readable instant, its localized text isolated inside in
    the page's direction; a value this cannot read is shown as it is, isolated left to right."""
    when = parse_timestamp(text) if pack.get("dates") else None
    if when is None:
        return f"<time>{bdi(plain(text), attrs={'dir': 'ltr'})}</time>"
    # TRANSLATORS: a date and time, already formatted for the locale, in Coordinated Universal Time.
    shown = t(N_("{datetime} UTC"), datetime=format_timestamp(when, pack["dates"]))
    machine = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f'<time datetime="{machine}">{bdi(shown, "guide-date", {"dir": t.dir})}</time>'


def date_text(text: str, pack: LocalePack) -> str:
    """The day of `text` as the locale writes a medium date (in UTC), or `text` itself when it is not a
    timestamp this can read; plain text, for a sentence."""
    when = parse_timestamp(text) if pack.get("dates") else None
    return plain(text) if when is None else apply_pattern(pack["dates"]["date"], when, pack["dates"])
