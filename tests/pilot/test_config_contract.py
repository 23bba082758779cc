"""The pilot's configuration against the result contract's `$defs/config`: every enum and bound.

The configuration is copied into the result file, so what the pilot accepts and what the schema
allows must be the same set: a value the pilot takes and the schema refuses is a run whose file the
site refuses; the other way round, a run the reader cannot configure. Each probe sits on a bound or
just past it, and both sides must agree.
"""

from __future__ import annotations

import math

import pytest

from pilot.config import PilotConfig
from pilot.result import load_schema

# Options whose value the pilot also checks against something the schema cannot see, with why; only
# the probes past the schema's bounds are asserted for them (those must be refused either way).
OUTSIDE_ONLY = {
    "model.source": "must name a preset or an existing folder",
    "model.config_file": "must be an existing file, given without model.source",
    "data.source": "must be 'synthetic' or an existing file",
    "model.family": "the built-in model is a Llama",
    "model.head_dim": "the built-in model's head_dim is hidden / heads",
    "model.hidden": "must be divisible by heads",
    "model.heads": "must divide hidden and be divided by kv_heads",
    "model.kv_heads": "must divide heads",
    "model.experts": "only for transformers models",
    "model.experts_per_token": "only for transformers models",
    "model.shared_expert_intermediate": "only for transformers models",
    "model.router_aux_loss": "only for transformers models",
    "model.qkv_bias": "only for transformers models",
    "model.fused_projections": "only for transformers models",
    "warmup_steps": "the timed steps and warm-up bound each other through the checkpoint step",
}


def _leaves(node: dict, path: tuple[str, ...] = ()):
    if "properties" in node:
        for key, child in node["properties"].items():
            yield from _leaves(child, path + (key,))
    else:
        yield ".".join(path), node


LEAVES = dict(_leaves(load_schema()["$defs"]["config"]))


def _probes(spec: dict) -> list[tuple[object, bool]]:
    """(value, does the schema allow it) at each bound of `spec`."""
    if spec.get("type") == "array":
        return []  # train.lora_targets, probed by its own test
    if "enum" in spec:
        return [(v, True) for v in spec["enum"]] + [("not-a-choice", False)]
    kind = spec.get("type")
    if kind == "boolean":
        return [(True, True), (False, True), ("yes", False), (0, False)]
    if kind == "string":
        return [("x" * (spec["maxLength"] + 1), False), (7, False)]
    low, high = spec.get("minimum", -math.inf), spec.get("maximum", spec.get("exclusiveMaximum"))
    probes: list[tuple[object, bool]] = [(low, True), (low - 1, False), (True, False), ("1", False)]
    if "maximum" in spec:
        probes += [(high, True), (high + 1, False)]
    if "exclusiveMaximum" in spec:
        probes += [(high - 1e-9, True), (high, False)]
    if kind == "integer":
        probes.append((low + 0.5, False))
    return probes


def _accepts(name: str, value) -> bool:
    data: dict = {}
    *sections, key = name.split(".")
    target = data
    for section in sections:
        target = target.setdefault(section, {})
    target[key] = value
    try:
        PilotConfig.from_dict(data)
    except ValueError:
        return False
    return True


CASES = [
    (name, value, allowed)
    for name, spec in LEAVES.items()
    for value, allowed in _probes(spec)
    if allowed is False or name not in OUTSIDE_ONLY
]


@pytest.mark.parametrize(("name", "value", "allowed"), CASES, ids=[f"{n}={v!r:.20}" for n, v, _ in CASES])
def test_the_pilot_accepts_exactly_what_the_schema_allows(name, value, allowed):
    assert _accepts(name, value) is allowed


def test_every_lora_target_the_schema_names_is_accepted_alone_and_together():
    targets = LEAVES["train.lora_targets"]["items"]["enum"]
    for target in targets:
        assert _accepts("train.lora_targets", [target])
    assert _accepts("train.lora_targets", targets)
    assert not _accepts("train.lora_targets", [])
    assert not _accepts("train.lora_targets", ["embed"])


def test_the_lora_targets_are_one_list_in_the_pilot_the_schema_and_the_memory_model():
    from calculators.architecture import LINEARS
    from pilot.config import LORA_TARGETS

    assert LORA_TARGETS == LINEARS == tuple(LEAVES["train.lora_targets"]["items"]["enum"])


def test_every_config_option_is_in_the_schema_and_back():
    """A new option the schema does not describe would make every result file invalid."""
    written = PilotConfig().to_dict()
    flat = {
        f"{s}.{k}" if isinstance(v, dict) else s
        for s, v in written.items()
        for k in (v if isinstance(v, dict) else [s])
    }
    assert flat == set(LEAVES)
