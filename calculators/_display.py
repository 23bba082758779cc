"""Builders for the generic result display blocks (see the interface contract)."""

from __future__ import annotations


def metric(label: str, value, unit: str, status: str | None = None) -> dict:
    return {"label": label, "value": value, "unit": unit, "status": status}


def metrics(title: str, items: list[dict]) -> dict:
    return {"kind": "metrics", "title": title, "items": items}


def bars(title: str, unit: str, items: list[tuple[str, float]]) -> dict:
    return {"kind": "bars", "title": title, "unit": unit,
            "items": [{"label": label, "value": value} for label, value in items]}


def table(title: str, columns: list[tuple[str, str]], rows: list[list]) -> dict:
    return {"kind": "table", "title": title,
            "columns": [{"label": label, "unit": unit} for label, unit in columns], "rows": rows}


def notes(items: list[tuple[str, dict]]) -> dict:
    return {"kind": "notes", "items": [{"msg": msg, "params": params} for msg, params in items]}


def value(number, unit: str) -> dict:
    """A typed note parameter."""
    return {"value": number, "unit": unit}
