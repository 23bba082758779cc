"""Check a result against the schema the site uses (needs the optional `jsonschema` package)."""
from __future__ import annotations

from typing import Any

from . import load_schema


def schema_errors(data: Any) -> list[str]:
    """Readable schema violations; an empty list when the file is valid."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema(), format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]
