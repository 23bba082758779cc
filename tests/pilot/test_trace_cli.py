"""`gpu-pilot trace`: a training step traced under fake tensors, written as a result file of kind 'trace'
that the result contract (and so the site) accepts; the mistakes refused before torch, in one line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from calculators.hf_config import MODEL_TYPES
from pilot import cli

from .test_fast_refusals import _cli, _made_up

CONFIGS = Path(__file__).parents[1] / "fixtures" / "hf-configs"
TINY = ["--model-config", str(CONFIGS / "llama-tiny.json"), "--micro-batch", "2", "--seq-len", "32"]


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """One tiny trace through the CLI, in this process: (exit code, its file, stdout, seconds)."""
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("trace")
    start = time.perf_counter()
    code = cli.main(["trace", *TINY, "--label", "tiny trace", "-o", str(folder)])
    return code, folder / "pilot-trace.json", time.perf_counter() - start


@pytest.mark.slow  # the imports and a tiny trace: about 6 s on two shared cores
def test_a_tiny_config_traces_to_a_valid_file_of_kind_trace(traced, validate):
    code, path, seconds = traced
    assert code == 0
    data = validate(json.loads(path.read_text(encoding="utf-8")))  # the site's reader: no problem
    assert data["kind"] == "trace" and data["label"] == "tiny trace"
    assert data["timing"] is data["memory"] is data["restore"] is data["scaling"] is None and data["losses"] == []
    assert data["environment"]["device_type"] == "cpu" and data["environment"]["packages"]["transformers"]
    assert data["model"]["family"] == "llama" and data["model"]["data_hash"] is None
    trace = data["trace"]
    assert trace["tracer"] == "FakeTensorMode" and trace["steps"] == 2 and trace["peak_step"] in (1, 2)
    parts = ("parameters", "gradients", "optimizer_state", "activations_and_temporaries")
    assert trace["peak_bytes"] == sum(trace[p] for p in parts) > 0
    # Every weight at its loaded dtype (the config's bfloat16), plus the rotary buffers.
    per_parameter = {"fp32": 4, "bf16": 2}[data["config"]["model"]["dtype"]]
    assert trace["parameters"] >= per_parameter * data["model"]["parameters"]
    # The comparison is the CPU estimate's (the trace counts a CPU run's tensors), the GPU one beside it.
    estimate = data["estimate"]
    assert estimate["available"] and estimate["measured_bytes"] == trace["peak_bytes"]
    assert estimate["calculator_inputs"]["optimizer_impl"] == "single_tensor"
    assert abs(estimate["relative_error"]) < 0.05 and trace["cuda_estimated_bytes"] > 0
    assert data["command"].startswith("gpu-pilot trace --model-config")
    print(f"traced in {seconds:.1f} s")


@pytest.mark.slow  # the imports and a tiny trace: about 6 s on two shared cores
def test_the_trace_file_passes_gpu_pilot_validate(traced, capsys):
    _, path, _ = traced
    assert cli.main(["validate", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"{path}: valid"


@pytest.mark.slow  # the imports and a tiny trace: about 6 s on two shared cores
def test_a_tampered_trace_file_is_refused_by_validate(traced, tmp_path, capsys):
    _, path, _ = traced
    data = json.loads(path.read_text(encoding="utf-8"))
    data["trace"]["peak_bytes"] = -1
    data["timing"] = {"step": {}}  # a trace times nothing
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert cli.main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "/trace/peak_bytes: expected a number ≥ 0" in out and "/timing: expected null" in out


def test_a_file_that_is_no_config_json_is_refused_before_torch(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"hidden_size": 64}), encoding="utf-8")
    imported, code, err = _cli("trace", "--model-config", str(path), "-o", str(tmp_path / "t.json"))
    assert (imported, code) == (False, 1)
    assert err == f"gpu-pilot: error: model {path}: no model_type, so not a Hugging Face config.json\n"


@pytest.mark.slow  # transformers decides, once imported
def test_a_model_type_transformers_cannot_build_as_a_causal_lm_is_one_line_naming_the_families(tmp_path):
    folder = _made_up(tmp_path / "model")
    imported, code, err = _cli("trace", "--model-config", str(folder / "config.json"), "-o", str(tmp_path / "t.json"))
    assert code == 1 and err.count("\n") == 1, err
    assert f"model {folder / 'config.json'}: model type 'made_up_family' is not a causal language model" in err
    # as a set: another test's monkeypatch.delitem puts its key back at the end of the dict
    assert set(err.rstrip("\n").partition("the memory calculator models ")[2].split(", ")) == set(MODEL_TYPES)
    assert not (tmp_path / "t.json").exists()


@pytest.mark.slow  # the imports and a tiny trace
def test_a_family_the_calculator_does_not_model_traces_with_the_reason_for_no_estimate(tmp_path, validate):
    """GPT-2: transformers builds it as a causal LM, the memory calculator has no model of it."""
    out = tmp_path / "gpt2.json"
    assert (
        cli.main(["trace", "--model-config", str(CONFIGS / "gpt2-tiny.json"), "--seq-len", "32", "-o", str(out)]) == 0
    )
    data = validate(json.loads(out.read_text(encoding="utf-8")))
    assert data["model"]["family"] == "gpt2" and data["config"]["model"]["layers"] == 2
    assert data["trace"]["peak_bytes"] > 0 and data["trace"]["cuda_estimated_bytes"] is None
    assert not data["estimate"]["available"] and "does not model 'gpt2' models" in data["estimate"]["reason"]


def test_the_shipped_trace_is_a_file_the_pilot_writes():
    """results/ ships a full-width trace: read back and written again by the report classes, unchanged."""
    from pilot.report import PilotResult

    data = json.loads(
        (Path(__file__).parents[2] / "results" / "trace-llama-3.1-8b-full.json").read_text(encoding="utf-8")
    )
    assert PilotResult.from_dict(data).to_dict() == data
    assert data["command"].startswith("gpu-pilot trace --model llama-3.1-8b")
    assert data["estimate"]["available"] and abs(data["estimate"]["relative_error"]) < 0.03


def test_an_existing_output_is_refused_before_torch(tmp_path):
    (tmp_path / "t.json").write_text("{}", encoding="utf-8")
    imported, code, err = _cli("trace", *TINY, "-o", str(tmp_path / "t.json"))
    assert (imported, code) == (False, 1)
    assert "already exists; pass --overwrite to replace it" in err


def test_trace_is_in_the_usage_and_its_help_names_what_it_does(capsys):
    with pytest.raises(SystemExit):
        cli.main(["trace", "--help"])
    out = capsys.readouterr().out
    assert "FakeTensorMode" in out and "exit codes: 0 done" in out and "--model-config" in out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "{run,scale,trace,validate}" in capsys.readouterr().out


@pytest.mark.slow  # a 0.5B model at its real width: about half a minute on two cores, a few hundred MB of memory
def test_a_preset_traces_at_full_width_and_the_site_imports_it_as_traced(tmp_path, validate):
    from gpuguide import results
    from guidekit.site.locale_pack import locale_pack

    out = tmp_path / "qwen.json"
    assert (
        cli.main(
            [
                "trace",
                "--model",
                "qwen2.5-0.5b",
                "--method",
                "lora",
                "--precision",
                "bf16",
                "--micro-batch",
                "2",
                "--seq-len",
                "1024",
                "--grad-checkpointing",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text(encoding="utf-8")
    data = validate(json.loads(text))
    assert data["config"]["model"]["layers"] == 24 and data["config"]["model"]["vocab"] > 150_000
    assert abs(data["estimate"]["relative_error"]) <= 0.03
    for code in ("es", "ja", "ar"):
        panel = results.import_result("memory", text, locale_pack(code, Path(__file__).parents[2] / "locales"))
        assert panel["ok"] and "guide-badge--traced" in panel["html"]
