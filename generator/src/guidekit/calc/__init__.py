"""The calculator framework: the registry and its one boundary, input declarations, display blocks.

Standard library only; runs in CPython and in Pyodide. ``compute(name, inputs) -> dict`` is the
boundary the build, the browser worker, a command line and the tests all call (see ``_registry``).
A guide's calculators declare their inputs with `Input`, answer with `display` blocks and are added
with `register`.
"""

from . import display, jsontext
from ._carry import Carry
from ._errors import ERROR_CODES, error, register_error_codes
from ._inputs import Choice, Input, TableGroup, active, normalize
from ._kept import kept, key_of
from ._registry import compute, describe, figure, figure_names, get, importer, names, register, register_figure
from ._units import UNITS, Unit, register_unit

__all__ = [
    "UNITS",
    "Unit",
    "register_unit",
    "ERROR_CODES",
    "Carry",
    "Choice",
    "Input",
    "TableGroup",
    "active",
    "compute",
    "describe",
    "display",
    "error",
    "figure",
    "figure_names",
    "get",
    "importer",
    "jsontext",
    "kept",
    "key_of",
    "names",
    "normalize",
    "register",
    "register_error_codes",
    "register_figure",
]
