"""Pilot results on the site: word a result file's problems, render the results page, compare in a calculator.

The contract itself (schema, validator, reader) is `pilot.result`; `parse` and `validate` are re-exported.
A result as a calculator's inputs is `calculators.pilot_inputs`; `to_inputs` and `importable` are re-exported.

Standard library only, like `guidekit.render`: the build validates `results/*.json` with it
and the browser worker runs the very same code when a reader picks a file.
"""

from calculators.pilot_inputs import importable, to_inputs
from guidekit.l10n import N_
from pilot.result import MAX_BYTES, SchemaFeatureError, parse, supported_versions, validate

from ._compare import import_result, page_refusals, too_large
from ._html import choice_label
from ._messages import english, problem_message
from ._page import results_page

# The import box on a calculator's form: its title, and the input it follows (a reader who has a config.json
# starts at the model choice).
IMPORT_TITLE = N_("Compare with a pilot result file, or take a model's dimensions from its config.json")
IMPORT_BESIDE = "model"

# What the browser reads a dropped file with (the runtime keeps these in the site's wheel): this package,
# the config.json reader, and of the pilot only its result contract.
BROWSER_FILES = (
    "gpuguide/__init__.py",
    "gpuguide/model_config.py",
    "gpuguide/results/",
    "pilot/__init__.py",
    "pilot/result/",
)

__all__ = [
    "BROWSER_FILES",
    "IMPORT_BESIDE",
    "IMPORT_TITLE",
    "MAX_BYTES",
    "SchemaFeatureError",
    "choice_label",
    "english",
    "import_result",
    "importable",
    "page_refusals",
    "parse",
    "problem_message",
    "results_page",
    "supported_versions",
    "to_inputs",
    "too_large",
    "validate",
]
