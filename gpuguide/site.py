"""This guide's build extension (mkdocs.yml: plugins → guide → extensions → gpuguide.site).

Its markers place the guide's tables in pages: the GPU catalog, the public prices, the throughput and
memory accuracy matrices, and the pilot results page. Its checks run once per build, before any page:
the catalog's prices must be ones the cost calculator can read, the result files must follow the
contract, and a catalog price far outside the public band is a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import calculators
from guidekit.site import markers, sources_guard

from . import catalog_prices, results
from .markers import catalog_table, memory_accuracy, pilot_results, public_prices, throughput_accuracy

# Each option, its default (relative to mkdocs.yml) and what to do when it is missing.
OPTIONS = {
    "results_dir": (
        "results",
        "create the folder and put the files that `gpu-pilot run` writes there (an empty folder means no runs)",
    ),
    "accuracy_file": (
        "benchmarks/results/memory_accuracy.json",
        "run `python -m benchmarks.memory_accuracy` to write it",
    ),
    "traced_file": (
        "benchmarks/results/memory_traced.json",
        "run `python -m benchmarks.memory_accuracy --traced` to write it",
    ),
}


@dataclass(frozen=True)
class State:
    runs: list[tuple[str, dict]]  # validated pilot results, by path under results_dir
    accuracy_file: Path
    traced_file: Path


def _path(options: dict, name: str, root: Path, folder: bool) -> Path:
    default, fix = OPTIONS[name]
    path = root / str(options.get(name, default))
    if not (path.is_dir() if folder else path.is_file()):
        kind = "folder" if folder else "file"
        raise ValueError(f"option {name!r}: the {kind} '{path}' does not exist. Correct the path, or {fix}.")
    return path


def configure(options: dict, root: Path) -> State:
    if unknown := sorted(set(options) - set(OPTIONS)):
        raise ValueError(f"unknown option {', '.join(map(repr, unknown))}; expected {', '.join(OPTIONS)}")
    results_dir = _path(options, "results_dir", root, folder=True)
    # A link out of the results folder would publish (and parse) what it points at.
    if lines := sources_guard.outside_links(results_dir, root):
        raise ValueError("\n".join(lines))
    # A price the cost calculator could not read stops the build here, naming the fix, before any page
    # computes a price (the calculators do not check their catalog on import, in every browser).
    try:
        calculators.check_catalog()
    except calculators.CatalogError as exc:
        raise ValueError(str(exc)) from None
    return State(
        runs=pilot_results.load_runs(results_dir, root),
        accuracy_file=_path(options, "accuracy_file", root, folder=False),
        traced_file=_path(options, "traced_file", root, folder=False),
    )


def check(state: State) -> list[str]:
    """A catalog price far from the public median, or one that claims the median and is not, is flagged, not
    refused: the catalog is the owner's list."""
    catalog = calculators.catalog()
    try:
        prices = public_prices.load(catalog=catalog)
    except public_prices.PublicPricesError as exc:
        raise ValueError(str(exc)) from None
    return public_prices.outliers(prices, catalog) + catalog_prices.drift(catalog, prices)


def _state(ctx: markers.PageContext) -> State:
    return ctx.extensions[__name__]  # type: ignore[return-value]


def _memory_traced(match, ctx: markers.PageContext) -> str:
    presets = {m["id"]: m for m in calculators.models()["models"]}
    data = memory_accuracy.load(_state(ctx).traced_file, traced=True)
    return memory_accuracy.render_traced(ctx.env, ctx.pack, data, presets)


for _marker in (
    markers.block("catalog-table", lambda match, ctx: catalog_table.render_table(ctx.env, ctx.pack)),
    markers.block("pilot-results", lambda match, ctx: results.results_page(_state(ctx).runs, ctx.pack)),
    markers.block(
        "memory-accuracy",
        lambda match, ctx: memory_accuracy.render_table(
            ctx.env, ctx.pack, memory_accuracy.load(_state(ctx).accuracy_file)
        ),
    ),
    markers.block("memory-traced", _memory_traced),
    markers.block("throughput-accuracy", lambda match, ctx: throughput_accuracy.render_table(ctx.env, ctx.pack)),
    markers.block("public-prices", lambda match, ctx: public_prices.render_table(ctx.env, ctx.pack)),
):
    markers.register(_marker)

__all__ = ["OPTIONS", "State", "check", "configure"]
