"""What the memory calculator's answer shows: the verdict sentence, the levers that would make the run fit
(each a one-tap fix), the figures, the bars by component, which GPUs fit and the rules of thumb."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from guidekit.calc.display import (
    Column,
    alternatives,
    bars,
    metric,
    metrics,
    notes,
    phrase,
    record_table,
    table,
    value,
    verdict,
)
from guidekit.l10n import N_, NN_, Msg

from . import memory_why
from ._memory_inputs import MODE_NAMES
from ._memory_run import COMPONENTS, Run

COMPONENT_LABELS = {
    "weights": N_("Weights"),
    "gradients": N_("Gradients"),
    "optimizer": N_("Optimizer state and master copy"),
    "activations": N_("Activations"),
    "logits": N_("Logits and loss"),
    "temporary": N_("Temporary buffers"),
    "framework": N_("Framework and fragmentation"),
}
_RULE_LABELS = {
    "params_x_precision": N_("Parameters × bytes per parameter"),
    "plus_30_percent": N_("Parameters × bytes, +30 %"),
    "plus_40_percent": N_("Parameters × bytes, +40 %"),
}


LEVERS_TITLE = N_("What lowers the memory per GPU on this card")
_LEVERS = {
    "fused_loss": N_("Fused linear cross-entropy loss (Loss implementation)"),
    "checkpointing": N_("Gradient checkpointing on"),
    "micro_batch": N_("Micro-batch of {batch}"),
    "sharding": N_("{mode} on the same {count} cards"),
    "fsdp": N_("FSDP across {count} cards"),
}
# The same levers as alternatives in the verdict's sentence.
_OPTIONS = {
    "fused_loss": N_("the same card with the fused loss"),
    "checkpointing": N_("the same card with gradient checkpointing"),
    "micro_batch": N_("the same card with a micro-batch of {batch}"),
    "sharding": N_("{count} × {gpu} with {mode}"),
    "fsdp": N_("{count} × {gpu} with FSDP"),
}


def _lever_params(lever: dict[str, Any], name: str, gpus: int) -> dict[str, Any]:
    count = lever.get("count", gpus if lever["lever"] == "sharding" else None)
    return {
        "batch": value(lever.get("batch"), "count"),
        "count": value(count, "count"),
        "gpu": name,
        "mode": MODE_NAMES.get(lever.get("mode", ""), ""),
    }


def _lever_inputs(lever: dict[str, Any]) -> dict[str, Any]:
    """A lever as the inputs that apply it (the answer's one-tap fix); with the card it fits on, where it
    leaves the chosen one too small (its sentence ends on that card)."""
    kind = lever["lever"]
    elsewhere = {"gpu": lever["fits_elsewhere"]["gpu"]} if lever.get("fits_elsewhere") else {}
    if kind == "fused_loss":
        return {"loss": "fused", **elsewhere}
    if kind == "checkpointing":
        return {"gradient_checkpointing": True, **elsewhere}
    if kind == "micro_batch":
        return {"micro_batch": lever["batch"], **elsewhere}
    if kind == "sharding":
        return {"parallelism": lever["mode"], **elsewhere}
    return {"parallelism": "fsdp", "gpus": lever["count"], **elsewhere}


def _lever_outcome(lever: dict[str, Any], cards: int) -> dict[str, Any]:
    """Whether a lever makes the run fit, judged against every card: on the chosen one, else on the catalog
    card that then holds it for the least per hour on demand (the cost page's prices), else on none."""
    if lever["fits"]:
        return phrase(N_("fits"))
    if elsewhere := lever.get("fits_elsewhere"):
        return phrase(
            N_("too large for this card; fits {count} × {gpu} at {price} on demand"),
            {
                "count": value(lever.get("count", cards), "count"),
                "gpu": elsewhere["name"],
                "price": value(elsewhere["usd_per_hour"], "usd_per_hour"),
            },
        )
    return phrase(N_("still too large"))


def _verdict(values: dict[str, Any], r: dict[str, Any], a: dict[str, Any]) -> dict[str, Any]:
    """One sentence: does the run fit on the chosen card, and if not, what does."""
    here = {"count": value(values["gpus"], "count"), "gpu": a["name"], "needed": value(r["per_gpu_bytes"], "bytes")}
    if a["fits"]:
        return verdict(
            N_("Fits on {count} × {gpu}: {needed} needed per GPU, {free} left free."),
            {**here, "free": value(a["free_bytes"], "bytes")},
            "ok",
            short=phrase(N_("Fits on {count} × {gpu}: {needed} per GPU."), dict(here)),
        )
    # The sticky headline: the card and the need; what fits instead stays in the result.
    short = phrase(N_("Does not fit on {count} × {gpu}: {needed} per GPU."), dict(here))
    options = []
    smallest = r["smallest"]
    if smallest:
        options.append(
            phrase(N_("{count} × {gpu}"), {"count": value(smallest["count"], "count"), "gpu": smallest["name"]})
        )
    cheapest = r["cheapest"]
    if cheapest and smallest and (cheapest["gpu"], cheapest["count"]) != (smallest["gpu"], smallest["count"]):
        options.append(
            phrase(
                N_("{count} × {gpu} (the cheapest per hour)"),
                {"count": value(cheapest["count"], "count"), "gpu": cheapest["name"]},
            )
        )
    options += [
        phrase(_OPTIONS[lv["lever"]], _lever_params(lv, a["name"], values["gpus"])) for lv in a["levers"] if lv["fits"]
    ]
    here["usable"] = value(a["usable_bytes"], "bytes")
    if not options:
        return verdict(
            N_(
                "Does not fit on {count} × {gpu}: {needed} needed per GPU, {usable} usable after the "
                "reserve; no catalog GPU fits it with these settings."
            ),
            here,
            "bad",
            short,
        )
    return verdict(
        N_(
            "Does not fit on {count} × {gpu}: {needed} needed per GPU, {usable} usable after the reserve; "
            "what fits: {options}."
        ),
        {**here, "options": alternatives(options)},
        "bad",
        short,
    )


# The fit table's columns: the answer (fits, cards needed, headroom) right after the name, the card's
# size last, so a phone shows the deciding columns before the table scrolls.
FIT_COLUMNS: list[Column] = [
    (N_("GPU"), "raw", itemgetter("short_name")),  # the catalog's short name: a table column stays narrow
    (N_("Fits with the reserve"), "bool", itemgetter("fits")),
    (N_("Cards needed"), "count", itemgetter("min_count")),
    (N_("Free memory"), "bytes", itemgetter("headroom_bytes")),
    (N_("Free share"), "percent", itemgetter("headroom_fraction")),
    (N_("Memory"), "gb", lambda g: g["memory_bytes"] / 1e9),
]


def display(values: dict[str, Any], r: dict[str, Any], run: Run) -> list[dict[str, Any]]:
    """The answer's blocks for `r`, the estimate of `run` (the inputs as the memory model reads them)."""
    smallest, a = r["smallest"], r["answer"]
    head = [
        metric(N_("Memory per GPU"), r["per_gpu_bytes"], "bytes"),
        metric(N_("Trainable parameters"), r["trainable_params"], "count"),
        metric(N_("Trainable share"), r["trainable_fraction"], "percent"),
    ]
    if values["offload"] != "none":  # what CPU offload moves to the host, beside the GPU figure
        head.insert(1, metric(N_("Host RAM per GPU (offload)"), r["host_bytes_per_gpu"], "bytes"))
    if smallest:  # names its card: a bare green "1" read as "one of the card I chose"
        head.append(metric(N_("Smallest setup that fits"), f"{smallest['count']} × {smallest['name']}", "raw", "ok"))
    if cheapest := r["cheapest"]:  # the one to rent, at the cost page's on-demand prices
        head.append(metric(N_("Cheapest setup that fits"), f"{cheapest['count']} × {cheapest['name']}", "raw", "ok"))
        head.append(metric(N_("Its price per hour, on demand"), cheapest["usd_per_hour"], "usd_per_hour"))
    rule_rows = [
        [_RULE_LABELS[i["rule"]], i["bytes"], i["difference_bytes"], i["ratio"]] for i in r["shortcuts"]["items"]
    ]
    peaks = {k: value(r["detail"]["peak_" + k], "bytes") for k in ("forward_backward", "optimizer_step")}
    note_items: list[tuple[Msg, dict[str, Any]]]
    note_items = [
        (
            N_(
                "The components are not all allocated at once, so the memory per GPU is the higher "
                "of two peaks, not the sum of the bars: {forward_backward} in the forward and "
                "backward passes (activations, logits and the gradients made so far), {optimizer_step} in "
                "the optimizer step "
                "(gradients and the step's temporary buffers)."
            ),
            peaks,
        )
    ]
    if a.get("master_copy_bytes"):
        note_items.append(
            (
                N_(
                    "The fp32 master copy adds {bytes} per GPU here. DeepSpeed's and FSDP's mixed "
                    "precision keep one; the Hugging Face Trainer on a model loaded in bf16 keeps none: "
                    "switch it off to match that."
                ),
                {"bytes": value(a["master_copy_bytes"], "bytes")},
            )
        )
    if values["params"] and values["params"] < r["params_derived"]:
        note_items.append(
            (
                NN_(
                    "The dimensions imply {derived} parameter; the entered count is lower and was not used.",
                    "The dimensions imply {derived} parameters; the entered count is lower and was not used.",
                    n="derived",
                ),
                {"derived": value(r["params_derived"], "count")},
            )
        )
    note_items.append(
        (
            N_("Rules of thumb are compared with this run on one GPU: {bytes}."),
            {"bytes": value(r["shortcuts"]["single_gpu_bytes"], "bytes")},
        )
    )
    # The levers, each a fix the reader can apply, right under the answer's sentence.
    blocks = [_verdict(values, r, a)]
    if a["levers"]:
        blocks.append(
            notes(
                [
                    (
                        N_("{change}: {needed} per GPU ({outcome})."),
                        {
                            "change": phrase(_LEVERS[lv["lever"]], _lever_params(lv, a["name"], values["gpus"])),
                            "needed": value(lv["bytes"], "bytes"),
                            "outcome": _lever_outcome(lv, values["gpus"]),
                        },
                        _lever_inputs(lv),
                    )
                    for lv in a["levers"]
                ],
                title=LEVERS_TITLE,
            )
        )
    blocks.append(metrics(N_("Memory per GPU"), head))
    # Beside the figure: why it is what it is, when a component dominates or QLoRA leaves experts whole.
    why = memory_why.notes_for(values, run, r["bytes"], r["per_gpu_bytes"])
    if why:
        blocks.append(notes(why, title=N_("Why this figure")))
    return blocks + [
        bars(N_("Memory per GPU by component"), "bytes", [(COMPONENT_LABELS[c], r["bytes"][c]) for c in COMPONENTS]),
        record_table(N_("Which GPUs fit"), FIT_COLUMNS, r["gpu_fit"]),
        table(
            N_("Rules of thumb against this estimate"),
            [
                (N_("Rule"), "text"),
                (N_("Memory"), "bytes"),
                (N_("Difference"), "bytes"),
                (N_("Share of the estimate"), "percent"),
            ],
            rule_rows,
        ),
        notes(note_items),
    ]
