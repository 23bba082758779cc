"""Small pieces of markup the results page and the import panel share; every file string escaped."""

from __future__ import annotations

import calculators
from guidekit.l10n import N_, NN_, Localizer, Translator, escape
from guidekit.render import figure, num, scroll_region

from ._estimate import STRATEGIES, Comparison
from ._messages import safe_number

DASH = "—"


def seconds(value, loc: Localizer) -> str:
    return DASH if value is None else figure(value, "seconds", loc)


def choice_label(calculator: str, input_name: str, value) -> str:
    """The calculator's own msgid for a choice (e.g. method 'full'), or the value itself."""
    for item in calculators.describe(calculator).get("inputs", []):
        if item["name"] == input_name:
            for choice in item["choices"]:
                if choice["value"] == value:
                    return choice["label"]
    return str(value)


def is_cpu(data: dict) -> bool:
    return data["environment"]["device_type"] == "cpu"


def cpu_badge(t: Translator) -> str:
    # Msgids stay outside f-strings: Babel's extractor (Python 3.11) does not look inside them.
    badge = t(N_("CPU sample"))
    note = t(N_("Measured on a CPU to show the file format: its times and memory say nothing about a GPU."))
    return (
        f'<p class="guide-results__cpu"><span class="guide-badge guide-badge--cpu">{escape(badge)}</span> '
        f"{escape(note)}</p>"
    )


# Why a run stopped early (the result schema's outcome.partial.reason).
PARTIAL_REASONS = {
    "diverged": N_("the loss diverged (NaN or infinite)"),
    "failed": N_("an error stopped it"),
    "interrupted": N_("it was interrupted"),
    "checkpoint_failed": N_("the checkpoint could not be written, so there is no restore check"),
    # TRANSLATORS: the pilot rewrites its result after each stage; this file is one such copy, so the run was
    # killed there (or was still running when the file was copied).
    "unfinished": N_("it had not finished when the file was written: it was killed, or was still running"),
}


def partial_reason(data: dict, t: Translator) -> str | None:
    """The localized reason of a partial run; None for a complete one."""
    partial = data["outcome"].get("partial")
    if data["outcome"]["status"] != "partial" or not partial:
        return None
    return t(PARTIAL_REASONS.get(partial["reason"], partial["reason"]))


def partial_badge(data: dict, loc: Localizer) -> str:
    """A marked notice: the figures of a partial run cover only what it measured before it stopped."""
    t, fmt = loc.t, loc.fmt
    reason = partial_reason(data, t)
    if reason is None:
        return ""
    badge = t(N_("Partial result"))
    steps = data["outcome"]["partial"]["steps_done"]
    note = t(
        NN_(
            "The run stopped after {count} step: {reason}. Only what it measured before is shown.",
            "The run stopped after {count} steps: {reason}. Only what it measured before is shown.",
        ),
        n=steps,
        count=fmt.number(steps, 0),
        reason=reason,
    )
    return (
        f'<p class="guide-results__partial"><span class="guide-badge guide-badge--partial">{escape(badge)}</span> '
        f"{escape(note)}</p>"
    )


def strategy_label(row: Comparison, t: Translator) -> str:
    name = t(STRATEGIES.get(row.strategy, row.strategy))
    return name if row.world == 1 else t(N_("{strategy} × {count}"), strategy=name, count=str(row.world))


def difference(error: float | None, loc: Localizer, traced: bool = False) -> str:
    """The estimate's error in words: 13 % above / below the measurement (or the trace)."""
    t, fmt = loc.t, loc.fmt
    if error is None:
        return DASH
    amount = fmt.percent_of(abs(error)) if abs(error) < 1e6 else safe_number(abs(error) * 100, fmt) + " %"
    if traced:
        if error >= 0:
            return t(N_("{percent} above the trace"), percent=amount)
        return t(N_("{percent} below the trace"), percent=amount)
    if error >= 0:
        return t(N_("{percent} above the measurement"), percent=amount)
    return t(N_("{percent} below the measurement"), percent=amount)


def comparison_table(rows: list[Comparison], loc: Localizer, caption: str) -> str:
    t = loc.t
    peak = N_("Traced peak") if rows and rows[0].traced else N_("Measured peak")
    head = "".join(
        f'<th scope="col">{escape(t(c))}</th>' for c in (N_("Configuration"), peak, N_("Estimate"), N_("Difference"))
    )
    body = "".join(
        f'<tr><th scope="row">{escape(strategy_label(r, t))}</th>'
        f"<td>{num(figure(r.measured, 'bytes', loc))}</td><td>{num(figure(r.estimated, 'bytes', loc))}</td>"
        f"<td>{escape(difference(r.error, loc, r.traced))}</td></tr>"
        for r in rows
    )
    return scroll_region(
        f'<table class="guide-table"><caption>{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
        caption,
    )
