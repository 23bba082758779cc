"""The cost answer's notes on where its speeds come from: the software stack they are fitted for, the
range each card's estimate carries (publications held out whole, `throughput.Calibration`), and which
cards take the wider range. Apart from the calculator's display (``cost``), which places them."""

from __future__ import annotations

from typing import Any

from guidekit.calc.display import listing, phrase, value
from guidekit.l10n import N_

from . import _data, throughput

# The stacks as a note names them ("fitted ... on {stack}"), and as a table cell.
STACK_NAMES = {throughput.HF: N_("the Hugging Face stack"), throughput.TUNED: N_("a tuned framework")}
STACK_SHORT = {throughput.HF: N_("Hugging Face"), throughput.TUNED: N_("Tuned framework")}


def speed_notes(values: dict[str, Any], r: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(message, parameters) of each note, for the answer `r` to `values`."""
    names = {g["id"]: g["name"] for g in _data.gpus()}
    note_items: list[tuple[str, dict[str, Any]]] = []
    cal = throughput.calibration()
    low, high = cal.range_of(r["gpu"], values["stack"])
    note_items.append(
        (
            N_(
                "Throughput is estimated from each card's compute, bandwidth and link, at its share of peak "
                "fitted to published measurements, on {stack}. Measurements from publications held out of the "
                "fit fell from {low} below to {high} above its estimates for the {gpu}: the low and high ends "
                "of its range."
            ),
            {
                "stack": phrase(STACK_NAMES[values["stack"]]),
                "gpu": names[r["gpu"]],
                "low": value(1 - low, "percent"),
                "high": value(high - 1, "percent"),
            },
        )
    )
    shown = {q["gpu"] for q in [r, *r["best_by_gpu"]] if not q["measured"]}
    few = [
        g["id"]
        for g in _data.gpus()
        if g["id"] in shown and g["id"] in cal.shares and g["id"] not in cal.well_calibrated
    ]
    if few:
        low, high = cal.range_of(few[0], values["stack"])
        note_items.append(
            (
                N_(
                    "{gpus}: calibrated on a single publication, or on FP8 measurements only, so their range is "
                    "the wider one, {low} below to {high} above."
                ),
                {
                    "gpus": listing([names[g] for g in few]),
                    "low": value(1 - low, "percent"),
                    "high": value(high - 1, "percent"),
                },
            )
        )
    if values["precision"] == "fp8":
        bf16 = [g["id"] for g in _data.gpus() if g["id"] in shown and "fp8_dense_tflops" not in g]
        if bf16:
            note_items.append(
                (
                    N_("{gpus}: no FP8 on these cards, so they are priced in bf16."),
                    {"gpus": listing([names[g] for g in bf16])},
                )
            )
    unfitted = sorted({q["gpu"] for q in [r, *r["best_by_gpu"]] if q["gpu"] not in cal.shares and not q["measured"]})
    if unfitted:  # a catalog card that no row of the measurements file covers
        low, high = cal.range_of(unfitted[0], values["stack"])
        note_items.append(
            (
                N_(
                    "{gpus}: no published measurement calibrates these cards, so they run at the mean of the "
                    "other cards' shares of peak, and their range, {low} below to {high} above, is as far as the "
                    "model missed a card it was not fitted to."
                ),
                {
                    "gpus": listing([names[g] for g in unfitted]),
                    "low": value(1 - low, "percent"),
                    "high": value(high - 1, "percent"),
                },
            )
        )
    return note_items
