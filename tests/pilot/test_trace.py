"""The fake-tensor trace (pilot.trace) against the real CPU peak of the same run, and at full width
against the calculator, without allocating the model."""

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

from benchmarks.memory_accuracy import FAMILIES, GOAL, MATRIX, measure, pilot_config  # noqa: E402
from pilot.config import PilotConfig  # noqa: E402
from pilot.memory import process_rss_bytes  # noqa: E402
from pilot.trace import trace_step  # noqa: E402

FULL_WIDTH_GOAL = 0.03


def traced_and_measured(case, tmp_path) -> tuple[int, int]:
    config_file = tmp_path / f"{case.family}.json"
    config_file.write_text(json.dumps(FAMILIES[case.family]), encoding="utf-8")
    traced = trace_step(pilot_config(case, config_file))
    measured = measure(case, tmp_path)["measured_bytes"]
    print(
        f"{case.name}: traced {traced.peak_bytes} B, measured {measured} B, "
        f"{traced.peak_bytes / measured - 1:+.2%}; {traced}"
    )
    assert traced.peak_bytes == traced.parameters + traced.gradients + traced.optimizer_state + traced.other
    return traced.peak_bytes, measured


@pytest.mark.slow  # trains for real on the CPU
def test_a_tiny_lora_run_traces_within_goal_of_its_measured_peak(tmp_path):
    """LoRA through peft (whose adapter moves need the rebinding under fake tensors), bf16 autocast,
    dropout and checkpointing: the trace and the real CPU run of the same configuration."""
    case = MATRIX[6]
    assert case.family == "llama" and case.method == "lora" and case.ckpt
    traced, measured = traced_and_measured(case, tmp_path)
    assert abs(traced / measured - 1) <= GOAL


@pytest.mark.slow  # trains for real on the CPU
@pytest.mark.parametrize("autocast", [True, False], ids=["bf16+autocast", "bf16"])
def test_lora_on_wide_experts_is_estimated_within_goal_of_the_real_and_traced_peaks(tmp_path, autocast):
    """LoRA on a mixture of experts whose merged expert weights outweigh the tokens' activations, as at full size:
    the peak is down's merged-weight gradient with every activation still saved (gate_up's comes after down's
    saved merged weight is freed); peft computes B A in the weights' dtype, so there is no fp32 copy. Counting one
    overstated a full-size Mixtral 8x7B LoRA by 4 % (the reduced matrix never reached this regime)."""
    from benchmarks.memory_accuracy import Case
    from pilot.estimate import compare
    from pilot.trainer import resolved

    case = Case("mixtral-wide", "lora", "bf16", autocast, seq_len=64, micro_batch=1)
    traced, measured = traced_and_measured(case, tmp_path)
    assert abs(traced - measured) <= 64  # a few bytes: the real run's small host tensors
    cfg = resolved(pilot_config(case, tmp_path / f"{case.family}.json"))
    assert abs(compare(cfg, measured, "cpu").relative_error) <= FULL_WIDTH_GOAL


# Full and LoRA, fp32 and bf16 with and without autocast, dropout, checkpointing, eager and SDPA (grouped
# K/V heads without a mask, which the trace once missed), each optimizer path, Qwen2's biases and tied
# embeddings, Phi-3's fused projections, an activation-heavy run and a mixture of experts with LoRA on
# its routed experts.
VALIDATION = (MATRIX[0], MATRIX[1], MATRIX[4], MATRIX[13], MATRIX[22], MATRIX[28], MATRIX[33], MATRIX[51])


@pytest.mark.slow
@pytest.mark.parametrize("case", VALIDATION, ids=lambda c: c.name)
def test_the_trace_agrees_with_real_cpu_peaks(case, tmp_path):
    traced, measured = traced_and_measured(case, tmp_path)
    assert abs(traced / measured - 1) <= GOAL


@pytest.mark.slow
def test_a_llama_3_1_8b_full_fine_tune_traces_in_little_memory_and_matches_the_calculator():
    """The issue's check: bf16 weights, AdamW foreach, micro-batch 4 x 2,048, checkpointing; 74.79 GiB
    of tensors traced in a few hundred MB of RSS (about a minute on two cores)."""
    from calculators.pilot_inputs import tensor_peak
    from pilot.trainer import resolved

    cfg = PilotConfig(
        model={"source": "llama-3.1-8b", "dtype": "bf16"},
        train={
            "method": "full",
            "optimizer": "adamw",
            "optimizer_impl": "foreach",
            "micro_batch": 4,
            "seq_len": 2048,
            "grad_checkpointing": True,
        },
        device="cpu",
        restore_check=False,
    )
    model = resolved(cfg).model
    assert (model.hidden, model.layers, model.heads, model.kv_heads, model.intermediate, model.vocab) == (
        4096,
        32,
        32,
        8,
        14336,
        128256,
    )
    traced = trace_step(cfg)
    _, peak_rss = process_rss_bytes()
    estimate = tensor_peak(resolved(cfg).to_dict(), "cuda")["estimated_bytes"]
    print(
        f"traced {traced.peak_bytes / 2**30:.2f} GiB, estimate {estimate / 2**30:.2f} GiB, "
        f"peak RSS {peak_rss / 2**20:.0f} MiB; {traced}"
    )
    assert peak_rss < 2 * 2**30
    assert abs(traced.peak_bytes / estimate - 1) <= FULL_WIDTH_GOAL
    # The first optimizer step: weights, their gradients, AdamW's two moments and foreach's temporaries.
    assert traced.parameters - 1024 <= traced.gradients <= traced.parameters  # all but the rotary buffers
    assert traced.optimizer_state >= 2 * traced.gradients


# The reduced traced matrix: presets at their real width with two decoder layers each (the estimate is
# for the same two layers), a few seconds each. Two layers put the embedding and the head in front: a
# tied embedding's gradient sum at the end of the backward pass (Gemma 3, fp32, with and without
# gradient accumulation), soft-capped eager attention, shared and routed experts with LoRA, a 70B's width.
REDUCED = (
    ("llama-3.1-70b", "full", "bf16", True, True, 1),
    ("gemma-3-4b", "full", "fp32", False, True, 1),
    ("gemma-3-4b", "full", "fp32", False, True, 2),
    ("gemma-2-27b", "lora", "bf16", True, False, 1),
    ("qwen3-30b-a3b", "lora", "bf16", True, True, 1),
    ("qwen2-57b-a14b", "lora", "bf16", True, True, 1),
    ("mixtral-8x22b", "full", "bf16", True, True, 1),
    ("qwen3-0.6b", "full", "fp32", False, False, 1),
)


@pytest.mark.slow
@pytest.mark.parametrize("case", REDUCED, ids=lambda c: "-".join(map(str, c)))
def test_a_reduced_full_width_matrix_traces_within_3_percent_of_the_estimate(case, tmp_path):
    import dataclasses

    from benchmarks.memory_traced import (
        GOAL as TRACED_GOAL,
        TracedCase,
        config_json,
        estimate,
        pilot_config as traced_config,
    )
    from pilot.trainer import resolved

    *fields, accumulation = case
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps(config_json(fields[0], layers=2)), encoding="utf-8")
    cfg = traced_config(TracedCase(*fields), config_file)
    cfg = dataclasses.replace(cfg, train=dataclasses.replace(cfg.train, grad_accum=accumulation))
    traced = trace_step(cfg)
    row = estimate({"traced_bytes": traced.peak_bytes}, resolved(cfg))
    assert abs(row["relative_error"]) <= TRACED_GOAL, (row["relative_error"], traced)


def test_a_multimodal_wrapper_traces_through_its_vision_towers_initializer(tmp_path, capsys):
    """Issue 52 item 3: Gemma 3's published config.json (a `gemma3` wrapper: a `gemma3_text` model in
    `text_config` and a SigLIP vision tower) exited 70, "unexpected DataDependentOutputException": the
    tower's truncated-normal initializer reads a value back, which a fake tensor cannot give. This is its
    shape at a tiny width; the full 12B one traces too (13.2 B parameters, in about 45 s)."""
    from pilot import cli

    out = tmp_path / "trace.json"
    config = Path(__file__).parents[1] / "fixtures" / "hf-configs" / "gemma3-multimodal-tiny.json"
    assert cli.main(["trace", "--model-config", str(config), "-o", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["model"]["family"] == "gemma3" and result["trace"]["parameters"] > 0, result["model"]
    assert "traced (FakeTensorMode" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("config", "line"),
    [
        # Attack finding 18: "unexpected RuntimeError: Expected inputs of BF16 type" (exit 70).
        (
            {"model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2, "dtype": "float32"},
            "a mixture of experts is traced with bf16 weights",
        ),
        # A family the calculators do not read: transformers' own refusal, whole, on one line.
        (
            {"model_type": "gpt_neox", "num_attention_heads": 5},
            "transformers refuses this configuration: Class validation error for validator",
        ),
    ],
)
def test_a_config_transformers_or_the_fake_kernels_refuse_is_one_line_and_exit_1(tmp_path, capsys, config, line):
    from pilot import cli

    spec = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**spec, "intermediate_size": 128, "vocab_size": 100, **config}), encoding="utf-8")
    assert cli.main(["trace", "--model-config", str(path), "-o", str(tmp_path / "t.json")]) == 1
    err = capsys.readouterr().err
    assert line in err and err.count("\n") == 1, err
