"""Pilot results on the site: validate a result file, render the results page, compare in a calculator.

Standard library only, like the rest of `calcui`: the build validates `results/*.json` with it
and the browser worker runs the very same code when a reader picks a file.
"""

from ._compare import import_result, page_refusals, too_large
from ._pilot_inputs import importable, to_inputs
from ._messages import problem_message
from ._page import results_page
from ._parse import MAX_BYTES, parse, supported_versions, validate
from ._schema import SchemaFeatureError

__all__ = ["MAX_BYTES", "SchemaFeatureError", "import_result", "importable", "page_refusals", "parse", "problem_message",
           "results_page", "supported_versions", "to_inputs", "too_large", "validate"]
