"""The display contract: the units a value may carry (``UNITS``, from ``_units``) and builders for the generic
result blocks (verdict, metrics, bars, tables, notes) the command line and the page render without knowing
the calculator.

Every unit a calculator uses, on an input, a display block or a prose figure, is a key of ``UNITS``;
``register()`` refuses a calculator with any other. Each unit carries its own localized format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from guidekit.l10n import Msg

from ._units import UNITS as UNITS, Unit as Unit, register_unit as register_unit

# A record table's column: (label, unit, how to read the cell from a record).
Column = tuple[Msg, str, Callable[[dict[str, Any]], object]]


def metric(label: Msg, value: object, unit: str, status: str | None = None) -> dict[str, Any]:
    return {"label": label, "value": value, "unit": unit, "status": status}


def metrics(title: Msg, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "metrics", "title": title, "items": items}


def bars(title: Msg, unit: str, items: list[tuple[Msg, float]]) -> dict[str, Any]:
    return {
        "kind": "bars",
        "title": title,
        "unit": unit,
        "items": [{"label": label, "value": value} for label, value in items],
    }


def table(title: Msg, columns: list[tuple[Msg, str]], rows: list[list[Any]]) -> dict[str, Any]:
    return {
        "kind": "table",
        "title": title,
        "columns": [{"label": label, "unit": unit} for label, unit in columns],
        "rows": rows,
    }


def record_table(title: Msg, columns: list[Column], records: list[dict[str, Any]]) -> dict[str, Any]:
    """A table whose columns are (label, unit, how to read the cell from a record): the column order is
    declared once, in `columns`, and rows cannot drift from their headers. Order the deciding columns
    (cost per output, cards, fits) right after the name: on a phone the rest scrolls out of view."""
    return table(
        title,
        [(label, unit) for label, unit, _ in columns],
        [[cell(record) for _, _, cell in columns] for record in records],
    )


def verdict(msg: Msg, params: dict[str, Any], status: str, short: dict[str, Any] | None = None) -> dict[str, Any]:
    """The answer in one sentence, shown first in the result: a msgid with typed parameters (see
    ``value``) and "ok", "warn" or "bad". `short` (a ``phrase``) is its first clause, the headline
    kept in view above the form on a phone, where the whole sentence would cover the form: at most
    about two lines at 412 px in every locale. Without it the whole sentence is the headline."""
    block = {"kind": "verdict", "msg": msg, "params": params, "status": status}
    return {**block, "short": short} if short else block


Note = tuple[Msg, dict[str, Any]] | tuple[Msg, dict[str, Any], dict[str, Any]]


def notes(items: Sequence[Note], title: Msg = "") -> dict[str, Any]:
    """Sentences (a msgid with typed parameters); a third element, inputs of the calculator, makes the
    note a fix the reader can apply at once: the page shows a button that puts them in the form, the
    command line the `--set` options that do."""
    block = {
        "kind": "notes",
        "items": [
            {"msg": item[0], "params": item[1], **({"apply": item[2]} if len(item) > 2 else {})} for item in items
        ],
    }
    return {**block, "title": title} if title else block


def phrase(msg: Msg, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A note parameter that is itself a sentence part: a msgid with typed parameters."""
    return {"msg": msg, "params": params or {}}


def alternatives(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A note parameter listing phrases as alternatives, joined as the locale writes "a, b or c"."""
    return {"items": items, "join": "or"}


def listing(items: list[Any]) -> dict[str, Any]:
    """A note parameter listing names or phrases, joined as the locale writes "a, b and c"."""
    return {"items": items, "join": "standard"}


def value(number: object, unit: str) -> dict[str, Any]:
    """A typed note parameter (``phrase`` and ``alternatives`` make the other two kinds)."""
    return {"value": number, "unit": unit}
