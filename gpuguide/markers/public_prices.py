"""`<!-- public-prices -->`: dated public on-demand list prices per card, for comparison with the catalog.

calculators/data/public_prices.json holds what named providers publish, each row with its source and date:
on-demand, spot and reserved rates. The shipped catalog's default prices are each card's median of them
(`gpuguide.catalog_prices` writes them); a site owner's own list replaces them. The build compares every
catalog price with its card's public median (`outliers`) and logs a warning for one more than half away
from it: a typo or a stale list, not a reason to stop a non-strict build.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import calculators
from guidekit.l10n import N_, NN_, Localizer

FILE = Path(calculators.__file__).parent / "data" / "public_prices.json"
SHOWN = "calculators/data/public_prices.json"  # how messages name the file
MIN_PROVIDERS = 3  # on-demand, per data-centre card: fewer makes no median worth comparing with
OUTSIDE = 0.5  # a catalog price more than half below or above its card's public median is flagged
BILLINGS = ("on-demand", "spot", "reserved")
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
    billing: str = "on-demand"
    on_demand_usd: float | None = None  # a reserved row's: the same provider's on-demand rate for the card


def _is_price(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 < value < 1000


def _problem(where: str, row: object) -> str | None:
    if not isinstance(row, dict):
        return f"{where} is not an object"
    for key in ("gpu", "provider", "source_title", "url", "date", "billing"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            return f"{where}.{key} is missing or empty"
    price = row.get("usd_per_gpu_hour")
    if not _is_price(price):
        return f"{where}.usd_per_gpu_hour must be a price in USD per card-hour above 0 and below 1000, got {price!r}"
    if row["billing"] not in BILLINGS:
        return f"{where}.billing must be one of {', '.join(map(repr, BILLINGS))}, got {row['billing']!r}"
    on_demand = row.get("on_demand_usd_per_gpu_hour")
    if row["billing"] == "reserved" and not (_is_price(on_demand) and on_demand > price):  # type: ignore[operator]
        return (
            f"{where}.on_demand_usd_per_gpu_hour must be the same provider's on-demand price for the card, "
            f"above the reserved one ({price!r}), got {on_demand!r}"
        )
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


def parse(data: object, cards: dict[str, str], shown: str = SHOWN, required: tuple[str, ...] = ()) -> list[PublicPrice]:
    """The rows of a public price file, or PublicPricesError naming `shown` and the first problem.
    `cards` maps the catalog's GPU ids to their names; each of `required` (the data-centre cards) needs
    on-demand prices from `MIN_PROVIDERS` providers."""

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
                f"prices[{i}].gpu {row['gpu']!r} is not a card of the catalog (expected one of {', '.join(cards)})"
            )
        prices.append(
            PublicPrice(
                row["gpu"],
                row["provider"].strip(),
                float(row["usd_per_gpu_hour"]),
                row["date"],
                row["source_title"].strip(),
                row["url"],
                row["billing"],
                row.get("on_demand_usd_per_gpu_hour"),
            )
        )
    for gpu in required:
        name = cards[gpu]
        providers = {p.provider for p in prices if p.gpu == gpu and p.billing == "on-demand"}
        if len(providers) < MIN_PROVIDERS:
            raise refuse(
                f"{name} ({gpu}) has prices from {len(providers)} provider(s); "
                f"the table needs on-demand prices from at least {MIN_PROVIDERS} named providers per data-centre card"
            )
    return prices


def datacenter_cards(catalog: dict) -> dict[str, str]:
    return {g["id"]: g["name"] for g in catalog["gpus"] if g.get("tier") == "datacenter"}


def catalog_cards(catalog: dict) -> dict[str, str]:
    return {g["id"]: g["name"] for g in catalog["gpus"]}


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
    catalog = catalog or calculators.catalog()
    return parse(data, catalog_cards(catalog), shown, tuple(datacenter_cards(catalog)))


def of(prices: list[PublicPrice], billing: str) -> dict[str, list[float]]:
    """Each card's public prices per card-hour of one kind of billing, lowest first."""
    out: dict[str, list[float]] = {}
    for p in prices:
        if p.billing == billing:
            out.setdefault(p.gpu, []).append(p.usd_per_gpu_hour)
    return {gpu: sorted(usd) for gpu, usd in out.items()}


def band(prices: list[PublicPrice]) -> dict[str, tuple[float, float]]:
    """Each card's lowest and highest public on-demand price per card-hour."""
    return {gpu: (usd[0], usd[-1]) for gpu, usd in of(prices, "on-demand").items()}


def medians(prices: list[PublicPrice], billing: str = "on-demand") -> dict[str, float]:
    """Each card's median public price per card-hour of one kind of billing."""
    return {gpu: statistics.median(usd) for gpu, usd in of(prices, billing).items()}


def outliers(prices: list[PublicPrice], catalog: dict) -> list[str]:
    """One line per catalog price more than `OUTSIDE` away from its card's public median: each term and on
    demand against the on-demand median (a term is a commitment, never dearer than no commitment), spot against
    the spot median. One $10/h listing moves a median little, where it stretched a lowest-to-highest band."""
    pricing = catalog["pricing"]
    lines = []
    for billing, median_of in (("on-demand", medians(prices)), ("spot", medians(prices, "spot"))):
        for gpu, median in median_of.items():
            if billing == "spot":
                quoted = [("spot", usd)] if (usd := pricing.get("spot_usd_per_card_hour", {}).get(gpu)) else []
            else:
                terms = pricing.get("usd_per_card_hour", {}).get(gpu, {})
                quoted = [(f"term {term}", usd) for term, usd in terms.items()]
                if gpu in pricing.get("on_demand_usd_per_card_hour", {}):
                    quoted.append(("on demand", pricing["on_demand_usd_per_card_hour"][gpu]))
            for what, usd in quoted:
                if abs(usd / median - 1) > OUTSIDE:
                    off = f"{(1 - usd / median):.0%} below" if usd < median else f"{(usd / median - 1):.0%} above"
                    lines.append(
                        f"calculators/data/catalog.json: {gpu} {what} at ${usd:g} per card-hour is {off} the "
                        f"median public {billing} price (${median:g} in {SHOWN}); check the catalog price"
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
    prices = [p for p in _shipped() if p.billing == "on-demand"]
    names = catalog_cards(calculators.catalog())
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
        for gpu, (low, high) in sorted(band(prices).items(), key=lambda item: order.index(item[0]))
    ]
    middle = [
        t(N_("{card}: {price}"), card=names[gpu], price=fmt.money(usd))
        for gpu, usd in sorted(medians(prices).items(), key=lambda item: order.index(item[0]))
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
            N_("Median, the calculator's default price on demand unless the site owner sets another: {medians}."),
            medians=fmt.join(middle),
        ),
        t(
            N_(
                "Where a provider rents only whole machines, the price per card-hour is the machine's price divided by "
                "its cards. Prices change often: check the provider's page before you compare."
            )
        ),
    ]
    return env.get_template("partials/public-prices.html").render(rows=rows, caption=caption, notes=notes)


def check(path: Path | None = None, catalog: dict | None = None) -> list[str]:
    """What the build logs as warnings: the catalog prices far from the public medians. A bad file raises."""
    catalog = catalog or calculators.catalog()
    return outliers(load(path, catalog), catalog)
