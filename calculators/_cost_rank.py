"""The cost calculator's answer: the reader's configuration quoted, every card count of its GPU that
fits, each GPU's cheapest configuration (among those that finish by the deadline, if any), the
ranking and whether it survives the throughput range, the nearest configuration that fits when the
reader's does not, and the fastest when none finishes in time. The quotes come from ``_cost_quote``."""

from __future__ import annotations

from typing import Any

from . import _data, memory
from ._cost_budget import _parallelism
from ._cost_inputs import BEST, HIGH, LOW
from ._cost_own_inputs import PRICE_FIELDS
from ._cost_plans import HOURLY, SPOT
from ._cost_quote import _PRICING, BOOKED, _Quoter, card_counts

# The figures of a quote that price it: none of them for a configuration that does not fit in memory.
UNPRICED = (
    "usd_per_output",
    "total_usd",
    "gpu_usd",
    "options_usd",
    "best_usd_per_output",
    "usd_per_million_tokens",
    "hourly_usd",
    "hourly_usd_per_output",
    "topup_at_low_usd",
)


def _rank_key(usd_per_output: float, cards: int) -> tuple[float, int]:
    """How configurations compare: cost per output (to the micro-dollar), then fewer cards."""
    return round(usd_per_output, 6), cards


def _cheapest_configuration(quoter: _Quoter, gpu: dict[str, Any]) -> tuple[float, int] | None:
    """The rank key of a GPU's cheapest card count that fits, or None when none fits. Card counts
    are priced from the lowest bound up (`least_usd_per_output`), and the search stops once a bound
    is above the cheapest price found: a plan search per card count was most of an answer's time."""
    counts = card_counts(gpu["id"], quoter.values["any_count"])
    bounds = sorted(_rank_key(quoter.least_usd_per_output(gpu, n), n) for n in counts if quoter.ranked(gpu, n))
    best = None
    for bound, cards in bounds:
        if best is not None and bound > best[0]:
            break
        key = _rank_key(quoter.usd_per_output(gpu, cards, BOOKED), cards)
        best = key if best is None else min(best, key)
    return best


def estimate(values: dict[str, Any]) -> dict[str, Any]:
    quoter = _Quoter(values)
    gpus = {g["id"]: g for g in _data.gpus()}
    own = gpus[values["gpu"]]
    chosen = quoter.quote(own, values["cards"])
    if not chosen["fits_memory"]:  # a configuration that cannot run has no price of its own
        chosen |= dict.fromkeys(UNPRICED)
    # Every card count of the chosen GPU that fits, for its table; of each GPU, the cheapest.
    rows = [quoter.quote(own, n) for n in card_counts(own["id"], values["any_count"]) if quoter.budget.fits(own, n)]
    fastest = _fastest(quoter, gpus) if values["deadline_hours"] > 0 else None
    best = {gid: key for gid, gpu in gpus.items() if (key := _cheapest_configuration(quoter, gpu)) is not None}
    ranking = sorted(best, key=best.__getitem__)
    by_gpu = [quoter.quote(gpus[gid], best[gid][1]) for gid in ranking]
    # Each GPU's cheapest configuration re-priced at both ends of its throughput range: the question is
    # whether the pick survives the model's error, and pricing every card count again would take most of
    # the answer's time. The pick holds when, at its own low end, it costs no more than any other card at
    # that card's high end.
    at = {
        end: {q["gpu"]: _rank_key(quoter.usd_per_output(gpus[q["gpu"]], q["cards"], end), q["cards"]) for q in by_gpu}
        for end in (LOW, HIGH)
    }
    sensitivity = {end: sorted(keys, key=keys.__getitem__) for end, keys in at.items()}
    rivals = sorted((g for g in ranking[1:] if at[HIGH][g][0] < at[LOW][ranking[0]][0]), key=at[HIGH].__getitem__)
    prices = _PRICING.get("price_sources", {}).get(values["gpu"], {})
    nearest = None if chosen["fits_memory"] else _nearest_fit(values, quoter, own, by_gpu)
    edited = [
        gid for gid in gpus if any(values[PRICE_FIELDS[gid, tid]] is not None for tid in [*quoter.terms, HOURLY, SPOT])
    ]
    price_rival = _price_rival(by_gpu, edited)
    return {
        **chosen,
        "params": quoter.budget.state(1).run.params,
        "stack": values["stack"],
        "tokens_per_run": quoter.tokens_per_run,
        "nearest_fit": nearest,
        "prices_edited": edited,
        "pinned": values["term"] != BEST,
        "illustrative_prices": bool(prices.get("illustrative", True)),
        "public_median_prices": bool(prices.get("public_median")),
        "prices_as_of": prices.get("as_of"),
        "currency": _PRICING.get("currency", "USD"),
        "ranking": ranking,
        "ranking_low": sensitivity[LOW],
        "ranking_high": sensitivity[HIGH],
        "ranking_holds": not rivals,
        "ranking_rival": rivals[0] if rivals else None,
        "price_band_known": bool(by_gpu) and _band(by_gpu[0]["gpu"], edited) is not None,
        "price_rival": price_rival,
        "best_by_gpu": by_gpu,
        "deadline_hours": values["deadline_hours"] or None,
        "fastest": fastest,
        "options_table": rows,
    }


def _band(gpu: str, edited: list[str]) -> tuple[float, float] | None:
    """A card's middle half of public on-demand prices as factors of its catalog price; None where the catalog
    gives no band, or the reader set their own prices for the card (they know what they pay)."""
    band = _PRICING.get("price_sources", {}).get(gpu, {}).get("band_usd")
    own = _PRICING.get("on_demand_usd_per_card_hour", {}).get(gpu)
    if not band or not own or gpu in edited:
        return None
    return band[0] / own, band[1] / own


def _price_rival(by_gpu: list[dict[str, Any]], edited: list[str]) -> dict[str, Any] | None:
    """The first card that, at the low end of its public price band, costs less per output than the pick at
    the high end of its own, with those prices; None when the pick holds or its band is unknown. A quote's
    card prices scale by one factor and its options stay, so each card keeps its plan: the question is
    whether the pick survives the spread of public prices, not what the plan would be at every price."""

    def at(quote: dict[str, Any], factor: float) -> float:
        gpu_usd, options = sum(quote["gpu_usd"].values()), sum(quote["options_usd"].values())
        return float(quote["usd_per_output"] * (gpu_usd * factor + options) / (gpu_usd + options))

    if not by_gpu or (pick := _band(by_gpu[0]["gpu"], edited)) is None:
        return None
    ceiling = at(by_gpu[0], pick[1])
    on_demand = _PRICING["on_demand_usd_per_card_hour"]
    for quote in by_gpu[1:]:
        band = _band(quote["gpu"], edited)
        if band is not None and at(quote, band[0]) < ceiling:
            return {
                "gpu": quote["gpu"],
                "usd_per_card_hour": on_demand[quote["gpu"]] * band[0],
                "pick_usd_per_card_hour": on_demand[by_gpu[0]["gpu"]] * pick[1],
            }
    return None


def _fastest(quoter: _Quoter, gpus: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The configuration that finishes soonest among those that fit (fewer cards on a tie):
    what the answer offers when none finishes by the deadline. None when none fits."""
    fitting = [
        (round(quoter.finish_hours(gpu, n), 9), n, gid)
        for gid, gpu in gpus.items()
        for n in card_counts(gid, quoter.values["any_count"])
        if quoter.budget.fits(gpu, n) and quoter.offered(gpu)
    ]
    if not fitting:
        return None
    _, cards, gid = min(fitting)
    return quoter.quote(gpus[gid], cards)


def _nearest_fit(
    values: dict[str, Any], quoter: _Quoter, own: dict[str, Any], by_gpu: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The configuration nearest the reader's that fits in memory, priced, with what changed ("change"):
    on several cards, the least sharding that fits them (its collectives cost least), else the same
    cards with a smaller micro-batch, else more cards of the same GPU, else the cheapest GPU that fits;
    None when nothing does."""
    cards, micro = values["cards"], values["micro_batch"] // 2
    order = memory.SHARDING_ORDER  # "one GPU" on several cards runs as DDP (`_parallelism`)
    later = order[order.index(_parallelism(values, cards)) + 1 :] if cards > 1 else ()
    for mode in later if values["memory_per_gpu_gb"] <= 0 else ():
        sharded = _Quoter({**values, "parallelism": mode})
        if sharded.budget.fits(own, cards):
            return {
                **sharded.quote(own, cards),
                "change": "parallelism",
                "parallelism": mode,
                "micro_batch": values["micro_batch"],
            }
    while micro >= 1 and values["memory_per_gpu_gb"] <= 0:  # a measured peak does not move with the batch
        smaller = _Quoter({**values, "micro_batch": micro})
        if smaller.budget.fits(own, cards):
            return {**smaller.quote(own, cards), "change": "micro_batch", "micro_batch": micro}
        micro //= 2
    for n in card_counts(own["id"], values["any_count"]):
        if n > cards and quoter.budget.fits(own, n):
            return {**quoter.quote(own, n), "change": "cards", "micro_batch": values["micro_batch"]}
    if by_gpu:
        return {**by_gpu[0], "change": "gpu", "micro_batch": values["micro_batch"]}
    return None
