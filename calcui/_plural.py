"""CLDR plural categories, evaluated from the rule the locale pack carries (standard library only).

The build exports Babel's parsed CLDR rule (`PluralRule.abstract`, nested lists) into the pack; this walks
it. No `eval`/`exec` and no Babel, so the same code runs in Pyodide and picks the same form the build did.
Operands follow UTS #35: n absolute value, i integer digits, v/w visible fraction digits (with/without
trailing zeros), f/t the fraction digits as integers, e the compact exponent (always 0 here).
"""

from __future__ import annotations

from decimal import Decimal

ORDER = ("zero", "one", "two", "few", "many", "other")  # CLDR's (and gettext's) order of the forms


def operands(number: str | int | float) -> dict:
    """The operands of `number` as shown: "1.50" has v=2, "1.5" has v=1 (pass the text the reader sees)."""
    if not isinstance(number, str):  # a bare number shows without trailing zeros, as NumberFormat.number does
        number = str(int(number)) if float(number).is_integer() else f"{Decimal(repr(float(number))):f}"
    text = number
    text = text.lstrip("-")
    whole, _, frac = text.partition(".")
    trimmed = frac.rstrip("0")
    return {"n": Decimal(text), "i": int(whole or 0), "v": len(frac), "w": len(trimmed),
            "f": int(frac or 0), "t": int(trimmed or 0), "c": 0, "e": 0}


def _value(node, ops: dict):
    name, args = node
    if name == "mod":
        return _value(args[0], ops) % args[1][1][0]
    return ops[name]


def _test(node, ops: dict) -> bool:
    name, args = node
    if name == "and":
        return _test(args[0], ops) and _test(args[1], ops)
    if name == "or":
        return _test(args[0], ops) or _test(args[1], ops)
    if name == "not":
        return not _test(args[0], ops)
    if name == "relation":
        method, expr, (_, ranges) = args
        value = _value(expr, ops)
        # "in" matches integers only (1.5 is not in 1..2); "within" takes any value in the range.
        if method == "in" and value != int(value):
            return False
        return any(low[1][0] <= value <= high[1][0] for low, high in ranges)
    raise ValueError(f"unknown plural rule node {name!r}")


def category(rules: list, number: str | int | float) -> str:
    """'zero', 'one', 'two', 'few', 'many' or 'other' for `number` under the locale's CLDR `rules`."""
    ops = operands(number)
    return next((tag for tag, rule in rules if _test(rule, ops)), "other")


def form_index(rules: list, forms: list[str], number: str | int | float) -> int:
    """Which msgstr[i] of the catalog shows `number`; a category the catalog has no form for (Spanish
    "many", for exact millions) takes the "other" form, as gettext's integer Plural-Forms do."""
    tag = category(rules, number)
    if tag in forms:
        return forms.index(tag)
    return forms.index("other") if "other" in forms else len(forms) - 1
