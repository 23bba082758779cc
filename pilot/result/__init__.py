"""The result file's contract, in one standard-library leaf: schema, version, validator, reader, problem codes.

The pilot writes result files and checks each one here before it leaves the machine; the site
(`gpuguide.results`) reads them with the same code at build time and in the reader's browser, and
only words the problems and draws the page. Nothing here imports the pilot, the renderers or the build.
"""

from guidekit.l10n import DATE_TIME

from ._codes import PROBLEM_CODES, TOP_LEVEL, TYPE_NAMES, UNKNOWN
from ._parse import MAX_BYTES, parse, problem, supported_versions, validate
from ._validator import SCHEMA_FILE, SchemaFeatureError, Validator, is_date_time, load_schema, validator

SCHEMA_VERSION = "1"

__all__ = [
    "DATE_TIME",
    "MAX_BYTES",
    "PROBLEM_CODES",
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "SchemaFeatureError",
    "TOP_LEVEL",
    "TYPE_NAMES",
    "UNKNOWN",
    "Validator",
    "is_date_time",
    "load_schema",
    "parse",
    "problem",
    "supported_versions",
    "validate",
    "validator",
]
