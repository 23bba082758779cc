"""The form's inputs from a pilot result: the mapping itself is `calculators.pilot_inputs`, which the
pilot uses too. Only inputs the calculator declares are returned, and only values it accepts, so any
calculator can take a result.
"""

from __future__ import annotations

import calculators
from calculators.pilot_inputs import FILLED, result_inputs


def declared(name: str) -> set[str]:
    return {i["name"] for i in calculators.describe(name).get("inputs", [])}


def to_inputs(data: dict, name: str) -> dict:
    """Inputs for calculator `name` from a valid result; values it would refuse are left out."""
    names = declared(name)
    inputs = {k: v for k, v in result_inputs(data).items() if k in names}
    while inputs:
        response = calculators.compute(name, inputs)
        refused = {e.get("field") for e in response.get("errors", [])} & set(inputs)
        if response["ok"] or not refused:
            break
        for field in refused:
            del inputs[field]
    return inputs


def importable(name: str) -> bool:
    """Whether a result file has anything for calculator `name` (the page shows a picker if so)."""
    return bool(declared(name) & FILLED)
