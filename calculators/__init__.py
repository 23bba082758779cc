"""Fine-tuning calculators: training memory per GPU and fixed-term rental cost.

Pure Python, standard library only; runs in CPython 3.11+ and in Pyodide. The one
boundary is the framework's ``compute(name, inputs) -> dict`` (``guidekit.calc``), re-exported here.
"""

from guidekit.calc import (
    ERROR_CODES,
    Choice,
    Input,
    compute,
    describe,
    figure,
    figure_names,
    names,
    register,
    register_figure,
)
from guidekit.l10n import N_, NN_, NNP_, NP_

from . import (
    _units,  # noqa: F401  (declares this guide's units, before the calculators that use them)
    cost,
    memory,
)
from ._data import catalog, models
from ._prices import CatalogError, check_catalog

register(memory)
register(cost)
from . import figures  # noqa: E402  (registers the prose figures; needs the calculators above)

__all__ = [
    "ERROR_CODES",
    "CatalogError",
    "Choice",
    "Input",
    "N_",
    "NN_",
    "NNP_",
    "NP_",
    "catalog",
    "check_catalog",
    "compute",
    "cost",
    "describe",
    "figure",
    "figure_names",
    "figures",
    "memory",
    "models",
    "names",
    "register",
    "register_figure",
]
