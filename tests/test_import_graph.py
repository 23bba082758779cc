"""The import graph the design depends on, read from the source (function-level imports included).

Two layers. The generator (`guidekit`) knows nothing of GPUs: its localization (`l10n`) is the bottom,
the calculator framework (`calc`) sits on it, the renderer (`render`) on both, and the build (`site`,
`runtime`, `i18n`) on top. This guide's calculators and the pilot's result contract run in the
reader's browser, so they import only the standard library and the generator's browser layers;
gpuguide reaches the pilot only through its result contract; nothing outside a package imports
another's private modules. A violation names the file, the line and the import.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = {"guidekit": ROOT / "generator" / "src"}  # where a package's folder lies, when not at the root
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def _folder(package: str) -> Path:
    top, _, rest = package.partition("/")
    return SRC.get(top, ROOT) / package


def _module_of(path: Path) -> list[str]:
    base = SRC["guidekit"] if path.is_relative_to(SRC["guidekit"]) else ROOT
    return list(path.relative_to(base).with_suffix("").parts)


def _imports(path: Path):
    """(line, absolute module name) of every import in `path`, relative ones resolved."""
    parts = _module_of(path)
    package = ".".join(parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:  # `from pilot import result` imports the module pilot.result
                yield node.lineno, f"{module}.{alias.name}"


def _files(*folders: str):
    for folder in folders:
        yield from sorted(_folder(folder).rglob("*.py"))


def _violations(files, allowed) -> list[str]:
    bad = []
    for path in files:
        for line, module in _imports(path):
            if not allowed(module):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    return sorted(set(bad))


def _private_part(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def _within(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in STDLIB


# Each layer of the generator and what it may import besides the standard library. Nothing of this
# guide: KNOWN_UPWARD would list an import that still names it (none is left).
GENERATOR_LAYERS = {
    "guidekit/l10n": ("guidekit.l10n",),
    "guidekit/calc": ("guidekit.calc", "guidekit.l10n"),
    "guidekit/render": ("guidekit.render", "guidekit.calc", "guidekit.l10n"),
}
GUIDE = ("calculators", "gpuguide", "pilot", "benchmarks")
KNOWN_UPWARD: dict[str, tuple[str, ...]] = {}


@pytest.mark.parametrize("layer", GENERATOR_LAYERS)
def test_each_generator_layer_imports_only_those_below(layer):
    bad = _violations(_files(layer), lambda m: _stdlib(m) or _within(m, *GENERATOR_LAYERS[layer], *GUIDE))
    assert bad == []


def test_the_generator_imports_nothing_of_this_guide():
    bad = []
    for path in _files("guidekit"):
        known = KNOWN_UPWARD.get(path.relative_to(ROOT).as_posix(), ())
        bad += [
            f"{path.relative_to(ROOT)}:{line}: imports {module}"
            for line, module in _imports(path)
            if _within(module, *GUIDE) and not _within(module, *known)
        ]
    assert sorted(set(bad)) == []


def test_the_calculators_import_only_the_standard_library_the_generators_browser_layers_and_themselves():
    allowed = lambda m: _stdlib(m) or _within(m, "calculators", "guidekit.calc", "guidekit.l10n")  # noqa: E731
    assert _violations(_files("calculators"), allowed) == []


# The cost calculator in layers, each importing only the layers before it: the formulas, the planner, the
# reader's own figures per card, the other inputs, the memory budget, the quoting engine (which keys what it keeps by the inputs), the answer and its
# ranking, the display, the calculator (check, run). The catalog's price check reads the inputs' quantities,
# and the planner's billing increments, and nothing above them.
COST_LAYERS = (
    "_cost_model",
    "_cost_plans",
    "_cost_own_inputs",
    "_cost_inputs",
    "_cost_budget",
    "_cost_quote",
    "_cost_rank",
    "_cost_display",
    "cost",
)
# The memory calculator in the same shape: the model, the inputs, the display, the calculator.
MEMORY_LAYERS = ("_memory_model", "_memory_inputs", "_memory_display", "memory")


@pytest.mark.parametrize("module", [*COST_LAYERS[:-1], "_prices"])
def test_the_cost_calculators_layers_import_only_those_below(module):
    above = COST_LAYERS[COST_LAYERS.index(module if module in COST_LAYERS else "_cost_inputs") + 1 :]
    forbidden = tuple(f"calculators.{name}" for name in above)
    assert (
        _violations(
            [ROOT / "calculators" / f"{module}.py"],
            lambda m: not any(m == f or m.startswith(f + ".") for f in forbidden),
        )
        == []
    )


@pytest.mark.parametrize("module", MEMORY_LAYERS[:-1])
def test_the_memory_calculators_layers_import_only_those_below(module):
    forbidden = tuple(f"calculators.{name}" for name in MEMORY_LAYERS[MEMORY_LAYERS.index(module) + 1 :])
    bad = _violations([ROOT / "calculators" / f"{module}.py"], lambda m: not _within(m, *forbidden))
    assert bad == []


def test_the_result_contract_is_a_leaf():
    def allowed(module: str) -> bool:
        top = module.split(".")[0]
        return (
            top in STDLIB
            or module == "guidekit.calc"
            or _within(module, "pilot.result", "guidekit.l10n", "guidekit.calc.jsontext")
        )

    assert _violations(_files("pilot/result"), allowed) == []


def test_gpuguide_reaches_the_pilot_only_through_its_public_contract():
    def allowed(module: str) -> bool:
        if not module.startswith("pilot"):
            return True
        return module == "pilot.result" or (
            module.startswith("pilot.result.") and not _private_part(module[len("pilot.result.") :])
        )

    assert _violations(_files("gpuguide"), allowed) == []


PACKAGES = ("guidekit", "calculators", "gpuguide", "pilot", "benchmarks")


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_another_packages_private_names(package):
    """Another package's `_x` is not its contract: what crosses a package boundary is public, in `__all__`.
    The result contract and each layer of the generator count as packages of their own."""

    def home(path_or_module: str) -> str:
        parts = path_or_module.split(".")
        return ".".join(parts[:2]) if parts[:2] == ["pilot", "result"] or parts[0] == "guidekit" else parts[0]

    for path in _files(package):
        own = home(".".join(_module_of(path)))
        bad = [
            f"{path.relative_to(ROOT)}:{line}: imports {module}"
            for line, module in _imports(path)
            if (home(module) in (*PACKAGES, "pilot.result") or home(module).startswith("guidekit."))
            and home(module) != own
            and _private_part(module[len(home(module)) :])
        ]
        assert bad == []
