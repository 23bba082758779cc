"""CLDR plural categories, evaluated from the rule the locale pack carries (standard library only).

The build exports Babel's parsed CLDR rule (`PluralRule.abstract`, nested lists) into the pack; this turns
it into Python functions once per rule set. No `eval`/`exec` and no Babel, so the same code runs in
Pyodide and picks the same form the build did.
Operands follow UTS #35: n absolute value, i integer digits, v/w visible fraction digits (with/without
trailing zeros), f/t the fraction digits as integers, e the compact exponent (always 0 here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

ORDER = ("zero", "one", "two", "few", "many", "other")  # CLDR's (and gettext's) order of the forms

Operands = dict[str, Decimal | int]  # operand name ("n", "i", "v", ...) -> its value
_Predicate = Callable[[Operands], bool]


def operands(number: str | int | float) -> Operands:
    """The operands of `number` as shown: "1.50" has v=2, "1.5" has v=1 (pass the text the reader sees)."""
    if not isinstance(number, str):  # a bare number shows without trailing zeros, as NumberFormat.number does
        number = str(int(number)) if float(number).is_integer() else f"{Decimal(repr(float(number))):f}"
    text = number
    text = text.lstrip("-")
    whole, _, frac = text.partition(".")
    trimmed = frac.rstrip("0")
    return {
        "n": Decimal(text),
        "i": int(whole or 0),
        "v": len(frac),
        "w": len(trimmed),
        "f": int(frac or 0),
        "t": int(trimmed or 0),
        "c": 0,
        "e": 0,
    }


def _operand(node: Sequence[Any]) -> Callable[[Operands], Decimal | int]:
    """A function of the operands: one of them, or one modulo a constant."""
    name, args = node
    if name == "mod":
        inner, divisor = _operand(args[0]), args[1][1][0]
        return lambda ops: inner(ops) % divisor
    return lambda ops: ops[name]


def _predicate(node: Sequence[Any]) -> _Predicate:
    """A rule node as a function of the operands. Built once per rule set (`_compiled`): walking the
    nested lists again for each new number was a twentieth of a cost answer's time in Pyodide."""
    name, args = node
    if name in ("and", "or"):
        left, right = _predicate(args[0]), _predicate(args[1])
        if name == "and":
            return lambda ops: left(ops) and right(ops)
        return lambda ops: left(ops) or right(ops)
    if name == "not":
        inner = _predicate(args[0])
        return lambda ops: not inner(ops)
    if name == "relation":
        method, expr, (_, ranges) = args
        value, bounds = _operand(expr), [(low[1][0], high[1][0]) for low, high in ranges]
        integers_only = method == "in"  # "in" matches integers only (1.5 is not in 1..2); "within" any value

        def relation(ops: Operands) -> bool:
            v = value(ops)
            if integers_only and v != int(v):
                return False
            return any(low <= v <= high for low, high in bounds)

        return relation
    raise ValueError(f"unknown plural rule node {name!r}")


# id of a rules list -> (the list, held so that no other list can take its id; its [(tag, predicate)])
_COMPILED: dict[int, tuple[list[list[Any]], list[tuple[str, _Predicate]]]] = {}


def _compiled(rules: list[list[Any]]) -> list[tuple[str, _Predicate]]:
    entry = _COMPILED.get(id(rules))
    if entry is None:
        if len(_COMPILED) >= 16:
            _COMPILED.clear()
        entry = _COMPILED[id(rules)] = rules, [(tag, _predicate(rule)) for tag, rule in rules]
    return entry[1]


def category(rules: list[list[Any]], number: str | int | float) -> str:
    """'zero', 'one', 'two', 'few', 'many' or 'other' for `number` under the locale's CLDR `rules`."""
    ops = operands(number)
    return next((tag for tag, test in _compiled(rules) if test(ops)), "other")


def form_index(rules: list[list[Any]], forms: list[str], number: str | int | float) -> int:
    """Which msgstr[i] of the catalog shows `number`; a category the catalog has no form for (Spanish
    "many", for exact millions) takes the "other" form, as gettext's integer Plural-Forms do."""
    tag = category(rules, number)
    if tag in forms:
        return forms.index(tag)
    return forms.index("other") if "other" in forms else len(forms) - 1
