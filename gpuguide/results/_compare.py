"""A result file picked on a calculator page: validated, turned into the form's inputs, compared.

`import_result` is what the browser worker calls; it never raises, whatever the file holds. A
model's config.json goes to `gpuguide.model_config` instead, on calculators that take dimensions.
"""

from __future__ import annotations

import calculators
from calculators.cost import measured_field
from calculators.pilot_inputs import chosen_scale_run, declared, measured_gpu, result_inputs, to_inputs
from gpuguide import model_config
from guidekit.calc import get as get_calculator
from guidekit.l10n import N_, Localizer, Translator, clip, date_text, escape, isolate, plain_strings
from guidekit.render import figure, input_labels, num
from pilot.result import MAX_BYTES, parse, problem

from . import _charts, _flags, _trace
from ._changes import changes_html
from ._estimate import comparisons
from ._html import choice_label, comparison_table, cpu_badge, difference, is_cpu, partial_badge
from ._messages import problem_message
from ._refusal import not_a_result, refusal, refusal_html


def _failed(errors: list[str], t: Translator, problems: list[dict], lines: list[str] | None = None) -> dict:
    """`errors` as plain lines; `lines`, when given, the same as HTML (file strings isolated)."""
    heading = t(N_("This file cannot be used:"))
    items = "".join(f"<li>{line}</li>" for line in (lines if lines is not None else map(escape, errors)))
    html = (
        f'<div class="guide-import guide-import--invalid" role="alert"><p>{escape(heading)}</p><ul>{items}</ul></div>'
    )
    return {
        "ok": False,
        "errors": errors,
        "problems": problems,
        "inputs": {},
        "html": html,
        "summary": heading + " " + (errors[0] if errors else ""),
    }


def _estimate_panel(data: dict, inputs: dict, name: str, loc: Localizer) -> tuple[str, str]:
    """The memory model's estimate for the recorded run against the measured peak."""
    t = loc.t
    rows = comparisons(data)
    if not rows:
        text = t(N_("This run did not record memory."))
        return f"<p>{escape(text)}</p>", text
    if _trace.is_trace(data):
        return _traced_panel(data, rows[0], loc)
    run = chosen_scale_run(data)  # the configuration the form takes
    first = next((r for r in rows if run and (r.strategy, r.world) == (run["strategy"], run["world_size"])), rows[0])
    summary = t(
        N_("Measured {measured}, estimated {estimate}: {difference}."),
        measured=figure(first.measured, "bytes", loc),
        estimate=figure(first.estimated, "bytes", loc),
        difference=difference(first.error, loc),
    )
    note = t(N_("The estimate counts tensors only, without the framework allowance, as the pilot measures them."))
    html = (
        comparison_table(rows, loc, t(N_("Peak memory per GPU: measured and estimated")))
        + _charts.memory(rows, loc)
        + f'<p class="guide-import__note">{escape(note)}</p>'
    )
    return html, summary


def _traced_panel(data: dict, row, loc: Localizer) -> tuple[str, str]:
    """A trace's peak against the estimate, and what the peak holds: labelled traced, never measured."""
    t = loc.t
    if row.estimated is None:
        summary = t(
            N_("Traced {traced}; the calculator has no estimate for this configuration."),
            traced=figure(row.measured, "bytes", loc),
        )
    else:
        summary = t(
            N_("Traced {traced}, estimated {estimate}: {difference}."),
            traced=figure(row.measured, "bytes", loc),
            estimate=figure(row.estimated, "bytes", loc),
            difference=difference(row.error, loc, traced=True),
        )
    html = comparison_table([row], loc, t(N_("Peak memory: traced and estimated"))) + _trace.breakdown(data, row, loc)
    return html, summary


def _taken_panel(data: dict, inputs: dict, name: str, loc: Localizer) -> tuple[str, str]:
    """The measured figures the calculator took (throughput, scaling efficiency, memory per GPU)."""
    t = loc.t
    units = {i["name"]: (i["label"], i["unit"]) for i in calculators.describe(name)["inputs"]}
    shown = [
        k
        for k in (
            *(measured_field(g) for g in [measured_gpu(data)] if g),
            "scaling_efficiency",
            "memory_per_gpu_gb",
            "checkpoint_write_s",
            "restore_s",
            "gpu",
        )
        if inputs.get(k)  # a figure the file did not measure is the estimate's 0, not a measurement
    ]
    items = []
    for key in shown:
        label, unit = units[key]
        value = figure(inputs[key], unit, loc) if unit else t(choice_label(name, key, inputs[key]))
        items.append(f'<div class="guide-metric"><dt>{escape(t(label))}</dt><dd>{num(value)}</dd></div>')
    run = chosen_scale_run(data)
    reasons = _flags.untrusted_reasons(data, run, loc) if run else []
    if "scaling_efficiency" not in inputs and "scaling_efficiency" in units:
        # An untrustworthy efficiency is shown as such, never clamped into the calculator.
        kept = (
            t(N_("not trustworthy in this file: your value is kept"))
            if reasons
            else t(N_("not measured in this file: your value is kept"))
        )
        items.append(
            f'<div class="guide-metric"><dt>{escape(t(units["scaling_efficiency"][0]))}</dt>'
            f"<dd>{escape(kept)}</dd></div>"
        )
    summary = _measured_summary(data, inputs, loc)
    notes = "".join(f'<p class="guide-import__note guide-import__flag">{escape(r)}</p>' for r in reasons)
    return f'<dl class="guide-metrics">{"".join(items)}</dl>{notes}', summary


def _measured_summary(data: dict, inputs: dict, loc: Localizer) -> str:
    """What of the file's measurements the cost takes: a speed only for the card it was measured on,
    nothing from a CPU sample, a trace or a card the catalog does not list."""
    t = loc.t
    if _trace.is_trace(data) or is_cpu(data):
        return t(
            N_(
                "A CPU sample or a trace measures no GPU: no card's throughput, memory or checkpoint time "
                "is taken from it, only the run's configuration."
            )
        )
    gpu = measured_gpu(data)
    field = measured_field(gpu) if gpu else None
    if field is None or field not in inputs:
        return t(
            N_("Measured on {device}, a card the catalog does not list: its throughput is not taken."),
            device=clip(data["environment"]["device_name"]),
        )
    names = {g["id"]: g["name"] for g in calculators.catalog()["gpus"]}
    return t(
        N_("Measured on {gpu} on {date}: {throughput} per GPU, taken for that card only."),
        gpu=names[gpu],
        date=date_text(data["created"], loc.pack),
        throughput=figure(inputs[field], "tokens_per_s", loc),
    )


# What a calculator page shows for an imported pilot result: the measured figures the form took, or the
# memory model's estimate for the recorded run against the measured peak. A calculator names its own
# (`IMPORT_PANEL`); the first is the default.
PANELS = {"measured_inputs": _taken_panel, "estimate_vs_measured": _estimate_panel}


def panel_for(name: str):
    """The panel renderer calculator `name` declares; ValueError naming the choices for any other."""
    panel = getattr(get_calculator(name), "IMPORT_PANEL", "measured_inputs")
    if panel not in PANELS:
        raise ValueError(f"{name}: IMPORT_PANEL must be one of {', '.join(PANELS)} (got {panel!r})")
    return PANELS[panel]


def _accepted(name: str, data: dict, loc: Localizer, current: object = None) -> dict:
    t, fmt = loc.t, loc.fmt
    data = plain_strings(data)
    inputs = to_inputs(data, name)
    title = t.html(N_("Pilot result: {label}"), label=isolate(data["label"]))  # outside the f-string for Babel
    head = f"<h3>{title}</h3>"
    if _trace.is_trace(data):
        head += _trace.badge(t)
    elif is_cpu(data):
        head += cpu_badge(t)
    head += partial_badge(data, loc)
    panel = panel_for(name)
    body, summary = panel(data, inputs, name, loc)
    missing = sorted(k for k in declared(name) & set(result_inputs(data)) if k not in inputs)
    if missing:
        # Each input by its translated label, as the form shows it, in the locale's list form.
        labels = input_labels(name)
        kept = t(
            N_("Kept your values for inputs outside the calculator range: {names}"),
            names=fmt.join([t(labels[key]) if key in labels else key for key in missing]),
        )
        body += f'<p class="guide-import__note">{escape(kept)}</p>'
    # With the reader's form, what the file would change is listed and waits for their choice.
    asked, changed = changes_html(name, inputs, current, loc) if current is not None else ("", [])
    html = f'<section class="guide-import">{head}{asked}{body}</section>'
    return {
        "ok": True,
        "errors": [],
        "problems": [],
        "inputs": inputs,
        "changes": changed,
        "html": html,
        "summary": summary,
    }


def too_large(pack: dict, found: int | None = None) -> dict:
    """The envelope for a file refused by its size alone, before a byte of it is read: the page
    (from `File.size`, rendered by the build without `found`) and the worker (from the buffer's
    length) both show this one."""
    loc = Localizer(pack)
    t = loc.t
    limit = loc.fmt.number(MAX_BYTES / 1e6, max_frac=1)
    line = t(
        N_("It is larger than {limit} MB, the most a pilot result or a config.json can be, so it was not read."),
        limit=limit,
    )
    params = {"limit": MAX_BYTES} if found is None else {"limit": MAX_BYTES, "found": found}
    return _failed([line], t, [problem("", "too_large", **params)])


def unreadable(pack: dict) -> dict:
    """The envelope for a file nothing could be made of: the browser could not hand over its bytes,
    or reading it raised."""
    t = Translator(pack)
    return _failed([t(N_("The file could not be read."))], t, [])


def page_refusals(pack: dict) -> dict:
    """The answers the page gives on its own, without the worker: rendered by the build into the drop
    zone, in the worker's words. too_large: File.size over the limit; unreadable: the browser failed to
    read the file; no_runtime: the live calculator could not start, so there is nothing to read it."""
    t = Translator(pack)
    return {
        "too_large": too_large(pack),
        "unreadable": unreadable(pack),
        "no_runtime": _failed(
            [t(N_("The live calculator could not start, so the file was not read. Reload the page to try again."))],
            t,
            [],
        ),
    }


def import_result(name: str, text, pack: dict, current: object = None, pasted: bool = False) -> dict:
    """{ok, errors (localized lines), problems (raw), inputs (for the form), html (panel), summary}.

    `current`, the reader's form as the page sends it: a result then also gives `changes`, the inputs
    it would change, which the page applies only once the reader says so (the panel asks). `pasted`:
    the bytes were pasted text, not a file, and the answer calls them so."""
    loc = Localizer(pack)
    t = loc.t
    try:
        if "inputs" not in calculators.describe(name):
            return _failed([t(N_("Unknown calculator: {name}"), name=clip(name))], t, [])
        if model_config.is_model_config(text) and {"layers", "hidden"} <= declared(name):
            return model_config.import_model_config(name, text, loc)
        data, problems = parse(text)
        if problems and problems[0]["code"] == "too_large":
            return too_large(pack, problems[0]["params"]["found"])  # the page's and the worker's words
        if problems:
            sentence, lines = refusal(text, problems, loc, pasted)
            return {
                "ok": False,
                "errors": [problem_message(p, loc) for p in problems],
                "problems": problems,
                "inputs": {},
                "html": refusal_html(sentence, lines, not_a_result(problems), loc),
                "summary": sentence,
            }
        return _accepted(name, data, loc, current)
    except Exception:  # noqa: BLE001 - a reader's file must never break the page; the tests aim for none
        return unreadable(pack)
