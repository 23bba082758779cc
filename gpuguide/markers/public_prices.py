"""`<!-- public-prices -->`: dated public on-demand list prices per card, for comparison with the catalog.

The catalog (calculators/data/catalog.json) is the site owner's own price list; this table is what named
providers publish, read from calculators/data/public_prices.json, each row with its source and date. The
build also compares every catalog price with each card's public band (`outliers`) and logs a warning for
one that sits more than half outside it: a typo or a stale list, not a reason to stop a non-strict build.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import calculators
from guidekit.l10n import N_, NN_, Localizer

FILE = Path(calculators.__file__).parent / "data" / "public_prices.json"
SHOWN = "calculators/data/public_prices.json"  # how messages name the file
MIN_PROVIDERS = 3  # per data-centre card: fewer makes no band worth comparing with
OUTSIDE = 0.5  # a catalog price below half the lowest public price, or above 1.5 × the highest, is flagged
_DATE = re.compile(r"\d{4}-\d{2}(-\d{2})?")  # a day, or a month where the source gives only that


class PublicPricesError(ValueError):
    """A public price file that cannot be used; the message is one line and names the file."""


@dataclass(frozen=True)
class PublicPrice:
    gpu: str
    provider: str
    usd_per_gpu_hour: float
    date: str
    source_title: str
    url: str


def _problem(where: str, row: object) -> str | None:
    if not isinstance(row, dict):
        return f"{where} is not an object"
    for key in ("gpu", "provider", "source_title", "url", "date", "billing"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            return f"{where}.{key} is missing or empty"
    price = row.get("usd_per_gpu_hour")
    if isinstance(price, bool) or not isinstance(price, (int, float)) or not 0 < price < 1000:
        return f"{where}.usd_per_gpu_hour must be a price in USD per card-hour above 0 and below 1000, got {price!r}"
    if row["billing"] != "on-demand":
        return f"{where}.billing must be 'on-demand' (the table compares list prices without a term), got {row['billing']!r}"
    if not row["url"].startswith("https://"):
        return f"{where}.url must start with https://, got {row['url']!r}"
    if not _DATE.fullmatch(row["date"]):
        return (
            f"{where}.date must be YYYY-MM-DD (or YYYY-MM where the source gives only the month), got {row['date']!r}"
        )
    try:
        dt.date.fromisoformat(row["date"] if len(row["date"]) == 10 else row["date"] + "-01")
    except ValueError:
        return f"{where}.date is not a calendar date: {row['date']!r}"
    return None


def parse(data: object, cards: dict[str, str], shown: str = SHOWN) -> list[PublicPrice]:
    """The rows of a public price file, or PublicPricesError naming `shown` and the first problem.
    `cards` maps the catalog's data-centre GPU ids to their names: each needs `MIN_PROVIDERS` providers."""

    def refuse(problem: str) -> PublicPricesError:
        return PublicPricesError(f"{shown}: {problem}")

    rows = data.get("prices") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise refuse("expected an object with a non-empty list 'prices'")
    prices = []
    for i, row in enumerate(rows):
        if problem := _problem(f"prices[{i}]", row):
            raise refuse(problem)
        if row["gpu"] not in cards:
            raise refuse(
                f"prices[{i}].gpu {row['gpu']!r} is not a data-centre card of the catalog "
                f"(expected one of {', '.join(cards)})"
            )
        prices.append(
            PublicPrice(
                row["gpu"],
                row["provider"].strip(),
                float(row["usd_per_gpu_hour"]),
                row["date"],
                row["source_title"].strip(),
                row["url"],
            )
        )
    for gpu, name in cards.items():
        providers = {p.provider for p in prices if p.gpu == gpu}
        if len(providers) < MIN_PROVIDERS:
            raise refuse(
                f"{name} ({gpu}) has prices from {len(providers)} provider(s); "
                f"the table needs at least {MIN_PROVIDERS} named providers per card"
            )
    return prices


def datacenter_cards(catalog: dict) -> dict[str, str]:
    return {g["id"]: g["name"] for g in catalog["gpus"] if g.get("tier") == "datacenter"}


def _shown(path: Path) -> str:
    """The file as messages name it: from the project's root where it lies inside, else as given."""
    root = Path(calculators.__file__).parents[1]
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def load(path: Path | None = None, catalog: dict | None = None) -> list[PublicPrice]:
    path = path or FILE
    shown = _shown(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PublicPricesError(f"{shown}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise PublicPricesError(f"{shown}: not valid JSON ({exc})") from None
    return parse(data, datacenter_cards(catalog or calculators.catalog()), shown)


def band(prices: list[PublicPrice]) -> dict[str, tuple[float, float]]:
    """Each card's lowest and highest public price per card-hour."""
    out: dict[str, tuple[float, float]] = {}
    for p in prices:
        low, high = out.get(p.gpu, (p.usd_per_gpu_hour, p.usd_per_gpu_hour))
        out[p.gpu] = (min(low, p.usd_per_gpu_hour), max(high, p.usd_per_gpu_hour))
    return out


def outliers(prices: list[PublicPrice], catalog: dict) -> list[str]:
    """One line per catalog price (each term, and on demand) more than `OUTSIDE` outside its card's public band."""
    pricing = catalog["pricing"]
    lines = []
    for gpu, (low, high) in band(prices).items():
        quoted = [(f"term {term}", usd) for term, usd in pricing.get("usd_per_card_hour", {}).get(gpu, {}).items()]
        if gpu in pricing.get("on_demand_usd_per_card_hour", {}):
            quoted.append(("on demand", pricing["on_demand_usd_per_card_hour"][gpu]))
        for what, usd in quoted:
            if usd < low * (1 - OUTSIDE) or usd > high * (1 + OUTSIDE):
                off = (
                    f"{(1 - usd / low):.0%} below the lowest"
                    if usd < low
                    else f"{(usd / high - 1):.0%} above the highest"
                )
                lines.append(
                    f"calculators/data/catalog.json: {gpu} {what} at ${usd:g} per card-hour is {off} public "
                    f"on-demand price (${low:g} to ${high:g} in {SHOWN}); check the catalog price"
                )
    return lines


@lru_cache(maxsize=1)
def _shipped() -> tuple[PublicPrice, ...]:
    return tuple(load())


def _source_name(title: str) -> str:
    """The link text: the source's name, before its description."""
    return re.split(r" — | \(", title, maxsplit=1)[0]


def render_table(env, pack: dict) -> str:
    loc = Localizer(pack)
    fmt, t = loc.fmt, loc.t
    prices = _shipped()
    names = datacenter_cards(calculators.catalog())
    order = list(names)
    rows = [
        {
            "card": names[p.gpu],
            "provider": p.provider,
            "price": fmt.money(p.usd_per_gpu_hour),
            "date": p.date,
            "source": _source_name(p.source_title),
            "url": p.url,
        }
        for p in sorted(prices, key=lambda p: (order.index(p.gpu), p.usd_per_gpu_hour))
    ]
    bands = [
        t(N_("{card}: {low} to {high}"), card=names[gpu], low=fmt.money(low), high=fmt.money(high))
        for gpu, (low, high) in sorted(band(list(prices)).items(), key=lambda item: order.index(item[0]))
    ]
    providers = len({p.provider for p in prices})
    caption = t(
        NN_(
            "Public on-demand list prices per card-hour from {count} provider, each with its source and date",
            "Public on-demand list prices per card-hour from {count} providers, each with its source and date",
        ),
        n=providers,
        count=fmt.number(providers, 0),
    )
    notes = [
        t(N_("Lowest to highest public price per card-hour: {bands}."), bands=fmt.join(bands)),
        t(
            N_(
                "Where a provider rents only whole machines, the price per card-hour is the machine's price divided by "
                "its cards. Prices change often: check the provider's page before you compare."
            )
        ),
    ]
    return env.get_template("partials/public-prices.html").render(rows=rows, caption=caption, notes=notes)


def check(path: Path | None = None, catalog: dict | None = None) -> list[str]:
    """What the build logs as warnings: the catalog prices far outside the public band. A bad file raises."""
    catalog = catalog or calculators.catalog()
    return outliers(load(path, catalog), catalog)
