"""The catalog's prices, checked: ``check_catalog`` refuses what the cost calculator could not price
(an option billed by an unknown rule or quantity, a GPU without valid rentable shapes), naming the fix;
the build runs it before any page computes a price, and so do the tests. Their provenance: each GPU's
price row and each option carry a source and an as-of date (``price_sources``, ``source``); ``stale``
lists those older than an age."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from . import _data
from ._cost_inputs import QUANTITIES

DEFAULT_MAX_AGE_DAYS = 90
# What a catalog option may be billed by: per term, or per TB (per day, or once) of one of the cost
# calculator's `QUANTITIES` inputs.
PRICINGS = ("term", "tb_day", "tb")


class CatalogError(ValueError):
    """The catalog asks for something the cost calculator cannot price."""


def option_problems(options: list[dict[str, Any]]) -> list[str]:
    """One line per option the calculator could not price; [] when every option is fine."""
    problems = []
    for option in options:
        per, quantity = option.get("per"), option.get("quantity")
        if per not in PRICINGS:
            problems.append(f"option {option.get('id')!r}: 'per' must be one of {', '.join(PRICINGS)} (got {per!r})")
        elif per != "term" and quantity not in QUANTITIES:
            problems.append(
                f"option {option.get('id')!r}: 'quantity' must be one of {', '.join(QUANTITIES)} "
                f"(got {quantity!r}); a new quantity needs its own input in calculators/_cost_inputs.py"
            )
    return problems


def shape_problems(pricing: dict[str, Any], gpu_ids: Iterable[str]) -> list[str]:
    """One line per GPU whose rentable shapes (pricing.shapes) are missing or malformed; [] when all are fine."""
    shapes = pricing.get("shapes", {})
    problems = []
    for gid in gpu_ids:
        shape = shapes.get(gid)
        per_node = shape.get("per_node") if isinstance(shape, dict) else None
        nodes = shape.get("max_nodes") if isinstance(shape, dict) else None
        if not (
            isinstance(per_node, list)
            and per_node
            and all(type(n) is int and 1 <= n <= 64 for n in per_node)
            and per_node == sorted(set(per_node))
        ):
            problems.append(
                f"shapes[{gid!r}]: 'per_node' must be card counts from 1 to 64 in increasing order, "
                f"such as [1, 2, 4, 8] (got {per_node!r})"
            )
        if not (type(nodes) is int and 1 <= nodes <= 128):
            problems.append(
                f"shapes[{gid!r}]: 'max_nodes' must be a whole number of nodes from 1 to 128 (got {nodes!r})"
            )
    return problems


def catalog_problems(catalog: dict[str, Any] | None = None) -> list[str]:
    """One line per thing in `catalog` (the package's own by default) that the cost calculator could not
    price: its options, then its GPUs' shapes; [] when every one is fine."""
    catalog = _data.catalog() if catalog is None else catalog
    pricing = catalog["pricing"]
    return option_problems(pricing["options"]) + shape_problems(pricing, [g["id"] for g in catalog["gpus"]])


def check_catalog() -> None:
    """Raise `CatalogError` naming every problem of the package's catalog and its fix. The build calls it
    first (the guide plugin's on_config): a catalog the calculator cannot price stops it there, before
    any page or browser computes a price, rather than as a KeyError in the reader's browser."""
    if problems := catalog_problems():
        raise CatalogError("calculators/data/catalog.json: " + "; ".join(problems))


def parse_date(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def provenance() -> list[tuple[str, dict[str, Any]]]:
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
