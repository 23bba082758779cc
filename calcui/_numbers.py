"""Number, percent, currency and unit formatting from CLDR data exported into the locale pack.

Babel cannot run in the browser (its locale data is megabytes), so the build exports the few
CLDR symbols and patterns each locale needs and this formatter applies them; a test checks it
against Babel's own output for every locale. Plural-dependent unit patterns use CLDR's "other"
form (the one for fractional amounts), which is what most figures here are.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal


class NumberFormat:
    def __init__(self, pack: dict):
        n = pack["numbers"]
        self.decimal: str = n["decimal"]
        self.group: str = n["group"]
        self.minus: str = n["minus"]
        self.primary, self.secondary = n["grouping"]
        self.percent: dict = n["percent"]       # {"prefix", "suffix"} around the number
        self.currency: dict = n["currency"]     # {"prefix", "suffix", "neg_prefix", "neg_suffix"}
        self.units: dict[str, str] = pack["units"]  # unit code -> pattern with {0}

    # -- plain numbers -------------------------------------------------------------------------
    def number(self, value: float, max_frac: int = 2, min_frac: int = 0) -> str:
        quantum = Decimal(1).scaleb(-max_frac)
        dec = Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_EVEN)
        negative = dec < 0
        digits = f"{abs(dec):f}"
        whole, _, frac = digits.partition(".")
        frac = frac.rstrip("0")
        if len(frac) < min_frac:
            frac = frac.ljust(min_frac, "0")
        text = self._group(whole) + (self.decimal + frac if frac else "")
        if negative and (whole.strip("0") or frac.strip("0")):
            text = self.minus + text
        return text

    def _group(self, whole: str) -> str:
        if len(whole) <= self.primary:
            return whole
        head, tail = whole[: -self.primary], whole[-self.primary:]
        parts = [tail]
        while len(head) > self.secondary:
            parts.insert(0, head[-self.secondary:])
            head = head[: -self.secondary]
        if head:
            parts.insert(0, head)
        return self.group.join(parts)

    def significant(self, value: float) -> str:
        """A figure with as many decimals as its size needs to show three significant digits."""
        size = abs(value)
        decimals = 0 if size >= 100 else 1 if size >= 10 else 2 if size >= 0.01 or size == 0 else 4
        return self.number(value, max_frac=decimals)

    # -- typed figures -------------------------------------------------------------------------
    def percent_of(self, fraction: float, max_frac: int = 1) -> str:
        return self.percent["prefix"] + self.number(fraction * 100, max_frac) + self.percent["suffix"]

    def money(self, amount: float) -> str:
        body = self.number(abs(amount), max_frac=2, min_frac=2)
        c = self.currency
        if amount < 0:
            return c["neg_prefix"] + body + c["neg_suffix"]
        return c["prefix"] + body + c["suffix"]

    def unit(self, code: str, value: float, text: str | None = None) -> str:
        return self.units[code].replace("{0}", text if text is not None else self.significant(value))
