"""Provenance of the catalog's prices: each GPU's price row and each option carry a source and an
as-of date (``price_sources``, ``source``); ``stale`` lists those older than an age."""

from __future__ import annotations

import datetime as dt

from . import _data

DEFAULT_MAX_AGE_DAYS = 90


def parse_date(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def provenance() -> list[tuple[str, dict]]:
    """(what, source) for every priced thing in the catalog: each GPU's row, then each option."""
    pricing = _data.catalog()["pricing"]
    sources = pricing.get("price_sources", {})
    rows = [(f"GPU {gpu_id}", sources.get(gpu_id, {})) for gpu_id in pricing["usd_per_card_hour"]]
    return rows + [(f"option {o['id']}", o.get("source", {})) for o in pricing["options"]]


def stale(max_age_days: int, today: dt.date | None = None) -> list[str]:
    """One line per price older than `max_age_days` (or with no date) on `today`."""
    today = today or dt.date.today()
    lines = []
    for what, source in provenance():
        if not source.get("as_of"):
            lines.append(f"{what}: no as-of date")
            continue
        age = (today - parse_date(source["as_of"])).days
        if age > max_age_days:
            lines.append(f"{what}: as of {source['as_of']}, {age} days old ({source.get('title', 'no source')})")
    return lines
