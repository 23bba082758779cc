"""The one boundary: ``compute(name, inputs) -> dict``, plus the calculator registry.

A calculator is any object or module with ``NAME``, ``TITLE`` (msgid), ``INPUTS``
(tuple of ``Input``), ``run(values) -> dict`` and optionally ``check(values) ->
list[error]`` for cross-field rules, ``IMPORTER``, the name of the module that reads a file
the reader drops on its form (see `importer`; what it shows is that module's to decide), and
``FOOTNOTE``, a msgid shown under the form, ``TABLES``, {group msgid: `TableGroup`}: the
fieldsets laid out as tables, and ``CARRY``, the `Carry` links that take the same job to another calculator.
``compute`` never raises for bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ._errors import error
from ._inputs import Input, default_of, normalize
from .display import UNITS


class Calculator(Protocol):
    """What `register` requires of a calculator (a module, usually); the optional hooks are looked up."""

    @property
    def NAME(self) -> str: ...
    @property
    def TITLE(self) -> str: ...
    @property
    def INPUTS(self) -> tuple[Input, ...]: ...

    def run(self, values: dict[str, Any]) -> dict[str, Any]: ...


Figure = TypeVar("Figure", bound=Callable[[], object])

_CALCULATORS: dict[str, Calculator] = {}
_FIGURES: dict[str, tuple[Callable[[], object], str]] = {}  # name -> (function returning a value, display unit)


def register(calculator: Calculator) -> None:
    """Add (or replace) a calculator; it must declare NAME, TITLE, INPUTS and run()."""
    for attr in ("NAME", "TITLE", "INPUTS", "run"):
        if not hasattr(calculator, attr):
            raise TypeError(f"a calculator needs {attr}")
    unknown = [f"{inp.name} ({inp.unit!r})" for inp in calculator.INPUTS if inp.unit and inp.unit not in UNITS]
    if unknown:
        raise ValueError(
            f"{calculator.NAME}: unknown unit on {', '.join(unknown)}; "
            f"units are the keys of guidekit.calc.display.UNITS: {', '.join(UNITS)}"
        )
    if not isinstance(getattr(calculator, "IMPORTER", ""), str):
        raise TypeError(f"{calculator.NAME}: IMPORTER is a module name")
    _CALCULATORS[calculator.NAME] = calculator


def importer(name: str) -> str | None:
    """The module that reads a file dropped on this calculator's form, or None when it takes none.

    A module name, imported only when the page is built and when the reader first drops a file: it
    provides `MAX_BYTES`, `importable(name)`, `page_refusals(pack)`, `too_large(pack, size)` and
    `import_result(name, data, pack, current, pasted)`, the last two returning the panel as a dict."""
    return getattr(_CALCULATORS[name], "IMPORTER", None) or None


def names() -> list[str]:
    return list(_CALCULATORS)


def get(name: str) -> Calculator:
    return _CALCULATORS[name]


def _unknown(name: object) -> dict[str, Any]:
    return {"ok": False, "calculator": name, "errors": [error("calculator", "unknown_calculator", choices=names())]}


def describe(name: str) -> dict[str, Any]:
    """JSON-able description of a calculator and its inputs (drives the form)."""
    calc = _CALCULATORS.get(name) if isinstance(name, str) else None
    if calc is None:
        return _unknown(name)
    return {
        "name": calc.NAME,
        "title": calc.TITLE,
        # A note under the form (a msgid), e.g. what its units and prices mean; none by default.
        "footnote": getattr(calc, "FOOTNOTE", None),
        "inputs": [inp.describe() for inp in calc.INPUTS],
        # Fieldsets shown as a table of label, reference and field, by group msgid (calculator-table.html).
        "tables": {group: table.describe() for group, table in getattr(calc, "TABLES", {}).items()},
        # Links to another calculator's page with the same job (calculator.html, calculator-carry.js).
        "carry": [link.describe() for link in getattr(calc, "CARRY", ())],
    }


def compute(name: str, inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Validate ``inputs`` for calculator ``name`` and run it.

    Success: ``{"ok": True, "calculator", "inputs" (normalized, defaults filled), "result"}``.
    Failure: ``{"ok": False, "calculator", "errors": [{"field", "code", ...}], "accepted"}``, where
    ``accepted`` holds the normalized value of every input that passed (the page fills its form
    from it when the inputs came from a URL).
    """
    calc = _CALCULATORS.get(name) if isinstance(name, str) else None
    if calc is None:
        return _unknown(name)
    values, errors = normalize(calc.INPUTS, inputs)
    # Optional hook (extension): e.g. a model preset fills the dimension fields. It runs on failure
    # too (over defaults for the refused inputs), so `accepted` also describes the model used.
    prepare = getattr(calc, "prepare", None)
    if prepare is not None and values:
        prepared = prepare({**{i.name: default_of(i) for i in calc.INPUTS}, **values})
        values = {k: prepared[k] for k in values}
    if not errors and hasattr(calc, "check"):
        errors = calc.check(values)
    if errors:
        return {"ok": False, "calculator": name, "errors": errors, "accepted": values}
    return {"ok": True, "calculator": name, "inputs": values, "result": calc.run(values)}


def register_figure(name: str, unit: str) -> Callable[[Figure], Figure]:
    """Decorator: a named figure the guide's prose quotes (``<!-- figure: NAME -->``), computed
    by a calculator, so a sentence cannot drift from the model. ``unit`` is a display unit."""

    def add(function: Figure) -> Figure:
        if unit not in UNITS:
            raise ValueError(f"figure {name}: unknown unit {unit!r}; known: {', '.join(UNITS)}")
        _FIGURES[name] = (function, unit)
        return function

    return add


def _defaults() -> dict[str, Input]:
    """Every input's default is a figure too: ``CALCULATOR.default.INPUT``."""
    return {
        f"{name}.default.{i.name}": i
        for name, calc in _CALCULATORS.items()
        for i in calc.INPUTS
        if i.kind in ("int", "float") and i.default is not None
    }


def figure_names() -> list[str]:
    return sorted([*_FIGURES, *_defaults()])


def figure(name: str) -> dict[str, Any] | None:
    """``{"value", "unit"}`` of a registered figure or an input default, or None for an unknown name."""
    if name in _FIGURES:
        function, unit = _FIGURES[name]
        return {"value": function(), "unit": unit}
    inp = _defaults().get(name)
    return None if inp is None else {"value": inp.default, "unit": inp.unit or "number"}
