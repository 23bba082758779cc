"""`<!-- catalog-table -->`: the GPU comparison table, generated from the calculators' catalog data
so no figure is typed twice; numbers go through the same CLDR formatter as the calculators."""

from __future__ import annotations

from markupsafe import Markup

import calculators
from guidekit.l10n import N_, NumberFormat
from guidekit.render import num

TIERS = {"datacenter": N_("Data centre"), "workstation": N_("Workstation"), "consumer": N_("Consumer")}


def _sources(gpus: list[dict]) -> list[dict]:
    """Each distinct source once, in table order."""
    seen: dict[str, dict] = {}
    for gpu in gpus:
        for source in gpu.get("sources", {}).values():
            seen.setdefault(source["url"], source)
    return list(seen.values())


def render_table(env, pack: dict) -> str:
    fmt = NumberFormat(pack)
    gpus = calculators.catalog()["gpus"]
    rows = [
        {
            "name": g["name"],
            "tier": TIERS.get(g["tier"], g["tier"]),
            # Figures as the calculators show them: isolated, each in the direction of its own script.
            "memory": Markup(num(fmt.unit("gb", g["memory_gb"], fmt.number(g["memory_gb"], 0)))),
            "bandwidth": Markup(num(fmt.number(g["bandwidth_gb_s"], 0) + " GB/s")),
            "bf16": Markup(num(fmt.number(g["bf16_dense_tflops"], 0) + " TFLOPS")),
            "interconnect": Markup(
                num(g["interconnect"]["name"] + " · " + fmt.number(g["interconnect"]["gb_s"], 0) + " GB/s")
            ),
            "stack": g["stack"],
        }
        for g in gpus
    ]
    return env.get_template("partials/catalog-table.html").render(rows=rows, sources=_sources(gpus))
