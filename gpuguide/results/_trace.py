"""A traced result (`gpu-pilot trace`, kind 'trace'): its badge and what its peak holds, beside the estimate.

A trace is no measurement: the pilot's training step ran on the CPU under fake tensors, which have a
size but no data. The page and the import panel say so wherever a run would say "measured".
"""

from __future__ import annotations

from guidekit.l10n import N_, Localizer, Translator, escape
from guidekit.render import figure, num, scroll_region

from ._estimate import Comparison

# The trace's breakdown against the estimate's components that hold the same tensors.
PARTS = (
    ("parameters", N_("Weights and buffers"), ("weights",)),
    ("gradients", N_("Gradients"), ("gradients",)),
    ("optimizer_state", N_("Optimizer state"), ("optimizer",)),
    ("activations_and_temporaries", N_("Activations and temporaries"), ("activations", "logits", "temporary")),
)


def is_trace(data: dict) -> bool:
    return data["kind"] == "trace"


def badge(t: Translator) -> str:
    # Msgids stay outside f-strings: Babel's extractor (Python 3.11) does not look inside them.
    word = t(N_("Traced"))
    note = t(
        # TRANSLATORS: shown on a result of `gpu-pilot trace`: a training step run on the CPU with "fake" tensors
        # (PyTorch's FakeTensorMode: shapes and sizes, no data), so no GPU, no weights and little memory are needed.
        N_(
            "Traced on the CPU under fake tensors, no GPU: the tensors a training step holds at full width, "
            "counted without their memory or the weights. It is not a measurement of a GPU."
        )
    )
    return (
        f'<p class="guide-results__traced"><span class="guide-badge guide-badge--traced">{escape(word)}</span> '
        f"{escape(note)}</p>"
    )


def breakdown(data: dict, row: Comparison | None, loc: Localizer) -> str:
    """What is alive at the traced peak, part by part, beside the estimate's matching components."""
    t, fmt = loc.t, loc.fmt
    trace = data["trace"]
    components = row.components if row is not None and row.estimated is not None else {}
    caption = t(
        N_("What the traced peak holds (step {step} of {steps})"),
        step=fmt.number(trace["peak_step"], 0),
        steps=fmt.number(trace["steps"], 0),
    )
    head = "".join(f'<th scope="col">{escape(t(c))}</th>' for c in (N_("Part"), N_("Traced"), N_("Estimate")))

    def line(label: str, traced: int, estimated: int | None) -> str:
        est = num(figure(estimated, "bytes", loc)) if estimated is not None else "—"
        return (
            f'<tr><th scope="row">{escape(t(label))}</th><td>{num(figure(traced, "bytes", loc))}</td>'
            f"<td>{est}</td></tr>"
        )

    body = "".join(
        line(label, trace[key], sum(components[c] for c in parts) if components else None)
        for key, label, parts in PARTS
    )
    body += line(N_("Peak"), trace["peak_bytes"], row.estimated if row is not None else None)
    table = scroll_region(
        f'<table class="guide-table guide-results__trace"><caption>{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
        caption,
    )
    notes = [
        t(
            N_(
                "The trace counts the tensors of a run on the CPU, so the estimate beside it is the calculator's "
                "for the CPU: the same memory model, tensors only. Each column's parts are those of its own peak, "
                "which can fall at different moments of the step."
            )
        )
    ]
    if trace["cuda_estimated_bytes"] is not None:
        notes.append(
            t(
                N_(
                    "For the same configuration on a GPU, the calculator estimates {estimate} of tensors, "
                    "before the framework's allowance."
                ),
                estimate=figure(trace["cuda_estimated_bytes"], "bytes", loc),
            )
        )
    if not components:
        notes.append(t(N_("No estimate: the memory calculator does not model this configuration.")))
    return table + "".join(f'<p class="guide-import__note">{escape(n)}</p>' for n in notes)
