"""gpu-pilot: the offline pilot benchmark that measures a real fine-tuning run on the machine you rented.

Needs only PyTorch and NumPy; writes one JSON result that follows `schema/result-v1.schema.json`.
"""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "schema_path", "load_schema"]


def schema_path() -> Path:
    """Path of the JSON Schema every result file follows (the site validates imports against it)."""
    return Path(str(resources.files(__name__) / "schema" / "result-v1.schema.json"))


def load_schema() -> dict[str, Any]:
    # Read through importlib.resources, not schema_path(): in the browser the package is imported
    # from the site's wheel as a zip archive, where the schema is no file of its own.
    return json.loads((resources.files(__name__) / "schema" / "result-v1.schema.json").read_text(encoding="utf-8"))
