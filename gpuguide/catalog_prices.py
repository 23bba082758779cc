"""The shipped catalog's default prices: each card's median of the dated public prices.

calculators/data/public_prices.json holds what named providers publish. From it, for every card with public
on-demand prices:

- on demand: the median on-demand price;
- spot: the median spot price, where any provider publishes one (otherwise the card is not offered on spot);
- terms: the on-demand median, less the median discount that providers publish for a reservation
  (`reserved` rows, each against the same provider's on-demand price) on terms of a month or more; no
  provider in the file publishes a discount for a day or a week, so those terms cost what on demand costs;
- `price_sources[card]`: where the figures come from, the newest date among them, how many providers, and
  the middle half of the on-demand prices (`band_usd`), which the cost calculator's verdict reads.

A card without public prices keeps the site owner's (illustrative) figures. A site owner who sets their own
prices removes `public_median` from the card's source; `drift` names a card that still claims the public
median but whose prices differ from it, and the build logs that as a warning.

    python -m gpuguide.catalog_prices            # what the defaults are, against the catalog
    python -m gpuguide.catalog_prices --write    # write them into calculators/data/catalog.json
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
from typing import Any

from .markers import public_prices
from .markers.public_prices import PublicPrice

CATALOG = public_prices.FILE.parent / "catalog.json"
MONTH_HOURS = 720  # a reservation discount applies to terms of at least a month
# The keys of `pricing` this module writes, in the catalog file's order.
WRITTEN = ("usd_per_card_hour", "on_demand_usd_per_card_hour", "spot_usd_per_card_hour", "price_sources")


def _cents(usd: float) -> float:
    return round(usd + 1e-9, 2)


def _day(date: str) -> str:
    """A row's date as a day: a month the source gives alone counts as its first day."""
    return date if len(date) == 10 else date + "-01"


def _middle_half(usd: list[float]) -> list[float]:
    """The lower and upper quartiles (inclusive method: a single price is its own band)."""
    if len(usd) == 1:
        return [usd[0], usd[0]]
    q1, _, q3 = statistics.quantiles(usd, n=4, method="inclusive")
    return [_cents(q1), _cents(q3)]


def discounts(prices: list[PublicPrice]) -> dict[str, float]:
    """Each card's median published reservation discount against the same provider's on-demand price."""
    out: dict[str, list[float]] = {}
    for p in prices:
        if p.billing == "reserved" and p.on_demand_usd:
            out.setdefault(p.gpu, []).append(1 - p.usd_per_gpu_hour / p.on_demand_usd)
    return {gpu: round(statistics.median(d), 3) for gpu, d in out.items()}


def defaults(prices: list[PublicPrice], catalog: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per card with public on-demand prices: its default prices and their source, as the catalog holds them."""
    terms = catalog["pricing"]["terms"]
    on_demand, spot = public_prices.of(prices, "on-demand"), public_prices.of(prices, "spot")
    off = discounts(prices)
    out = {}
    for gpu in public_prices.catalog_cards(catalog):
        if gpu not in on_demand:
            continue
        rows = [p for p in prices if p.gpu == gpu]
        median = _cents(statistics.median(on_demand[gpu]))
        discount = off.get(gpu, 0.0)
        source: dict[str, Any] = {
            "title": "Median of the dated public list prices in calculators/data/public_prices.json (not a quote)",
            "as_of": max(_day(p.date) for p in rows),
            "illustrative": False,
            "public_median": True,
            "on_demand_providers": len({p.provider for p in rows if p.billing == "on-demand"}),
            "band_usd": _middle_half(on_demand[gpu]),
            "term_discount": discount,
        }
        if gpu in spot:
            source["spot_providers"] = len({p.provider for p in rows if p.billing == "spot"})
        out[gpu] = {
            "on_demand": median,
            "spot": _cents(statistics.median(spot[gpu])) if gpu in spot else None,
            "terms": {t["id"]: _cents(median * (1 - discount)) if t["hours"] >= MONTH_HOURS else median for t in terms},
            "source": source,
        }
    return out


def apply(catalog: dict[str, Any], prices: list[PublicPrice]) -> dict[str, Any]:
    """`catalog` with every card that has public prices set to its defaults (a copy)."""
    out = copy.deepcopy(catalog)
    pricing = out["pricing"]
    for gpu, d in defaults(prices, catalog).items():
        pricing["usd_per_card_hour"][gpu] = d["terms"]
        pricing["on_demand_usd_per_card_hour"][gpu] = d["on_demand"]
        if d["spot"] is None:
            pricing["spot_usd_per_card_hour"].pop(gpu, None)
        else:
            pricing["spot_usd_per_card_hour"][gpu] = d["spot"]
        pricing["price_sources"][gpu] = d["source"]
    return out


def drift(catalog: dict[str, Any], prices: list[PublicPrice]) -> list[str]:
    """One line per card whose source says `public_median` but whose prices are not the medians."""
    expected = apply(catalog, prices)["pricing"]
    pricing = catalog["pricing"]
    lines = []
    for gpu, source in pricing.get("price_sources", {}).items():
        if not (isinstance(source, dict) and source.get("public_median")):
            continue
        differs = [key for key in WRITTEN if pricing.get(key, {}).get(gpu) != expected[key].get(gpu)]
        if differs:
            lines.append(
                f"calculators/data/catalog.json: {gpu} claims the public median ('public_median' in price_sources) "
                f"but its {', '.join(differs)} differ from {public_prices.SHOWN}; run python -m gpuguide.catalog_prices "
                "--write, or remove 'public_median' where the prices are your own"
            )
    return lines


def _replace(text: str, key: str, value: object) -> str:
    """`text` (the catalog file) with `pricing[key]`'s value replaced, the rest of the file byte for byte."""
    start = text.index(f'\n    "{key}": ') + len(f'\n    "{key}": ')
    _, end = json.JSONDecoder().raw_decode(text, start)
    shown = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n    ")
    return text[:start] + shown + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpuguide.catalog_prices", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write the defaults into {CATALOG.name}")
    args = parser.parse_args(argv)
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    prices = public_prices.load(catalog=catalog)
    for gpu, d in defaults(prices, catalog).items():
        terms = ", ".join(f"{t} {usd:g}" for t, usd in d["terms"].items())
        print(f"{gpu}: on demand {d['on_demand']:g}, spot {d['spot']}, terms {terms} (as of {d['source']['as_of']})")
    if not args.write:
        lines = drift(catalog, prices)
        print("\n".join(lines) if lines else "the catalog holds these defaults")
        return 1 if lines else 0
    text = CATALOG.read_text(encoding="utf-8")
    updated = apply(catalog, prices)["pricing"]
    for key in WRITTEN:
        text = _replace(text, key, updated[key])
    CATALOG.write_text(text, encoding="utf-8")
    print(f"written: {CATALOG}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
