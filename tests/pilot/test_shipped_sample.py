"""The labelled CPU sample the site ships (results/sample-cpu.json) is a file the current pilot writes.
The sample written before flags showed a 36 % step-time CV on the results page with no flag, and none
of the fields that reproduce a run; regenerate it with the `command` it records when these fail."""

from __future__ import annotations

import dataclasses
import json

from pilot import flags, model_source
from pilot.config import ModelConfig
from pilot.report import PilotResult
from tests.conftest import ROOT

SAMPLE = json.loads((ROOT / "results" / "sample-cpu.json").read_text(encoding="utf-8"))


def test_the_sample_has_every_field_the_pilot_writes():
    """Read back and written again by the pilot's own report classes, the file is unchanged: no field
    missing (a default would fill it in) and none the pilot no longer writes."""
    assert PilotResult.from_dict(SAMPLE).to_dict() == SAMPLE
    assert SAMPLE["command"].startswith("gpu-pilot run ") and SAMPLE["environment"]["git_revision"]


def test_the_sample_carries_the_flags_its_figures_raise():
    result = PilotResult.from_dict(SAMPLE)
    assert [dataclasses.asdict(f) for f in flags.evaluate(result)] == SAMPLE.get("flags")


def test_the_sample_traces_to_the_committed_model_config():
    config = ModelConfig(config_file=str(ROOT / SAMPLE["config"]["model"]["config_file"]))
    ident = model_source.identity(config)
    assert (ident.family, ident.config_sha256) == (SAMPLE["model"]["family"], SAMPLE["model"]["config_sha256"])
