"""The results' charts as inline SVG through the renderer's one bar chart: step times, memory, scaling."""

from __future__ import annotations

from calculators.pilot_inputs import untrusted
from guidekit.l10n import N_, Localizer, Translator, escape
from guidekit.render import bars_svg, figure

from ._estimate import COMPONENTS, Comparison
from ._html import seconds, strategy_label

STEP_STATS = (
    ("min", N_("Fastest")),
    ("p50", N_("Median (p50)")),
    ("mean", N_("Mean")),
    ("p95", N_("95th percentile")),
    ("max", N_("Slowest")),
)


def _chart(title: str, items: list[tuple[str, float, str]], t: Translator) -> str:
    if not items:
        return ""
    return (
        f'<figure class="guide-results__chart"><figcaption>{escape(title)}</figcaption>'
        f"{bars_svg(title, items, rtl=t.dir == 'rtl')}</figure>"
    )


def step_times(data: dict, loc: Localizer) -> str:
    """The distribution of step times; the file keeps its statistics, not every step."""
    t = loc.t
    title = t(N_("Step time"))
    if data.get("timing"):
        stats = data["timing"]["step"]
        items = [(t(label), stats[key], seconds(stats[key], loc)) for key, label in STEP_STATS]
        return _chart(title, items, t)
    if data.get("scaling"):
        items = []
        for run in (data["scaling"]["baseline"], *data["scaling"]["runs"]):
            name = strategy_label(Comparison(run["strategy"], run["world_size"], None), t)
            for key in ("p50", "p95"):
                label = t(N_("{name}: {statistic}"), name=name, statistic=key)
                items.append((label, run["step"][key], seconds(run["step"][key], loc)))
        return _chart(title, items, t)
    return ""


def memory(rows: list[Comparison], loc: Localizer) -> str:
    """Measured peak beside the estimate for each configuration, then the estimate's components."""
    t = loc.t
    items = []
    for row in rows:
        name = strategy_label(row, t)
        peak = N_("{name}: traced") if row.traced else N_("{name}: measured")
        for label, value in ((peak, row.measured), (N_("{name}: estimated"), row.estimated)):
            if value is not None:
                items.append((t(label, name=name), value, figure(value, "bytes", loc)))
    title = (
        N_("Peak memory: traced and estimated")
        if rows and rows[0].traced
        else N_("Peak memory per GPU: measured and estimated")
    )
    html = _chart(t(title), items, t)
    if rows and rows[0].components:
        parts = [(t(COMPONENTS.get(k, k)), v, figure(v, "bytes", loc)) for k, v in rows[0].components.items()]
        html += _chart(t(N_("Estimate by component ({name})"), name=strategy_label(rows[0], t)), parts, t)
    return html


def scaling(data: dict, loc: Localizer) -> str:
    t = loc.t
    if not data.get("scaling"):
        return ""
    items = []
    for run in data["scaling"]["runs"]:
        if untrusted(data, run):  # no bar for a figure the flags say not to use (the table says why)
            continue
        name = strategy_label(Comparison(run["strategy"], run["world_size"], None), t)
        items.append((name, run["efficiency"], figure(run["efficiency"], "percent", loc)))
    return _chart(t(N_("Scaling efficiency")), items, t)
