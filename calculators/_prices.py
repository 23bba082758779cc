"""The catalog's prices, checked: ``check_catalog`` refuses what the cost calculator could not price
(an option billed by an unknown rule or quantity, a GPU without valid rentable shapes), naming the fix;
the build runs it before any page computes a price, and so do the tests. Their provenance: each GPU's
price row and each option carry a source and an as-of date (``price_sources``, ``source``); ``stale``
lists those older than an age."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from typing import Any

from . import _data
from ._cost_inputs import QUANTITIES
from ._cost_plans import INCREMENTS

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
        whole = shape.get("whole_nodes", False) if isinstance(shape, dict) else False
        if type(whole) is not bool:
            problems.append(f"shapes[{gid!r}]: 'whole_nodes' must be true or false (got {whole!r})")
    increments = pricing.get("billing_increment", {})
    for gid, increment in increments.items() if isinstance(increments, dict) else ():
        if gid != "about" and increment not in INCREMENTS:
            problems.append(
                f"billing_increment[{gid!r}]: one of {', '.join(map(repr, INCREMENTS))} (got {increment!r})"
            )
    return problems


# The largest price per card-hour or per TB a calculator input accepts (its fields' max).
MAX_USD = 10000.0


def _price(value: object, free: bool = False) -> bool:
    """A price the planner can add up: a finite number above 0 (or 0, where `free`) and at most MAX_USD."""
    if type(value) not in (int, float):
        return False
    number = float(value)  # type: ignore[arg-type]  # an int or a float, checked above
    return math.isfinite(number) and (0 <= number if free else 0 < number) and number <= MAX_USD


def price_problems(pricing: dict[str, Any], gpu_ids: Iterable[str]) -> list[str]:
    """One line per term length or price the planner could not use: a term of 0 or half an hour divided by
    zero or never ended; NaN or Infinity made every plan NaN. [] when all are fine."""
    problems = []
    terms = pricing["terms"]
    for term in terms:
        hours = term.get("hours") if isinstance(term, dict) else None
        if not (type(hours) is int and 1 <= hours <= 100000):
            problems.append(
                f"term {term.get('id') if isinstance(term, dict) else term!r}: 'hours' must be a whole number "
                f"of hours from 1 to 100000 (got {hours!r})"
            )
    ids = [t.get("id") for t in terms if isinstance(t, dict)]
    rows = pricing["usd_per_card_hour"]
    by_the_hour = {k: pricing.get(k, {}) for k in ("on_demand_usd_per_card_hour", "spot_usd_per_card_hour")}
    for gid in gpu_ids:
        row = rows.get(gid)
        for tid in ids:
            value = row.get(tid) if isinstance(row, dict) else None
            if not _price(value):
                problems.append(
                    f"usd_per_card_hour[{gid!r}][{tid!r}]: a price above 0 and at most {MAX_USD:g} (got {value!r})"
                )
        for key, prices in by_the_hour.items():
            if gid in prices and not _price(prices[gid]):
                problems.append(
                    f"{key}[{gid!r}]: a price above 0 and at most {MAX_USD:g} "
                    f"(got {prices[gid]!r}); leave the GPU out where it is not offered so"
                )
    for option in pricing["options"]:
        usd = option.get("usd")
        values = [usd.get(tid) for tid in ids] if option.get("per") == "term" and isinstance(usd, dict) else [usd]
        if not all(_price(v, free=True) for v in values):
            problems.append(f"option {option.get('id')!r}: 'usd' must be prices from 0 to {MAX_USD:g}")
    return problems


def _structure_problems(catalog: object) -> list[str]:
    """What the other checks need to read at all."""
    pricing = catalog.get("pricing") if isinstance(catalog, dict) else None
    if not (isinstance(catalog, dict) and isinstance(catalog.get("gpus"), list) and isinstance(pricing, dict)):
        return ["the catalog must be an object with 'gpus' (a list) and 'pricing' (an object)"]
    kinds = {"terms": list, "usd_per_card_hour": dict, "options": list, "shapes": dict}
    return [
        f"pricing[{key!r}] must be {'a list' if kind is list else 'an object'}"
        for key, kind in kinds.items()
        if not isinstance(pricing.get(key), kind)
    ] + [f"gpus[{i}] needs an 'id'" for i, g in enumerate(catalog["gpus"]) if not isinstance(g, dict) or "id" not in g]


def catalog_problems(catalog: dict[str, Any] | None = None) -> list[str]:
    """One line per thing in `catalog` (the package's own by default) that the cost calculator could not
    price: its layout, its options, its GPUs' shapes and prices; [] when every one is fine."""
    catalog = _data.catalog() if catalog is None else catalog
    if problems := _structure_problems(catalog):
        return problems
    pricing, gpu_ids = catalog["pricing"], [g["id"] for g in catalog["gpus"]]
    return option_problems(pricing["options"]) + shape_problems(pricing, gpu_ids) + price_problems(pricing, gpu_ids)


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
