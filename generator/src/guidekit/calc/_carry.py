"""A link from one calculator's answer to another calculator's page, holding the same job: the inputs the two
share (by name, or renamed where they call one input differently), so a reader never types a job twice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Carry:
    """On the answer of the calculator that declares it (`CARRY = (Carry(...),)`): a link labelled `label` (a
    msgid) to the page that places calculator `to`, whose address holds every input of this form that `to`
    also has, where it differs from `to`'s default. `rename` pairs (this form's name, `to`'s name) where the two
    call one input differently (the memory page's `gpus` is the cost page's `cards`)."""

    to: str
    label: str
    rename: tuple[tuple[str, str], ...] = ()

    def describe(self) -> dict[str, Any]:
        return {"to": self.to, "label": self.label, "rename": dict(self.rename)}
