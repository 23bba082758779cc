"""The localized "pilot results" page: a table of runs, then a section per run with its charts."""

from __future__ import annotations

import re

from calculators import pilot_inputs
from guidekit.l10n import N_, NN_, NP_, Localizer, bdi, escape, isolate, plain, plain_strings, timestamp_html
from guidekit.render import figure, scroll_region

from . import _charts, _flags, _restore as _restore_lines, _trace
from ._estimate import Comparison, comparisons
from ._html import (
    DASH,
    choice_label,
    comparison_table,
    cpu_badge,
    difference,
    is_cpu,
    partial_badge,
    partial_reason,
    seconds,
    strategy_label,
)


def _device(d, loc):
    t, fmt = loc.t, loc.fmt
    env = d["environment"]
    return t(N_("{count} × {name}"), count=fmt.number(env["device_count"], 0), name=env["device_name"])


def _device_type(d, loc):
    t = loc.t
    env = d["environment"]
    if env["device_type"] == "cpu":
        return t(N_("CPU"))
    return "ROCm" if env["hip"] else "CUDA"


def _model(d, loc):
    t, fmt = loc.t, loc.fmt
    count = d["model"]["parameters"]
    return t(
        NN_("{source}, {count} parameter", "{source}, {count} parameters"),
        n=count,
        source=d["model"]["source"],
        count=fmt.number(count, 0),
    )


def _shape(d, loc):
    t, fmt = loc.t, loc.fmt
    m = d["config"]["model"]
    return t(
        # TRANSLATORS: a model's shape; {layers} is "32 layers" and {heads} is "32 heads", translated apart.
        N_("{layers}, hidden {hidden}, {heads} ({kv_heads} key/value)"),
        layers=t(NN_("{count} layer", "{count} layers"), n=m["layers"], count=fmt.number(m["layers"], 0)),
        heads=t(NN_("{count} head", "{count} heads"), n=m["heads"], count=fmt.number(m["heads"], 0)),
        hidden=fmt.number(m["hidden"], 0),
        kv_heads=fmt.number(m["kv_heads"], 0),
    )


def _method(d, loc):
    t, fmt = loc.t, loc.fmt
    train = d["config"]["train"]
    label = t(choice_label("memory", "method", train["method"]))
    if train["method"] == "lora":
        return t(N_("{method}, rank {rank}"), method=label, rank=fmt.number(train["lora_rank"], 0))
    return label


def _optimizer(d, loc):
    t = loc.t
    name = d["config"]["train"]["optimizer"]
    return t(choice_label("memory", "optimizer", pilot_inputs.OPTIMIZERS.get(name, name)))


def _batch(d, loc):
    t, fmt = loc.t, loc.fmt
    train = d["config"]["train"]
    return t(
        N_("{micro} × {accum}"), micro=fmt.number(train["micro_batch"], 0), accum=fmt.number(train["grad_accum"], 0)
    )


def _steps(d, loc):
    t, fmt = loc.t, loc.fmt
    if _trace.is_trace(d):
        return DASH  # a trace times nothing
    cfg = d["config"]
    steps, warmup = cfg["steps"], cfg["warmup_steps"]
    return t(
        # TRANSLATORS: the timed steps of a pilot run, after the untimed warm-up ones: "20 steps after 3 warm-up steps".
        N_("{steps} after {warmup}"),
        steps=t(NN_("{count} step", "{count} steps"), n=steps, count=fmt.number(steps, 0)),
        warmup=t(NN_("{count} warm-up step", "{count} warm-up steps"), n=warmup, count=fmt.number(warmup, 0)),
    )


def _outcome(d, loc):
    t = loc.t
    if _trace.is_trace(d):
        return t(N_("Traced"))
    status = d["outcome"]["status"]
    if status == "partial":
        return t(N_("Partial: {reason}"), reason=partial_reason(d, t) or DASH)
    # TRANSLATORS: the outcome of a pilot run (the run finished every step), beside "Does not fit in memory".
    return t(NP_("pilot run outcome", "Completed")) if status == "completed" else t(N_("Does not fit in memory"))


def _mem(key):
    return lambda d, loc: figure(d["memory"][key], "bytes", loc) if d.get("memory") else DASH


def _traced_peak(d, loc):
    return figure(d["trace"]["peak_bytes"], "bytes", loc) if d.get("trace") else DASH


def _device_memory(d, loc):
    t = loc.t
    mem = d.get("memory")
    if not mem or mem["device_used_peak_bytes"] is None:
        return DASH
    if mem["device_total_bytes"] is None:
        return figure(mem["device_used_peak_bytes"], "bytes", loc)
    return t(
        N_("{used} of {total}"),
        used=figure(mem["device_used_peak_bytes"], "bytes", loc),
        total=figure(mem["device_total_bytes"], "bytes", loc),
    )


# TRANSLATORS: what separates the items of one cell of the runs table ("DDP × 2: 83 %; FSDP × 2: 80 %"),
# whose items hold commas of their own: a semicolon and its spacing as this language writes them.
SEPARATOR = NP_("between the items of one cell", "; ")


def _estimate(d, loc):
    t = loc.t
    rows = [r for r in comparisons(d) if r.estimated is not None]
    if not rows:
        return DASH
    return t(SEPARATOR).join(
        t(
            N_("{name}: {estimate}, {difference}"),
            name=strategy_label(r, t),
            estimate=figure(r.estimated, "bytes", loc),
            difference=difference(r.error, loc, r.traced),
        )
        for r in rows
    )


def _timing(path, render):
    def cell(d, loc):
        node = d.get("timing")
        for key in path:
            node = node[key] if node else None
        return render(node, loc) if node is not None else DASH

    return cell


def _stalls(d, loc):
    t, fmt = loc.t, loc.fmt
    timing = d.get("timing")
    if not timing:
        return DASH
    count = timing["stalled_steps"]
    return t(
        # TRANSLATORS: steps in which the training loop waited for data longer than {threshold} of the step time.
        NN_(
            "{count} step (waiting over {threshold} of the step)",
            "{count} steps (waiting over {threshold} of the step)",
        ),
        n=count,
        count=fmt.number(count, 0),
        threshold=fmt.percent_of(timing["stall_threshold"]),
    )


def _validation(d, loc):
    """Validation time with what it covers: held-out micro-batches (older files: the time alone)."""
    t, fmt = loc.t, loc.fmt
    timing = d.get("timing")
    if not timing or timing.get("validation_s") is None:
        return DASH
    time = seconds(timing["validation_s"], loc)
    count = timing.get("validation_batches")
    if count is None:
        return time
    return t(
        NN_("{seconds} over {count} held-out batch", "{seconds} over {count} held-out batches"),
        n=count,
        seconds=time,
        count=fmt.number(count, 0),
    )


def _checkpoint(d, loc):
    """The checkpoint's write time, size and extent: one process's, or the scaling configuration's the
    calculators take (sharded, or replicated on every process)."""
    t, fmt = loc.t, loc.fmt
    run = pilot_inputs.chosen_scale_run(d)
    ck = run.get("checkpoint") if run else d.get("checkpoint")
    if not ck:
        return DASH
    if ck.get("error"):
        return t(N_("Not written: {error}"), error=ck["error"])
    time, size = seconds(ck["write_s"], loc), figure(ck["size_bytes"], "bytes", loc)
    if not run:
        return t(N_("{seconds} for {size}, by one process"), seconds=time, size=size)
    count = ck["processes"]
    words = (
        NN_(
            "{seconds} for {size}, sharded across {count} process",
            "{seconds} for {size}, sharded across {count} processes",
        )
        if ck["sharded"]
        else NN_(
            "{seconds} for {size}, replicated on {count} process",
            "{seconds} for {size}, replicated on {count} processes",
        )
    )
    return t(words, n=count, seconds=time, size=size, count=fmt.number(count, 0))


def _restore(d, loc):
    t, fmt = loc.t, loc.fmt
    r = d.get("restore")
    if not r or not r["performed"]:
        return t(N_("Not run"))
    passed, failed = _restore_lines.counts(r)
    if not r["passed"]:
        # TRANSLATORS: answers "Restore verified": no, and how many comparisons of the restored state failed.
        return t(NN_("No: {count} check failed", "No: {count} checks failed"), n=failed, count=fmt.number(failed, 0))
    mode = t(N_("bit for bit")) if r["mode"] == "bitwise" else t(N_("within tolerance"))
    where = t(N_("in a fresh process")) if r["fresh_process"] else t(N_("in the same process"))
    return t(
        # TRANSLATORS: answers "Restore verified": yes, how ({mode}: bit for bit or within tolerance), where
        # (in a fresh process...), and how many comparisons passed.
        NN_("Yes: {mode}, {where}, {count} check", "Yes: {mode}, {where}, {count} checks"),
        n=passed,
        mode=mode,
        where=where,
        count=fmt.number(passed, 0),
    )


def _scaling(d, loc):
    t = loc.t
    if not d.get("scaling"):
        return DASH
    cells = []
    for r in d["scaling"]["runs"]:
        name = strategy_label(Comparison(r["strategy"], r["world_size"], None), t)
        if _flags.untrusted(d, r):  # the flag, not the number
            cells.append(t(_flags.UNTRUSTED, name=name))
        else:
            cells.append(t(N_("{name}: {efficiency}"), name=name, efficiency=figure(r["efficiency"], "percent", loc)))
    for r in d["scaling"].get("did_not_fit") or []:  # measured and refused by the device, not left out
        name = strategy_label(Comparison(r["strategy"], r["world_size"], None), t)
        # TRANSLATORS: a scaling strategy (e.g. "DDP × 8") that ran out of device memory, so it has no efficiency.
        cells.append(t(N_("{name}: out of memory"), name=name))
    return t(SEPARATOR).join(cells)


def _baseline(d, loc):
    """What each efficiency is measured against: one process, or the smallest sharded run that fit."""
    t = loc.t
    if not d.get("scaling"):
        return DASH
    base = d["scaling"]["baseline"]
    name = strategy_label(Comparison(base["strategy"], base["world_size"], None), t)
    if base["world_size"] == 1:
        return name
    # TRANSLATORS: the scaling baseline when one process could not hold the job ({name}: e.g. "FSDP × 2").
    return t(N_("{name}, the smallest sharded run that fit: one process ran out of memory"), name=name)


def _flag_names(d, loc):
    return _flags.labels(d, loc) or DASH


def _env(key):
    return lambda d, loc: d["environment"][key] or DASH


ROWS = (
    (
        N_("Hardware"),
        (
            (N_("Device"), _device),
            (N_("Device type"), _device_type),
            (N_("CPU threads"), lambda d, loc: loc.fmt.number(d["environment"]["cpu_threads"], 0)),
        ),
    ),
    (
        N_("Software"),
        (
            (N_("PyTorch"), _env("torch")),
            (N_("CUDA"), _env("cuda")),
            (N_("ROCm (HIP)"), _env("hip")),
            (N_("Driver"), _env("driver")),
            (N_("Python"), _env("python")),
            (
                N_("Pilot"),
                lambda d, loc: " ".join(
                    filter(None, (d["environment"]["pilot_version"], (d["environment"]["git_revision"] or "")[:12]))
                ),
            ),
        ),
    ),
    (
        N_("Model and run"),
        (
            (N_("Model"), _model),
            (N_("Shape"), _shape),
            (N_("Method"), _method),
            # Shown as the pilot records it ("bf16", "fp32"): the same word in every language, and no calculator
            # input means the same thing (bf16 is autocast for a full fine-tune, the weights' type for LoRA).
            (N_("Precision"), lambda d, loc: d["config"]["train"]["precision"]),
            (N_("Optimizer"), _optimizer),
            (N_("Sequence length"), lambda d, loc: figure(d["config"]["train"]["seq_len"], "tokens", loc)),
            (N_("Micro-batch × accumulation"), _batch),
            (
                N_("Gradient checkpointing"),
                lambda d, loc: figure(d["config"]["train"]["grad_checkpointing"], "bool", loc),
            ),
            (N_("Timed steps"), _steps),
            (N_("Outcome"), _outcome),
        ),
    ),
    (
        N_("Memory"),
        (
            (N_("Peak allocated"), _mem("peak_tensor_bytes")),
            (N_("Traced peak"), _traced_peak),
            (N_("Peak reserved"), _mem("reserved_bytes")),
            (N_("Device memory at peak"), _device_memory),
            (N_("Process memory at peak"), _mem("rss_peak_bytes")),
            (N_("Calculator estimate"), _estimate),
        ),
    ),
    (
        N_("Time"),
        (
            (N_("Step time p50"), _timing(("step", "p50"), seconds)),
            (N_("Step time p95"), _timing(("step", "p95"), seconds)),
            (N_("Step time variation (CV)"), _timing(("step", "cv"), lambda v, loc: loc.fmt.percent_of(v))),
            (N_("Throughput"), _timing(("tokens_per_s",), lambda v, loc: figure(v, "tokens_per_s", loc))),
            (N_("Loading stalls"), _stalls),
            (N_("Time waiting for data"), _timing(("data_wait_fraction",), lambda v, loc: loc.fmt.percent_of(v))),
            (N_("Validation"), _validation),
            (N_("Checkpoint write"), _checkpoint),
            (N_("Restore verified"), _restore),
            # TRANSLATORS: row of the pilot runs table: the run each scaling efficiency is measured against.
            (N_("Scaling baseline"), _baseline),
            (N_("Scaling efficiency"), _scaling),
            # TRANSLATORS: row of the pilot runs table: the figures the guide says to act on (e.g. "loss growth").
            (NP_("pilot run", "Flags"), _flag_names),
        ),
    ),
)


def section_id(name: str, taken: set[str]) -> str:
    base = "run-" + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "file")
    anchor, i = base, 2
    while anchor in taken:
        anchor, i = f"{base}-{i}", i + 1
    taken.add(anchor)
    return anchor


def runs_table(runs, anchors, loc) -> str:
    # TRANSLATORS: column header over the pilot runs' names (a noun: one pilot run).
    t = loc.t
    run, caption = t(NP_("pilot run", "Run")), t(N_("Pilot runs"))
    head = f'<th scope="col">{escape(run)}</th>' + "".join(
        f'<th scope="col"><a href="#{a}">{isolate(data["label"] or name)}</a></th>'
        for (name, data), a in zip(runs, anchors)
    )
    body = []
    traces = any(_trace.is_trace(data) for _, data in runs)
    for group, rows in ROWS:
        rows = [r for r in rows if traces or r[1] is not _traced_peak]  # the row only where a trace is shown
        body.append(
            f'<tr class="guide-results__group"><th scope="colgroup" colspan="{len(runs) + 1}">{escape(t(group))}</th></tr>'
        )
        for label, cell in rows:
            cells = "".join(f"<td>{bdi(cell(data, loc))}</td>" for _, data in runs)
            body.append(f'<tr><th scope="row">{escape(t(label))}</th>{cells}</tr>')
    return scroll_region(
        f'<table class="guide-table guide-results__table">'
        f"<caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>",
        caption,
    )


def _list(title: str, items: list[str], cls: str) -> str:
    """`items`: lines already HTML (their values from the file isolated)."""
    if not items:
        return ""
    lis = "".join(f"<li>{i}</li>" for i in items)
    return f'<h4>{escape(title)}</h4><ul class="{cls}">{lis}</ul>'


def run_section(name: str, data: dict, anchor: str, loc: Localizer) -> str:
    t = loc.t
    file_label, error_label = t(N_("File")), t(N_("Error recorded"))
    parts = [
        f'<section class="guide-results__run" id="{anchor}"><h3>{isolate(data["label"] or name)}</h3>',
        f'<p class="guide-results__file">{escape(file_label)}: <code>{isolate(name)}</code> · '
        f"{timestamp_html(data['created'], loc.pack, t)}</p>",
    ]
    if _trace.is_trace(data):
        parts.append(_trace.badge(t))
    elif is_cpu(data):
        parts.append(cpu_badge(t))
    parts.append(partial_badge(data, loc))
    if data["note"]:
        parts.append(f'<p class="guide-results__note">{isolate(data["note"])}</p>')
    if data["outcome"]["error"]:
        parts.append(f'<p class="guide-results__error">{escape(error_label)}: {isolate(data["outcome"]["error"])}</p>')
    flagged = [escape(_flags.sentence(f, data, loc)) for f in _flags.all_flags(data)]
    parts.append(_list(t(N_("What to look at")), flagged, "guide-results__flags"))
    rows = comparisons(data)
    if _trace.is_trace(data):
        parts.append(
            comparison_table(rows, loc, t(N_("Peak memory: traced and estimated")))
            + _trace.breakdown(data, rows[0], loc)
        )
    elif rows:
        parts.append(comparison_table(rows, loc, t(N_("Peak memory per GPU: measured and estimated"))))
    parts.append(_charts.step_times(data, loc) + _charts.memory(rows, loc) + _charts.scaling(data, loc))
    restore = data.get("restore")
    if restore and restore["performed"]:
        parts.append(
            _list(
                t(N_("What the restore check verified")),
                _restore_lines.lines(restore, True, loc),
                "guide-results__verified",
            )
        )
        parts.append(
            _list(
                t(N_("What the restore check found different")),
                _restore_lines.lines(restore, False, loc),
                "guide-results__failures",
            )
        )
    parts.append("</section>")
    return "".join(parts)


def results_page(runs: list[tuple[str, dict]], pack: dict) -> str:
    """HTML for valid results (`parse()` them first), in the order given; deterministic."""
    loc = Localizer(pack)
    t = loc.t
    if not runs:
        empty = t(N_("No pilot results yet."))
        return f'<p class="guide-results__empty">{escape(empty)}</p>'
    runs = [(plain(name), plain_strings(data)) for name, data in runs]  # every file string, before any is shown
    taken: set[str] = set()
    anchors = [section_id(name, taken) for name, _ in runs]
    sections = "".join(run_section(name, data, a, loc) for (name, data), a in zip(runs, anchors))
    return f'<div class="guide-results">{runs_table(runs, anchors, loc)}{sections}</div>'
