"""`<!-- memory-accuracy -->` and `<!-- memory-traced -->`: the memory calculator against the real stack,
as measured on small models by `python -m benchmarks.memory_accuracy` and as traced at full width by
`python -m benchmarks.memory_accuracy --traced`. Each JSON is read at build time, so the page shows
exactly what was measured or traced, with the library versions it was done with."""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.exceptions import PluginError

from calculators.hf_config import MODEL_TYPES
from gpuguide.results._html import choice_label
from guidekit.l10n import N_, NN_, Localizer, NumberFormat


def _family(key: str) -> str:
    """A row's model family by name: the matrix's keys are model types, some with a variant suffix
    ("llama-act", "gemma3" for gemma3_text)."""
    base = key.split("-")[0]
    spec = MODEL_TYPES.get(base) or MODEL_TYPES.get(base + "_text")
    return spec.name if spec else key


def load(path: Path, traced: bool = False) -> dict:
    command = "python -m benchmarks.memory_accuracy" + " --traced" * traced
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["rows"]
        versions = data["traced_with" if traced else "measured_with"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"{path}: the memory accuracy table cannot be read ({exc}); run {command}") from exc
    return {"goal": data.get("goal", 0.05), "rows": rows, "versions": versions}


def _precision(row: dict) -> str:
    return row["dtype"] + (" + autocast bf16" if row["autocast"] else "")


def _signed(error: float | None, fmt: NumberFormat) -> str:
    """The estimate's difference as a compact signed percentage (+0.7 %, −3.3 %)."""
    if error is None:
        return "—"
    return ("+" if error >= 0 else "−") + fmt.percent_of(abs(error))


def _caption(loc: Localizer, data: dict, shown: int, msgid) -> str:
    t, fmt = loc.t, loc.fmt
    errors = [abs(r["relative_error"]) for r in data["rows"] if r["relative_error"] is not None]
    return t(
        msgid,
        n=shown,
        count=fmt.number(shown, 0),
        worst=fmt.percent_of(max(errors)) if errors else "—",
        goal=fmt.percent_of(data["goal"], 0),
    )


def render_table(env, pack: dict, data: dict) -> str:
    loc = Localizer(pack)
    fmt, t = loc.fmt, loc.t
    rows = []
    for r in data["rows"]:
        optimizer = "SGD" if r["optimizer"] == "sgd" else f"AdamW {r['impl'].replace('_', '-')}"
        parts = [
            t(choice_label("memory", "method", r["method"])),
            _precision(r),
            "SDPA" if r["attention"] == "sdpa" else "eager",
            optimizer,
        ]
        parts += [t(N_("LoRA dropout"))] * r["dropout"] + [t(N_("Gradient checkpointing"))] * r["ckpt"]
        if r.get("targets"):  # LoRA on some projections only (on a mixture of experts: the experts frozen)
            parts.append(t(N_("LoRA on {modules}"), modules=", ".join(f"{n}_proj" for n in r["targets"])))
        parts += [t(N_("Router auxiliary loss"))] * bool(r.get("router_aux_loss"))
        rows.append(
            {
                "model": f"{_family(r['family'])} · {r['seq_len']} × {r['micro_batch']}",
                "parts": parts,  # each isolated in the page, so mixed scripts keep their order right to left
                "measured": fmt.number(r["measured_bytes"] / 1e6, 1, 1),
                "estimate": fmt.number(r["estimated_bytes"] / 1e6, 1, 1) if r["estimated_bytes"] else "—",
                "error": _signed(r["relative_error"], fmt),
            }
        )
    caption = _caption(
        loc,
        data,
        len(rows),
        NN_(
            "Memory estimate against the measured peak: {count} configuration, worst difference {worst} (goal: within {goal})",
            "Memory estimate against the measured peak: {count} configurations, worst difference {worst} (goal: within {goal})",
        ),
    )
    v = data["versions"]
    provenance = t(
        N_(
            "Measured on the CPU with torch {torch}, transformers {transformers} and peft {peft} on "
            "{date}: models of each family built from their configuration with random weights, two "
            "optimizer steps each, peak of live tensor memory. The estimate counts CPU dropout masks as "
            "the CPU stores them; on a GPU a mask takes one byte per value, as the calculator assumes."
        ),
        torch=v["torch"],
        transformers=v["transformers"],
        peft=v["peft"],
        date=v["date"],
    )
    return env.get_template("partials/memory-accuracy.html").render(
        rows=rows,
        caption=caption,
        provenance=provenance,
        label=t(N_("Memory estimate against the measured peak")),
        peak_header=t(N_("Measured peak (MB)")),
        estimate_header=t(N_("Estimate (MB)")),
    )


def render_traced(env, pack: dict, data: dict, models: dict[str, dict]) -> str:
    """The presets at their published size, traced under fake tensors (`models`: preset id -> preset)."""
    loc = Localizer(pack)
    fmt, t = loc.fmt, loc.t
    gb = lambda b: fmt.number(b / 1e9, 2, 2) if b else "—"  # noqa: E731 - one format for both columns
    rows = []
    for r in data["rows"]:
        parts = [t(choice_label("memory", "method", r["method"])), _precision(r)]
        parts += [t(N_("Gradient checkpointing"))] * r["ckpt"]
        rows.append(
            {
                "model": f"{models[r['preset']]['name']} · {r['seq_len']} × {r['micro_batch']}",
                "parts": parts,
                "measured": gb(r["traced_bytes"]),
                "estimate": gb(r["estimated_bytes"]),
                "error": _signed(r["relative_error"], fmt),
            }
        )
    caption = _caption(
        loc,
        data,
        len(rows),
        NN_(
            "Memory estimate against the traced peak at full size: {count} configuration, worst difference {worst} "
            "(goal: within {goal})",
            "Memory estimate against the traced peak at full size: {count} configurations, worst difference {worst} "
            "(goal: within {goal})",
        ),
    )
    v = data["versions"]
    provenance = t(
        N_(
            "Traced on the CPU under PyTorch's FakeTensorMode with torch {torch}, transformers {transformers} "
            "and peft {peft} on {date}: each model at its published size with all its layers, two optimizer "
            "steps of AdamW (LoRA rank 16 on every projection), peak of live tensor memory. Fake tensors "
            "have sizes but no data, so nothing is allocated and no time is measured; the estimate "
            "compared is the calculator's for a CPU run, as in the measured table."
        ),
        torch=v["torch"],
        transformers=v["transformers"],
        peft=v["peft"],
        date=v["date"],
    )
    return env.get_template("partials/memory-accuracy.html").render(
        rows=rows,
        caption=caption,
        provenance=provenance,
        label=t(N_("Memory estimate against the traced peak at full size")),
        peak_header=t(N_("Traced peak (GB)")),
        estimate_header=t(N_("Estimate (GB)")),
    )
