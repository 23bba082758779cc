"""`<!-- throughput-accuracy -->`: the speed model against every published measurement it was checked on,
computed at build time by `calculators.throughput_accuracy.accuracy()` (the same comparison `python -m
benchmarks.throughput_accuracy` prints), so the page shows the model the calculator runs."""

from __future__ import annotations

from functools import lru_cache

from calculators import throughput_accuracy
from calculators.cost import STACK_SHORT
from gpuguide.results._html import choice_label
from guidekit.l10n import N_, NN_, Localizer, NumberFormat, Translator

# Why a row fits nothing, by its code in the data file.
EXCLUDED = {
    "card_variant": N_("Shown, not fitted: another variant of the card"),
    "multi_node": N_("Shown, not fitted: several nodes"),
    "generic_stack": N_("Shown, not fitted: a generic software stack"),
    "host_offload": N_("Shown, not fitted: state kept in host memory"),
}
PRECISION = {"bf16": "bf16", "fp8": "FP8"}


@lru_cache(maxsize=1)
def _accuracy() -> dict:
    return throughput_accuracy.accuracy()  # the same for every locale: computed once per build


def _signed(error: float | None, fmt: NumberFormat) -> str:
    if error is None:
        return "—"
    return ("+" if error >= 0 else "−") + fmt.percent_of(abs(error))


def _method(method: str, t: Translator) -> str:
    return t(choice_label("memory", "method", "full" if method == "pretrain" else method))


def render_table(env, pack: dict) -> str:
    loc = Localizer(pack)
    fmt, t = loc.fmt, loc.t
    acc = _accuracy()
    rows = []
    for r in acc["rows"]:
        precision = PRECISION.get(r["precision"], "4-bit" if r["method"] == "qlora" else r["precision"])
        parts = [
            r["model"].split(" (")[0],
            _method(r["method"], t),
            precision,
            f"{fmt.number(r['seq_len'], 0)} × {fmt.number(r['micro_batch'], 0)}",
            t(NN_("{count} card", "{count} cards"), n=r["gpus"], count=fmt.number(r["gpus"], 0)),
        ]
        if r["checkpointing"]:
            parts.append(t(N_("Gradient checkpointing")))
        rows.append(
            {
                "card": r["gpu_name"],
                "parts": parts,
                "source": r["label"],
                "url": r["url"],
                "stack": t(STACK_SHORT[r["stack"]]),
                "measured": fmt.number(r["measured"], 0),
                "estimate": fmt.number(r["estimate"], 0),
                "error": _signed(r["error"], fmt),
                "loo": _signed(r["loo_error"], fmt) if r["use"] == "calibration" else "—",
                "use": t(N_("Fitted")) if r["use"] == "calibration" else t(EXCLUDED[r["excluded"]]),
                "calibrates": r["use"] == "calibration",
            }
        )
    s = acc["summary"]
    caption = t(
        NN_(
            "Throughput estimate against {count} published measurement that calibrates it: worst difference "
            "{worst}, {loo} with its publication held out of the fit; {inside} of the held-out measurements fall "
            "inside the range the other publications give (goal: within {goal})",
            "Throughput estimate against {count} published measurements that calibrate it: worst difference "
            "{worst}, {loo} with each publication held out of the fit; {inside} of the held-out measurements fall "
            "inside the range the other publications give (goal: within {goal})",
        ),
        n=s["calibration_rows"],
        count=fmt.number(s["calibration_rows"], 0),
        worst=fmt.percent_of(s["worst_error"]),
        loo=fmt.percent_of(s["worst_loo_error"]),
        inside=fmt.percent_of(s["held_out_inside_band"]),
        goal=fmt.percent_of(acc["target"], 0),
    )
    names = {g: r["gpu_name"] for r in acc["rows"] for g in [r["gpu"]]}
    shares = [
        t(N_("{label}: {value}"), label=names[g], value=fmt.percent_of(share)) for g, share in acc["shares"].items()
    ]
    low, high = acc["band"]
    wide_low, wide_high = acc["wide_band"]
    hf_low, hf_high = acc["stack_bands"]["hf"]
    hf = acc["stacks"]["hf"]
    notes = [
        t(
            N_(
                "Fitted share of each card's dense matrix peak: {shares}. QLoRA's dequantisation runs at {dequant} of the "
                "achieved memory bandwidth, fitted to the 4-bit rows against their LoRA twins."
            ),
            shares=fmt.join(shares),
            dequant=fmt.percent_of(acc["dequant_share"]),
        ),
        t(
            N_(
                "The Hugging Face stack runs the same step at {efficiency} of a tuned framework's speed, plus {step} "
                "per optimizer step and {overhead} per micro-batch, fitted to its own measurements with each card's "
                "share held."
            ),
            efficiency=fmt.percent_of(hf["efficiency"]),
            step=t(N_("{value} s"), value=fmt.number(hf["step_overhead_s"], 2)),
            overhead=t(N_("{value} s"), value=fmt.number(hf["overhead_s"], 3)),
        ),
        t(
            N_(
                "Each range comes from publications held out whole: {low} below to {high} above the estimate for a card "
                "calibrated on several publications, bf16 among them; {wide_low} below to {wide_high} above for a card "
                "calibrated on one publication, on FP8 only, or on none; at least {stack_low} below to {stack_high} "
                "above on the Hugging Face stack."
            ),
            low=fmt.percent_of(1 - low),
            high=fmt.percent_of(high - 1),
            wide_low=fmt.percent_of(1 - wide_low),
            wide_high=fmt.percent_of(wide_high - 1),
            stack_low=fmt.percent_of(1 - hf_low),
            stack_high=fmt.percent_of(hf_high - 1),
        ),
        t(
            N_("On every workload measured on several cards, the estimates put the cards in the measured order.")
            if s["orders_hold"] and s["loo_orders_hold"]
            else N_(
                "On some workload measured on several cards, the estimates do not put the cards in the measured order."
            )
        ),
    ]
    for rel in acc["relative"]:
        notes.append(
            t(
                N_(
                    "A published comparison on one card each, in {precision}, measured the {faster} {low}× to {high}× "
                    "as fast as the {slower}; the model gives {model}× for the calculator's default workload."
                ),
                precision=rel["precision"],
                faster=names.get(rel["faster"], rel["faster"]),
                slower=names.get(rel["slower"], rel["slower"]),
                low=fmt.number(rel["ratio_low"], 2),
                high=fmt.number(rel["ratio_high"], 2),
                model=fmt.number(rel["modelled_ratio"], 2),
            )
        )
    notes.append(
        t(
            N_(
                "Tuned frameworks (NVIDIA NeMo, MosaicML llm-foundry, MLPerf submissions) calibrate each card; the "
                "Hugging Face rows calibrate that stack. Your own software may differ from both: measure it with the "
                "pilot and enter it in the calculator."
            )
        )
    )
    return env.get_template("partials/throughput-accuracy.html").render(rows=rows, caption=caption, notes=notes)
