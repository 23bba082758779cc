"""The import graph the design depends on, read from the source (function-level imports included).

The calculators and the result contract run in the reader's browser, so they import only the
standard library (and the contract only the calculators' public i18n markers); calcui reaches the
pilot only through its result contract; nothing outside a package imports the contract's private
modules. A violation names the file, the line and the import.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def _imports(path: Path):
    """(line, absolute module name) of every import in `path`, relative ones resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(path.relative_to(ROOT).parts[:-1])
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
        yield from sorted((ROOT / folder).rglob("*.py"))


def _violations(files, allowed) -> list[str]:
    bad = []
    for path in files:
        for line, module in _imports(path):
            if not allowed(module):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    return sorted(set(bad))


def _private_part(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def test_the_calculators_import_only_the_standard_library_and_themselves():
    top = lambda m: m.split(".")[0]  # noqa: E731
    assert _violations(_files("calculators"), lambda m: top(m) in STDLIB or top(m) == "calculators") == []


# The cost calculator in layers, each importing only the layers before it: the formulas, the inputs, the
# quoting engine (which keys what it keeps by the inputs), the calculator (check, display, run). The
# catalog's price check reads the inputs' quantities and nothing above them.
COST_LAYERS = ("_cost_model", "_cost_inputs", "_cost_quote", "cost")


@pytest.mark.parametrize("module", [*COST_LAYERS[:-1], "_prices"])
def test_the_cost_calculators_layers_import_only_those_below(module):
    above = COST_LAYERS[COST_LAYERS.index(module) + 1 :] if module in COST_LAYERS else COST_LAYERS[2:]
    forbidden = tuple(f"calculators.{name}" for name in above)
    assert (
        _violations(
            [ROOT / "calculators" / f"{module}.py"],
            lambda m: not any(m == f or m.startswith(f + ".") for f in forbidden),
        )
        == []
    )


def test_the_result_contract_is_a_leaf():
    def allowed(module: str) -> bool:
        top = module.split(".")[0]
        return (
            top in STDLIB
            or module.startswith("pilot.result")
            or module
            in (
                "calculators",
                "calculators.N_",
                "calculators.NN_",
                "calculators.NP_",
                "calculators.jsontext",
                "calculators.jsontext.nesting_exceeds",
                "calculators.jsontext.loads",
            )
        )

    assert _violations(_files("pilot/result"), allowed) == []


def test_calcui_reaches_the_pilot_only_through_its_public_contract():
    def allowed(module: str) -> bool:
        if not module.startswith("pilot"):
            return True
        return module == "pilot.result" or (
            module.startswith("pilot.result.") and not _private_part(module[len("pilot.result.") :])
        )

    assert _violations(_files("calcui"), allowed) == []


PACKAGES = ("calcui", "calculators", "guidebuild", "pilot", "benchmarks")


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_another_packages_private_names(package):
    """Another package's `_x` is not its contract: what crosses a package boundary is public, in `__all__`.
    The result contract counts as a package of its own."""

    def home(path_or_module: str) -> str:
        parts = path_or_module.split(".")
        return "pilot.result" if parts[:2] == ["pilot", "result"] else parts[0]

    for path in _files(package):
        own = home(".".join(path.relative_to(ROOT).with_suffix("").parts))
        bad = [
            f"{path.relative_to(ROOT)}:{line}: imports {module}"
            for line, module in _imports(path)
            if home(module) in (*PACKAGES, "pilot.result")
            and home(module) != own
            and _private_part(module[len(home(module)) :])
        ]
        assert bad == []
