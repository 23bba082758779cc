"""The cost calculator's verdict: the answer's first sentence (the cheapest configuration, its plan and price,
how far the pick holds across the throughput range and the public prices, and the reader's own choice beside
it), and the phrases it is made of, which the tables and notes of ``_cost_display`` reuse."""

from __future__ import annotations

from typing import Any

from guidekit.calc.display import phrase, value, verdict
from guidekit.l10n import N_

from . import _data, memory
from ._cost_plans import HOURLY, SPOT

# Hours billed by the hour, in a plan: "12.5 hours on demand".
BY_THE_HOUR = {HOURLY: N_("{hours} on demand"), SPOT: N_("{hours} on spot")}


def plan_text(plan: list[list[Any]]) -> list[list[Any]]:
    """A plan as display data (the "plan" display unit): [[count, term label msgid], ...], and
    [hours, msgid, "hours"] for hours billed by the hour."""
    terms = {t["id"]: t["label"] for t in _data.terms()}
    return [[count, BY_THE_HOUR[tid], "hours"] if tid in BY_THE_HOUR else [count, terms[tid]] for tid, count in plan]


def config_phrase(q: dict[str, Any], micro_batch: int | None = None) -> dict[str, Any]:
    """ "2 × H100 SXM 80 GB" (with its micro-batch or its sharding when that is what changed), as a
    verdict's phrase."""
    count = {"count": value(q["cards"], "count"), "gpu": q["name"]}
    if q.get("change") == "parallelism":
        return phrase(N_("{count} × {gpu} with {mode}"), {**count, "mode": memory.MODE_NAMES[q["parallelism"]]})
    if micro_batch is None and q["measured"]:
        # The reader's own measurement drives this price: said where the answer is read, not only in a table.
        return phrase(N_("{count} × {gpu} (throughput measured by your pilot run)"), count)
    if micro_batch is None:
        return phrase(N_("{count} × {gpu}"), count)
    return phrase(
        N_("{count} × {gpu} with micro-batch {micro_batch}"), {**count, "micro_batch": value(micro_batch, "count")}
    )


def range_phrase(r: dict[str, Any], names: dict[str, str]) -> Any:
    """How far the pick holds: across the throughput range, and the middle half of public prices where the
    catalog gives them. A rival on speed is named first: it is the model's own uncertainty."""
    if not r["ranking_holds"]:
        return phrase(
            N_("at the ends of the throughput range, {rival} may be cheaper"), {"rival": names[r["ranking_rival"]]}
        )
    if r["price_rival"]:
        return phrase(N_("at other public prices, {rival} may be cheaper"), {"rival": names[r["price_rival"]["gpu"]]})
    if r["price_band_known"]:
        return phrase(N_("it stays the cheapest across the throughput range and the middle half of public prices"))
    return phrase(N_("it stays the cheapest across the throughput range"))


def verdict_of(values: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    """One sentence first: the cheapest configuration, its price, whether it survives the throughput range,
    and the reader's own choice beside it when that differs (or does not fit)."""
    if not r["ranking"] and r["fastest"]:
        fastest = r["fastest"]
        return verdict(
            N_(
                "No configuration finishes within the deadline of {deadline}: the fastest that fits, {config}, "
                "takes {hours} at {price} per successful output."
            ),
            {
                "deadline": value(r["deadline_hours"], "hours"),
                "config": config_phrase(fastest),
                "hours": value(fastest["booked_hours"], "hours"),
                "price": value(fastest["usd_per_output"], "usd"),
            },
            "bad",
            short=phrase(N_("No configuration finishes within the deadline.")),
        )
    if not r["ranking"]:
        return verdict(
            N_(
                "No catalog GPU fits this run in memory at the card counts priced: change the memory "
                "inputs, or allow any card count."
            ),
            {},
            "bad",
            short=phrase(N_("No catalog GPU fits this run in memory.")),
        )
    best = r["best_by_gpu"][0]
    names = {g["id"]: g["name"] for g in _data.gpus()}
    params = {
        "config": config_phrase(best),
        "plan": value(plan_text(best["plan"]), "plan"),
        "price": value(best["usd_per_output"], "usd"),
        "range": range_phrase(r, names),
    }
    status = "ok" if r["ranking_holds"] and not r["price_rival"] else "warn"
    # The sticky headline: the cheapest configuration and its price; the rest stays in the result.
    short = phrase(
        N_("Cheapest: {config}, {price} per successful output."), {k: params[k] for k in ("config", "price")}
    )
    if not r["fits_memory"]:
        near = r["nearest_fit"]
        micro = near["micro_batch"] if near["change"] == "micro_batch" else None
        return verdict(
            N_(
                "Cheapest: {config} with {plan}, {price} per successful output; {range}. Your choice, {chosen}, "
                "does not fit in memory; the nearest that fits, {nearest}, costs {nearest_price}."
            ),
            {
                **params,
                "chosen": config_phrase(r),
                "nearest": config_phrase(near, micro),
                "nearest_price": value(near["usd_per_output"], "usd"),
            },
            "warn",
            short,
        )
    if (best["gpu"], best["cards"]) != (r["gpu"], r["cards"]):
        return verdict(
            N_(
                "Cheapest: {config} with {plan}, {price} per successful output; {range}. Your choice, "
                "{chosen}: {chosen_price}."
            ),
            {**params, "chosen": config_phrase(r), "chosen_price": value(r["usd_per_output"], "usd")},
            status,
            short,
        )
    return verdict(N_("Cheapest: {config} with {plan}, {price} per successful output; {range}."), params, status, short)
