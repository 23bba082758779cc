"""Number, percent, currency and unit formatting from CLDR data exported into the locale pack.

Babel cannot run in the browser (its locale data is megabytes), so the build exports the few
CLDR symbols and patterns each locale needs and this formatter applies them; a test checks it
against Babel's own output for every locale. A unit pattern is picked by the plural category of
the number as shown (CLDR rules from the pack): "1 día", "3 días"; Arabic "3 أيام", "11 يومًا".
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache
from typing import Any

from ._lists import ENGLISH, join
from ._pack import LocalePack, PluralData
from ._plural import category

# Enough digits for any double with the decimals a figure shows (309 + a few).
_WIDE = Context(prec=340)

_CATEGORIES: dict[str, dict[str, str]] = {}


class NumberFormat:
    def __init__(self, pack: LocalePack, memo: bool = False):
        n = pack["numbers"]
        self.decimal: str = n["decimal"]
        self.group: str = n["group"]
        self.minus: str = n["minus"]
        self.primary, self.secondary = n["grouping"]
        self.percent: dict[str, str] = n["percent"]  # {"prefix", "suffix"} around the number
        self.currency: dict[str, str] = n["currency"]  # {"prefix", "suffix", "neg_prefix", "neg_suffix"}
        self.units: dict[str, dict[str, str]] = pack["units"]  # unit code -> {category: pattern with {0}}
        # Declared as always there, but a pack written by hand may leave `plural` out.
        plural: PluralData | None = pack.get("plural")
        self.plural_rules: list[list[Any]] = plural.get("rules", []) if plural else []
        self.lists: dict[str, dict[str, str]] = pack.get("lists") or ENGLISH  # CLDR list style -> its four patterns
        # Number as shown -> its plural category, shared by every formatter with the same rules: the
        # worker makes one formatter per answer, and the next answer shows most of the same numbers.
        self._categories: dict[str, str] = _CATEGORIES.setdefault(repr(self.plural_rules), {})
        # A long-lived formatter (the browser worker's, always used with the same pack's Translator)
        # remembers each figure's text (`_figures.figure`): most figures of an answer are the last
        # answer's too, or shown twice in it.
        self.memo: dict[Hashable, str] | None = {} if memo else None

    # -- plain numbers -------------------------------------------------------------------------
    @staticmethod
    @lru_cache(maxsize=4096)  # an answer shows each figure two or three times, the next answer most of them again
    def _digits(value: float, max_frac: int, min_frac: int) -> tuple[bool, str, str]:
        """(negative, integer digits, fraction digits) of `value` as shown, before localizing.

        The shortest decimal that reads back as `value` (its repr, as Babel takes it) rounded half to
        even. Python's own formatting rounds the binary value instead, which gives the same digits
        unless the repr ends on a tie (2.675 is 2.67499999... in binary), or a float's spacing is as
        coarse as the last digit kept (above 1e10 at four decimals): those take the exact Decimal path,
        which cost 12 us a figure in Pyodide against 6."""
        shown = repr(float(value))
        frac = shown.partition(".")[2]
        if (
            abs(value) < 1e10
            and max_frac <= 4
            and "e" not in shown
            and not (len(frac) == max_frac + 1 and frac[-1] == "5")
        ):
            text = f"{float(value):.{max_frac}f}"
            negative = text[0] == "-" and text.strip("-0.") != ""
            whole, _, frac = text.lstrip("-").partition(".")
        else:
            quantum = Decimal(1).scaleb(-max_frac)
            # The default context holds 28 digits: a figure past 1e28 (a total in US$ of an absurd job)
            # raised InvalidOperation. A double has at most 309 integer digits.
            dec = Decimal(shown).quantize(quantum, rounding=ROUND_HALF_EVEN, context=_WIDE)
            negative = dec < 0
            whole, _, frac = f"{abs(dec):f}".partition(".")
        frac = frac.rstrip("0")
        if len(frac) < min_frac:
            frac = frac.ljust(min_frac, "0")
        return negative, whole, frac

    def number(self, value: float, max_frac: int = 2, min_frac: int = 0) -> str:
        negative, whole, frac = self._digits(value, max_frac, min_frac)
        text = self._group(whole) + (self.decimal + frac if frac else "")
        if negative and (whole.strip("0") or frac.strip("0")):
            text = self.minus + text
        return text

    def input_text(self, value: float) -> str:
        """`value` as a number field shows it before the runtime starts: every digit of its shortest
        form, grouped, with the locale's decimal sign, no ".0" ("200.000.000", "0,1"). calculator.js
        `localize` writes the same for the values it fills in; its `delocalize` reads either back."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "" if value is None else str(value)
        text = f"{Decimal(repr(value)):f}" if isinstance(value, float) else str(value)
        negative = text.startswith("-")
        whole, _, frac = text.lstrip("-").partition(".")
        frac = frac.rstrip("0")
        return ("-" if negative else "") + self._group(whole) + (self.decimal + frac if frac else "")

    def plain(self, value: float, max_frac: int = 2, min_frac: int = 0) -> str:
        """`value` as `number` shows it, in ASCII digits without grouping: what a plural rule reads."""
        negative, whole, frac = self._digits(value, max_frac, min_frac)
        return ("-" if negative else "") + whole + ("." + frac if frac else "")

    def _group(self, whole: str) -> str:
        if len(whole) <= self.primary:
            return whole
        head, tail = whole[: -self.primary], whole[-self.primary :]
        parts = [tail]
        while len(head) > self.secondary:
            parts.insert(0, head[-self.secondary :])
            head = head[: -self.secondary]
        if head:
            parts.insert(0, head)
        return self.group.join(parts)

    @staticmethod
    def _significant_decimals(value: float) -> int:
        size = abs(value)
        return 0 if size >= 100 else 1 if size >= 10 else 2 if size >= 0.01 or size == 0 else 4

    def significant(self, value: float) -> str:
        """A figure with as many decimals as its size needs to show three significant digits."""
        return self.number(value, max_frac=self._significant_decimals(value))

    # -- typed figures -------------------------------------------------------------------------
    def percent_of(self, fraction: float, max_frac: int = 1) -> str:
        return self.percent["prefix"] + self.number(fraction * 100, max_frac) + self.percent["suffix"]

    def money(self, amount: float) -> str:
        body = self.number(abs(amount), max_frac=2, min_frac=2)
        c = self.currency
        if amount < 0:
            return c["neg_prefix"] + body + c["neg_suffix"]
        return c["prefix"] + body + c["suffix"]

    def unit(self, code: str, value: float, text: str | None = None, max_frac: int | None = None) -> str:
        """`value` in unit `code`, shown with three significant digits (or `max_frac` decimals), or as
        the already formatted `text` of `value` rounded to `max_frac` decimals (default 0)."""
        decimals = self._significant_decimals(value) if max_frac is None and text is None else max_frac or 0
        patterns = self.units[code]
        pattern = patterns.get(self._category(self.plain(value, decimals)), patterns["other"])
        return pattern.replace("{0}", text if text is not None else self.number(value, max_frac=decimals))

    def _category(self, shown: str) -> str:
        if shown not in self._categories:
            if len(self._categories) > 4096:
                self._categories.clear()
            self._categories[shown] = category(self.plural_rules, shown)
        return self._categories[shown]

    def join(self, items: Iterable[object], style: str = "standard") -> str:
        """Localized `items` as one list: "standard" (a, b and c) or "or" for alternatives (a, b or c)."""
        return join(self.lists[style], items)
