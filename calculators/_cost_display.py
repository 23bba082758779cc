"""What the cost calculator's answer shows: the verdict sentence, the booking note, the figures, the
per-card tables (best plan, cheapest plan, options) and the notes that say what the figures assume."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from guidekit.calc.display import Column, Note, bars, metric, metrics, notes, record_table, table, value
from guidekit.l10n import N_, NN_, NP_, Msg

from . import _data, memory
from ._cost_inputs import ON_SPOT
from ._cost_model import MAX_LOST_HOURS, NODE_CARDS
from ._cost_plans import HOURLY, SPOT
from ._cost_quote import card_counts
from ._cost_speed_notes import speed_notes
from ._cost_verdict import plan_text, verdict_of

_PRICING = _data.catalog()["pricing"]


def _status(ok: bool, warn: bool = False) -> str:
    return "bad" if not ok else ("warn" if warn else "ok")


def _source(q: dict[str, Any]) -> str:
    # TRANSLATORS: a table cell under "Throughput is": the throughput figure was measured by a pilot run,
    # or estimated by the model. It qualifies "throughput" (gender and number agree with it).
    return N_("measured") if q["measured"] else N_("estimated")


# The columns of the two per-card tables, each in the one order the page and the command line show: the
# price per output and the card count right after the name, so a phone shows what decides before the
# table scrolls sideways; the rest explains the price.
BEST_COLUMNS: list[Column] = [
    (N_("GPU"), "raw", itemgetter("short_name")),  # the catalog's short name: a table column stays narrow
    (N_("Per successful output"), "usd", itemgetter("usd_per_output")),
    (N_("Cards"), "count", itemgetter("cards")),
    (N_("Hourly billing, per output"), "usd", itemgetter("hourly_usd_per_output")),
    (N_("Plan"), "plan", lambda q: plan_text(q["plan"])),
    (N_("Unused hours"), "hours", itemgetter("unused_hours")),
    (N_("Throughput"), "tokens_per_s", itemgetter("tokens_per_s")),
    (N_("Low end"), "tokens_per_s", itemgetter("tokens_per_s_low")),
    (N_("High end"), "tokens_per_s", itemgetter("tokens_per_s_high")),
    (N_("Throughput is"), "text", _source),
]
# Shown only when the term is pinned: what the cheapest plan would cost instead.
CHEAPEST_PLAN: Column = (N_("Cheapest plan, per output"), "usd", itemgetter("best_usd_per_output"))
OPTION_COLUMNS: list[Column] = [
    (N_("Cards"), "count", itemgetter("cards")),
    (N_("Per successful output"), "usd", itemgetter("usd_per_output")),
    CHEAPEST_PLAN,
    (N_("Plan price"), "usd", itemgetter("total_usd")),
    (N_("Plan"), "plan", lambda q: plan_text(q["plan"])),
    (N_("Hours needed"), "hours", itemgetter("needed_hours")),
    (N_("Memory per GPU"), "bytes", itemgetter("memory_per_gpu_bytes")),
]


def _booking_note(q: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What the booking does at the low end of the throughput range."""
    spare = q["spare_at_low_hours"]
    if spare >= -1e-9:
        return (
            N_("At the low end of the throughput range this booking covers the job with {hours} to spare."),
            {"hours": value(spare, "hours")},
        )
    if q["topup_at_low_usd"] is None:
        return (
            N_(
                "At the low end of the throughput range this booking falls {hours} short, and this GPU has no "
                "on-demand price to top it up."
            ),
            {"hours": value(-spare, "hours")},
        )
    return (
        N_(
            "At the low end of the throughput range this booking falls {hours} short; topping it up on demand "
            "costs {usd}."
        ),
        {"hours": value(-spare, "hours"), "usd": value(q["topup_at_low_usd"], "usd")},
    )


def _rental_notes(values: dict[str, Any], r: dict[str, Any], q: dict[str, Any]) -> list[Note]:
    """What the priced configuration's rental does that a reader may not expect: outputs trained side by
    side, whole nodes billed, spot capacity, billing by the minute or second, the deadline."""
    items: list[Note] = []
    if q["streams"] > 1:
        items.append(
            (
                NN_(
                    "Outputs train side by side, {streams} at a time on {cards} card each: the rental lasts "
                    "{hours}, where one after another on all the cards it would last {sequential}.",
                    "Outputs train side by side, {streams} at a time on {cards} cards each: the rental lasts "
                    "{hours}, where one after another on all the cards it would last {sequential}.",
                    n="cards",
                ),
                {
                    "streams": value(q["streams"], "count"),
                    "cards": value(q["cards_per_run"], "count"),
                    "hours": value(q["booked_hours"], "hours"),
                    "sequential": value(q["one_after_another_hours"], "hours"),
                },
            )
        )
    if q["billed_cards"] > q["cards"]:
        items.append(
            (
                NN_(
                    "{gpu} is rented only as whole nodes: {count} card is billed as {billed}.",
                    "{gpu} is rented only as whole nodes: {count} cards are billed as {billed}.",
                ),
                {"gpu": q["name"], "count": value(q["cards"], "count"), "billed": value(q["billed_cards"], "count")},
            )
        )
    if q["on_spot"]:
        items.append(
            (
                N_(
                    "On spot, {gpu} is priced by the hour at its spot price, and each preemption ({rate} per 100 "
                    "card-hours, an assumption) interrupts the run like a failure."
                ),
                {"gpu": q["name"], "rate": value(values["preemptions_per_100h"], "number")},
            )
        )
    elif values["capacity"] == ON_SPOT:
        items.append((N_("{gpu} has no spot price: it is priced on terms and on-demand hours."), {"gpu": q["name"]}))
    if r["deadline_hours"] and q["fits_memory"]:
        items.append(
            (
                N_(
                    "Only configurations that finish within {deadline} at the hours booked are ranked; this one "
                    "finishes in {hours}."
                )
                if q["meets_deadline"]
                else N_(
                    "This configuration finishes in {hours}, after the deadline of {deadline}: the ranking "
                    "leaves it out."
                ),
                {"deadline": value(r["deadline_hours"], "hours"), "hours": value(q["booked_hours"], "hours")},
            )
        )
    return items


def display(values: dict[str, Any], r: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's blocks: the verdict, the booking, the figures, the per-card tables and the notes."""
    names = {g["id"]: g["name"] for g in _data.gpus()}
    # No headline price for a configuration that does not fit: the nearest one that fits is priced instead.
    q = r if r["fits_memory"] or not r["nearest_fit"] else r["nearest_fit"]
    priced = f"{q['cards']} × {q['name']}"
    # The headline figure first, then which configuration it prices (not always the cheapest, nor the asked one).
    head = [
        metric(N_("Cost per successful output"), q["usd_per_output"], "usd"),
        metric(
            N_("Configuration priced") if q is r else N_("Nearest configuration that fits"),
            priced,
            "raw",
            None if q is r else "warn",
        ),
        metric(N_("Reservation plan"), plan_text(q["plan"]), "plan"),
        metric(N_("Plan price"), q["total_usd"], "usd"),
        metric(N_("Hours needed"), q["needed_hours"], "hours"),
        metric(N_("Hours booked"), q["booked_hours"], "hours"),
        metric(
            N_("Unused hours in the plan"),
            q["unused_hours"],
            "hours",
            _status(True, q["unused_hours"] > 0.5 * q["plan_hours"]),
        ),
        metric(N_("Outputs that fit in the plan"), q["outputs_fit"], "count"),
        metric(N_("Throughput"), q["tokens_per_s"], "tokens_per_s"),
        metric(N_("Throughput, low end"), q["tokens_per_s_low"], "tokens_per_s"),
        metric(N_("Throughput, high end"), q["tokens_per_s_high"], "tokens_per_s"),
        metric(N_("Memory per GPU"), q["memory_per_gpu_bytes"], "bytes", _status(q["fits_memory"])),
    ]
    if r["pinned"]:
        head.insert(4, metric(N_("Cheapest plan, per output"), q["best_usd_per_output"], "usd"))
    if q["hourly_usd_per_output"] is not None:
        head.insert(4, metric(N_("Hourly billing, per output"), q["hourly_usd_per_output"], "usd"))
    if not q["fits_memory"]:  # nothing fits: no price is a headline; the memory tile and the notes say why
        priced_tiles = {
            N_("Cost per successful output"),
            N_("Plan price"),
            N_("Cheapest plan, per output"),
            N_("Hourly billing, per output"),
        }
        head = [m for m in head if m["label"] not in priced_tiles]
    runs, h = q["rounds"], q["run_hours"]  # outputs one after another: all of them, or a group's share
    hours: list[tuple[Msg, float]]
    hours = [
        (N_("Training"), runs * h["train"]),
        (N_("Checkpoint writes"), runs * h["writes"]),
        (N_("Lost to interruptions"), runs * h["lost"]),
        # TRANSLATORS: a share of the paid hours: loading the environment, data and model (a noun,
        # not a "please wait" message).
        (NP_("hours in the plan", "Loading"), runs * values["load_hours"]),
        (N_("Validation"), runs * values["validation_hours"]),
        (N_("Checkpoint upload"), runs * values["checkpoint_hours"]),
        # TRANSLATORS: hours of the reserved term that are paid for but not needed.
        (N_("Export"), runs * values["export_hours"]),
        (NP_("hours in the plan", "Unused"), q["unused_hours"]),
    ]
    option_labels = {o["id"]: o["label"] for o in _PRICING["options"]}
    # Hours billed by the hour are one line each, however many: not "1 hour on demand" beside their whole price.
    terms = {t["id"]: t["label"] for t in _data.terms()} | {HOURLY: N_("Hours on demand"), SPOT: N_("Hours on spot")}
    # None: the configuration does not fit, and has no price (nor a breakdown) of its own.
    breakdown = [[terms[tid], v] for tid, v in (q["gpu_usd"] or {}).items()]
    breakdown += [[option_labels[k], v] for k, v in (q["options_usd"] or {}).items()]
    # The chosen GPU's card counts; the other GPUs': their cheapest row in BEST_COLUMNS' table.
    option_columns = [c for c in OPTION_COLUMNS if r["pinned"] or c is not CHEAPEST_PLAN]
    note_items: list[Note] = []
    if r["prices_as_of"]:
        note_items.append(
            (
                N_(
                    "Prices as of {date}: the median of public list prices for this card, not a quote; the site "
                    "owner may set their own in the catalog."
                )
                if r["public_median_prices"]
                else N_("Prices as of {date}.")
                if not r["illustrative_prices"]
                else N_("Prices as of {date}; they are illustrative: the site owner sets them in the catalog."),
                {"date": r["prices_as_of"]},
            )
        )
    if r["prices_edited"]:
        note_items.append(
            (
                N_("Your own prices replace the site owner's catalog for {gpus}."),
                {"gpus": ", ".join(names[g] for g in r["prices_edited"])},
            )
        )
    note_items += speed_notes(values, r)
    if any(q["measured"] for q in [r, *r["best_by_gpu"]]):
        note_items.append(
            (
                N_(
                    "A measured throughput replaces the estimate on its own card; the table says which "
                    "figures are measured."
                ),
                {},
            )
        )
    if r["ranking"]:
        if r["ranking_holds"]:
            note_items.append(
                (
                    N_(
                        "Across the throughput range, {gpu} stays the cheapest per output: at its low end it "
                        "costs no more than any other card at its high end."
                    ),
                    {"gpu": names[r["ranking"][0]]},
                )
            )
        else:
            note_items.append(
                (
                    N_(
                        "The cheapest per output depends on where each card falls in its throughput range: "
                        "{gpu} at its low end costs more per output than {rival} at its high end."
                    ),
                    {"gpu": names[r["ranking"][0]], "rival": names[r["ranking_rival"]]},
                )
            )
    if rival := r["price_rival"]:
        note_items.append(
            (
                N_(
                    "The pick depends on the price you get: within the middle half of public prices, {rival} at "
                    "{rival_price} per card-hour costs less per output than {gpu} at {gpu_price}."
                ),
                {
                    "gpu": names[r["ranking"][0]],
                    "rival": names[rival["gpu"]],
                    "rival_price": value(rival["usd_per_card_hour"], "usd"),
                    "gpu_price": value(rival["pick_usd_per_card_hour"], "usd"),
                },
            )
        )
    if r["pinned"] and r["fits_memory"] and r["usd_per_output"] > r["best_usd_per_output"] + 1e-9:
        note_items.append(
            (
                N_("Pinning the term costs {extra} more per output than the cheapest plan."),
                {"extra": value(r["usd_per_output"] - r["best_usd_per_output"], "usd")},
            )
        )
    if not r["fits_memory"]:
        note_items.append(
            (N_("The run does not fit in {gpu} memory with this card count and headroom."), {"gpu": r["name"]})
        )
        near = r["nearest_fit"]
        if near:
            reason = {
                "micro_batch": N_(
                    "The figures above price the nearest configuration that fits: the same cards "
                    "with micro-batch {micro_batch}."
                ),
                "cards": N_(
                    "The figures above price the nearest configuration that fits: {count} cards of the same GPU."
                ),
                "gpu": N_(
                    "The figures above price the nearest configuration that fits: the cheapest GPU that "
                    "fits, {count} × {gpu}."
                ),
                "parallelism": N_(
                    "The figures above price the nearest configuration that fits: the same {count} cards "
                    "with {mode}, which splits among the cards some or all of the training state that DDP "
                    "copies onto each."
                ),
            }[near["change"]]
            # The change as inputs: the note is a fix the reader applies with one tap.
            fix = {
                "micro_batch": {"micro_batch": near["micro_batch"]},
                "cards": {"cards": near["cards"]},
                "gpu": {"gpu": near["gpu"], "cards": near["cards"]},
                "parallelism": {"parallelism": near.get("parallelism")},
            }[near["change"]]
            note_items.append(
                (
                    reason,
                    {
                        "micro_batch": value(near["micro_batch"], "count"),
                        "count": value(near["cards"], "count"),
                        "gpu": near["name"],
                        "mode": memory.MODE_NAMES.get(near.get("parallelism", ""), ""),
                    },
                    fix,
                )
            )
    if q["fits_memory"]:
        note_items.append(_booking_note(q))
    note_items += _rental_notes(values, r, q)
    mtbf = q["run_hours"]["mtbf_hours"]
    if mtbf is not None and mtbf < values["checkpoint_interval_hours"]:
        note_items.append(
            (
                N_(
                    "With {count} cards the mean time between failures, {mtbf}, is shorter than the "
                    "checkpoint interval, {interval}: most intervals fail before their checkpoint, and the "
                    "hours lost grow exponentially. A shorter interval loses less."
                ),
                {
                    "count": value(q["cards"], "count"),
                    "mtbf": value(mtbf, "hours"),
                    "interval": value(values["checkpoint_interval_hours"], "hours"),
                },
            )
        )
    if q["run_hours"]["lost_capped"]:
        note_items.append(
            (
                N_(
                    "At this failure rate a run is not expected to finish: the figures stop counting the hours "
                    "lost to interruptions at {hours}. Lower the failure rate or the checkpoint interval, or "
                    "use fewer cards."
                ),
                {"hours": value(MAX_LOST_HOURS, "hours")},
            )
        )
    if values["cards"] > NODE_CARDS:
        note_items.append(
            (
                NN_(
                    "More than {count} card spans several nodes: the efficiency across nodes applies.",
                    "More than {count} cards span several nodes: the efficiency across nodes applies.",
                ),
                {"count": value(NODE_CARDS, "count")},
            )
        )
    if not r["ranking"] and not r["fastest"]:  # with a fastest, some fit: the deadline ruled them all out
        note_items.append(
            (
                NN_(
                    "No catalog GPU fits the memory budget with up to {count} card.",
                    "No catalog GPU fits the memory budget with up to {count} cards.",
                ),
                {"count": value(max(max(card_counts(g["id"], values["any_count"])) for g in _data.gpus()), "count")},
            )
        )
    # A fix the reader can apply goes right under the answer's sentence, not at the end of the notes.
    fixes = [item for item in note_items if len(item) > 2]
    return [
        verdict_of(values, r),
        *([notes(fixes)] if fixes else []),
        metrics(N_("Cost per successful output"), head),
        bars(N_("Hours in the plan"), "hours", hours),
        table(N_("Price breakdown"), [(N_("Item"), "text"), (N_("Price"), "usd")], breakdown),
        record_table(N_("Cheapest configuration of each GPU"), BEST_COLUMNS, r["best_by_gpu"]),
        record_table(N_("Card counts of this GPU that fit"), option_columns, r["options_table"]),
        notes([item for item in note_items if len(item) == 2]),
    ]
