"""The memory model against hand-worked cases from the published formulas."""

import random
from dataclasses import fields

import pytest
from calc_checks import ok_result, valid_edits_answered_as_from_nothing
from hypothesis import assume, given, settings, strategies as st

import calculators
from calculators import (
    _memory_model as memory_model,
    _memory_passes as memory_passes,
    _memory_run as memory_run,
    compute,
    memory,
)
from calculators._memory_model import quantized_bytes
from calculators.architecture import FAMILIES, LINEARS, Architecture

LLAMA8B = 8030261248
NO_OVERHEAD = {"framework_gb": 0, "fragmentation": 0}
# A tiny Llama-style model as the CPU pilot builds it.
TINY = {
    "model": "custom",
    "params": 0,
    "layers": 2,
    "hidden": 64,
    "heads": 4,
    "kv_heads": 2,
    "head_dim": 0,
    "intermediate": 128,
    "vocab": 256,
    "tied_embeddings": False,
    "qkv_bias": False,
    "method": "full",
    "weights_dtype": "fp32",
    "autocast": "off",
    "optimizer": "adamw",
    "seq_len": 8,
    "micro_batch": 2,
    "gradient_checkpointing": False,
    "attention": "fused",
    **NO_OVERHEAD,
}


def result(**inputs):
    return ok_result("memory", inputs)


def test_mixed_precision_adamw_is_16_bytes_per_param():
    """ZeRO (Rajbhandari et al. 2020) section 3.1: 2 + 2 + 12 = 16 bytes per parameter."""
    r = result(method="full", weights_dtype="bf16", master_weights=True, optimizer="adamw", **NO_OVERHEAD)
    b = r["bytes"]
    assert (b["weights"], b["gradients"], b["optimizer"]) == (2 * LLAMA8B, 2 * LLAMA8B, 12 * LLAMA8B)
    assert r["detail"]["master_weights"] == 4 * LLAMA8B


@pytest.mark.parametrize(
    "weights_dtype, master, optimizer, per_param",
    [
        ("fp32", True, "adamw", 4 + 4 + 8),  # fp32 training: master flag ignored
        ("fp32", False, "sgd_momentum", 4 + 4 + 4),
        ("bf16", False, "adamw", 2 + 2 + 4),  # states follow the bf16 parameters
        ("fp16", True, "sgd_momentum", 2 + 2 + 4 + 4),
    ],
)
def test_model_state_bytes_per_param(weights_dtype, master, optimizer, per_param):
    b = result(method="full", weights_dtype=weights_dtype, master_weights=master, optimizer=optimizer)["bytes"]
    assert b["weights"] + b["gradients"] + b["optimizer"] == per_param * LLAMA8B


def test_lora_count_llama_8b_rank_16_all_linear():
    r = result(model="llama-3.1-8b", method="lora", lora_rank=16)
    assert r["trainable_params"] == r["lora_params"] == 41_943_040


def test_lora_counts_gqa_shapes():
    arch = Architecture(32, 4096, 32, 8, 14336, 128256)
    # q: 16 * (4096 + 4096); k and v have 8 heads x 128 = 1024 outputs: 16 * (4096 + 1024)
    assert arch.lora_params(16, {"q"}) == 32 * 131072
    assert arch.lora_params(16, {"k"}) == arch.lora_params(16, {"v"}) == 32 * 81920
    assert arch.lora_params(8, {"q", "v"}) == 32 * 8 * (8192 + 5120)


@pytest.mark.parametrize(
    "preset, params",
    [
        ("llama-3.1-8b", 8030261248),
        ("llama-3.1-70b", 70553706496),
        ("mistral-7b-v0.3", 7248023552),
        ("qwen2.5-7b", 7615616512),
        ("qwen2.5-0.5b", 494032768),
        ("llama-3.2-1b", 1235814400),
    ],
)
def test_presets_match_published_counts(preset, params):
    r = result(model=preset)
    assert r["params"] == r["params_derived"] == params


def test_nf4_bytes():
    n = 4096 * 4096
    # 4 bits per weight + one fp32 absmax per 64 weights
    assert quantized_bytes(n, 4096, "nf4", False) == n // 2 + 4 * (n // 64)
    # double quant: 8-bit absmax per 64, one fp32 constant per 256 absmaxes
    assert quantized_bytes(n, 4096, "nf4", True) == n // 2 + n // 64 + 4 * (n // 64 // 256) == 8_654_848
    assert quantized_bytes(n, 4096, "int8", False) == n + 4 * 4096


def test_qlora_weights_quantize_linears_only():
    r = result(method="qlora", quant="nf4", double_quant=False)
    arch = Architecture(32, 4096, 32, 8, 14336, 128256)
    linear = sum(i * o for i, o in arch.linear_shapes().values()) * 32
    rest = LLAMA8B - linear
    # adapters in fp32, as peft keeps them on a 16-bit base
    assert r["bytes"]["weights"] == linear // 2 + 4 * linear // 64 + 2 * rest + 4 * 41_943_040


def test_activation_formula_tiny_config_by_hand():
    """s=8, b=2, h=64, a=4, kv=2 (d=16), I=128, p=4 bytes, full fine-tune, fused attention.

    per layer: two norms 2*(fp32 input 4*16*64 + 1/rms 4*16 + normalised output 4*16*64) = 16512;
    SiLU in/out + up 3*4*16*128 = 24576; q/k/v and gate/up inputs 2*4096; down input 8192;
    q,k,v 4*16*(64+32+32) = 8192; attention output 4096, which is o's input too (the kernel lays it
    out as (batch, tokens, heads, dim), so o reads it where it was written); log-sum-exp 4*16*4 = 256
    -> 70016.
    final norm (4096 + 64 + 4096) + LM-head input 4096 = 12352.
    """
    r = result(**TINY)
    assert r["detail"]["activations_per_layer"] == 70016
    assert r["bytes"]["activations"] == 2 * 70016 + 12352
    assert r["bytes"]["logits"] == 16 * 256 * 12
    ckpt = result(**{**TINY, "gradient_checkpointing": True})
    assert ckpt["bytes"]["activations"] == 2 * 4 * 16 * 64 + 70016 + 12352
    eager = result(**{**TINY, "attention": "eager"})
    # eager: q, k, v expanded to 4 heads (3*4*16*64) + fp32 softmax probabilities 4*s^2*b*a; o's input stays
    assert eager["detail"]["activations_per_layer"] == 70016 - (8192 + 256) + 12288 + 4 * 8 * 8 * 2 * 4


def test_norms_in_bf16_save_an_fp32_input_and_the_output_only_when_they_learn():
    """bf16: each norm saves its fp32 input copy 4*16*64 + 1/rms 4*16, plus (full) the bf16 output 2*16*64."""
    full = result(**{**TINY, "weights_dtype": "bf16"})["detail"]["activations_per_layer"]
    lora = result(
        **{
            **TINY,
            "weights_dtype": "bf16",
            "method": "lora",
            "lora_rank": 2,
            "lora_targets": "q",
            "adapter_dtype": "weights",
        }
    )
    rest = 3 * 2 * 16 * 128 + 2 * 16 * 64 * 2 + 2 * 16 * 128 + 2 * 16 * 128 + 2 * 16 * 64 + 4 * 16 * 4
    assert full == 2 * (4096 + 64 + 2048) + rest
    # LoRA on q only: q's input and the rank-2 A output; no o, gate/up or down inputs, no norm outputs
    assert (
        lora["detail"]["activations_per_layer"]
        == 2 * (4096 + 64) + 3 * 2 * 16 * 128 + 2 * 16 * 64 + 2 * 16 * 128 + 2 * 16 * 64 + 4 * 16 * 4 + 2 * 16 * 2
    )


def test_tiny_fp32_no_master_exact_model_states():
    r = result(**TINY)
    params = r["params"]
    # embed 256*64 + lm_head 256*64 + 2 layers*(q 64*64 + k,v 64*32 + o 64*64 + 3*64*128 + 2*64) + 64
    assert params == 2 * 16384 + 2 * (4096 + 2 * 2048 + 4096 + 24576 + 128) + 64
    assert r["bytes"]["weights"] == r["bytes"]["gradients"] == 4 * params
    assert r["bytes"]["optimizer"] == 8 * params and r["detail"]["master_weights"] == 0
    assert set(r["bytes"]) == {"weights", "gradients", "optimizer", "activations", "logits", "temporary", "framework"}
    tied = result(**{**TINY, "tied_embeddings": True})
    assert tied["params"] == params - 16384


def test_lora_frozen_linears_keep_no_inputs():
    full = result(**TINY)["detail"]["activations_per_layer"]
    lora_qv = result(**{**TINY, "method": "lora", "lora_rank": 2, "lora_targets": "q,v"})
    # drops down input 8192, gate/up input 4096 and the two norm outputs 2 * 4096 (frozen norm weights);
    # the attention's output, o's input, stays (the kernel saves it); adds A outputs 2 * 4*16*2
    assert lora_qv["detail"]["activations_per_layer"] == full - 12288 - 8192 + 256


N = 4
P = 7_500_000_000  # ZeRO paper Figure 1: 7.5B parameters


@pytest.mark.parametrize(
    "mode, weights, grads, optim",
    [
        ("ddp", 2 * P, 2 * P, 12 * P),
        ("zero1", 2 * P, 2 * P, 12 * P // N),
        ("zero2", 2 * P, 2 * P // N, 12 * P // N),
        ("fsdp", 2 * P // N, 2 * P // N, 12 * P // N),
    ],
)
def test_sharding_by_stage(mode, weights, grads, optim):
    r = result(
        model="custom",
        params=P,
        layers=2,
        hidden=64,
        heads=4,
        kv_heads=4,
        intermediate=128,
        vocab=256,
        method="full",
        parallelism=mode,
        gpus=N,
        **NO_OVERHEAD,
    )
    assert (r["bytes"]["weights"], r["bytes"]["gradients"], r["bytes"]["optimizer"]) == (weights, grads, optim)


def test_the_sharded_modes_are_the_memory_models_and_parallelism_choices():
    """One home: the modes that shard are read from the memory model's SHARDS, and each is a form choice."""
    choices = {c.value for c in next(i for i in memory.INPUTS if i.name == "parallelism").choices}
    assert memory.SHARDED_MODES == set().union(*memory_run.SHARDS.values()) == {"zero1", "zero2", "fsdp"}
    assert memory.SHARDED_MODES < choices
    assert memory.card_counts("ddp") == [1] and all(len(memory.card_counts(m)) > 1 for m in memory.SHARDED_MODES)


def test_zero_paper_figure_1_model_states_at_64_gpus():
    """Figure 1: 120 GB baseline; 31.4 GB (P_os), 16.6 GB (P_os+g), 1.9 GB (P_os+g+p) per GPU."""
    got = {}
    for mode in ("ddp", "zero1", "zero2", "fsdp"):
        b = result(
            model="custom",
            params=P,
            layers=2,
            hidden=64,
            heads=4,
            kv_heads=4,
            intermediate=128,
            vocab=256,
            method="full",
            parallelism=mode,
            gpus=64,
        )["bytes"]
        got[mode] = round((b["weights"] + b["gradients"] + b["optimizer"]) / 1e9, 1)
    assert got == {"ddp": 120.0, "zero1": 31.4, "zero2": 16.6, "fsdp": 1.9}


def test_ddp_buckets_and_fsdp_gather_are_temporary():
    ddp = result(method="full", parallelism="ddp", gpus=2, **NO_OVERHEAD)
    assert ddp["detail"]["ddp_buckets"] == ddp["bytes"]["gradients"]
    fsdp = result(method="full", parallelism="fsdp", gpus=2, **NO_OVERHEAD)
    assert fsdp["detail"]["fsdp_gather"] > 0 and fsdp["bytes"]["weights"] == LLAMA8B


def test_framework_terms():
    r = result(framework_gb=2.0, fragmentation=0.25)
    tensors = r["per_gpu_bytes"] - r["bytes"]["framework"]
    assert r["detail"]["context"] == 2_000_000_000
    assert r["bytes"]["framework"] == 2_000_000_000 + r["detail"]["fragmentation"]
    assert abs(r["detail"]["fragmentation"] - 0.25 * tensors) <= 1


TINY_PARAMS = 106816
TINY_ACTS, TINY_LOGITS = 2 * 70016 + 12352, 16 * 256 * 12
# As the backward pass reaches the first block: that block's activations and the MLP's two transient
# intermediates, beside the fp32 gradients of everything after it (the second block, the head and the final
# norm) and of the first block's down projection; the untied embedding's gradient comes last.
TINY_BLOCK, TINY_DOWN, TINY_EMBEDDING = 36992, 128 * 64, 256 * 64
TINY_FIRST_BLOCK = 70016 + 2 * 4 * 16 * 128 + 4 * (TINY_PARAMS - TINY_BLOCK + TINY_DOWN - TINY_EMBEDDING)


@pytest.mark.parametrize(
    "impl, step_temp",
    [
        ("fused", 0),
        ("foreach", 4 * TINY_PARAMS),
        ("single_tensor", 2 * 4 * 256 * 64),  # largest: embedding
    ],
)
def test_peak_is_the_larger_phase_not_the_sum(impl, step_temp):
    """Weights + optimizer + max(gradients + step temporaries, the passes), where the passes peak where they
    start (activations + logits) or at the first block's backward (its activations + the gradients so far)."""
    r = result(**{**TINY, "optimizer_impl": impl})
    b, d = r["bytes"], r["detail"]
    assert d["optimizer_step"] == step_temp and b["temporary"] == step_temp
    assert TINY_FIRST_BLOCK > TINY_ACTS + TINY_LOGITS  # few tokens, so the gradients decide
    assert d["peak_forward_backward"] == 12 * TINY_PARAMS + TINY_FIRST_BLOCK
    assert d["peak_optimizer_step"] == 16 * TINY_PARAMS + step_temp
    assert r["per_gpu_bytes"] == max(d["peak_forward_backward"], d["peak_optimizer_step"])
    assert r["per_gpu_bytes"] < sum(b.values())


def test_long_sequences_peak_in_the_backward_pass():
    r = result(**{**TINY, "optimizer_impl": "fused", "seq_len": 64})
    d = r["detail"]
    assert d["peak_forward_backward"] > d["peak_optimizer_step"] == r["bytes"]["weights"] * 4
    assert (
        r["per_gpu_bytes"]
        == d["peak_forward_backward"]
        == 12 * TINY_PARAMS + r["bytes"]["activations"] + r["bytes"]["logits"]
    )


def test_gradient_accumulation_keeps_gradients_in_both_phases():
    r = result(**{**TINY, "optimizer_impl": "foreach", "grad_accumulation": True})
    d = r["detail"]
    assert d["peak_forward_backward"] == 16 * TINY_PARAMS + TINY_ACTS + TINY_LOGITS
    assert d["peak_optimizer_step"] == 16 * TINY_PARAMS + 4 * TINY_PARAMS


def test_checkpointing_frees_the_logits_before_recomputing_a_block():
    """Block inputs + max(head + logits, one recomputed block + its backward transients), not their sum.

    In fp32 the recomputed block's first norm saves the checkpointed input itself (4*16*64, not counted
    twice); the MLP's backward holds two more intermediates, 2*4*16*128.
    """
    r = result(**{**TINY, "optimizer_impl": "fused", "gradient_checkpointing": True, "micro_batch": 128})
    sb, k = 8 * 128, 64  # tokens, and how many times TINY's 16
    block = 70016 * k - 4 * sb * 64 + 2 * 4 * sb * 128
    passes = 2 * 4 * sb * 64 + max(12352 * k + TINY_LOGITS * k, block)
    # the first block's backward: its input (the embedding's output), its recomputed block and transients
    first = 4 * sb * 64 + block + 4 * (TINY_PARAMS - TINY_BLOCK + TINY_DOWN - TINY_EMBEDDING)
    assert passes > first  # enough tokens that the passes' start is the peak
    assert r["detail"]["peak_forward_backward"] == 12 * TINY_PARAMS + passes
    assert block > 12352 * k + TINY_LOGITS * k  # activations outweigh the logits here
    longer = result(**{**TINY, "optimizer_impl": "fused", "gradient_checkpointing": True, "vocab": 8192})
    logits, params = 16 * 8192 * 12, longer["params"]
    start = 2 * 4 * 16 * 64 + 12352 + logits
    end = 4 * 16 * 64 + (70016 - 4 * 16 * 64 + 2 * 4 * 16 * 128) + 4 * (params - TINY_BLOCK + TINY_DOWN - 8192 * 64)
    assert longer["detail"]["peak_forward_backward"] == 12 * params + max(start, end)


def test_optimizer_step_temporaries_shard_with_the_states():
    one = result(method="full", parallelism="zero1", gpus=1, optimizer_impl="foreach", **NO_OVERHEAD)["detail"][
        "optimizer_step"
    ]
    four = result(method="full", parallelism="zero1", gpus=4, optimizer_impl="foreach", **NO_OVERHEAD)["detail"][
        "optimizer_step"
    ]
    assert one == 4 * LLAMA8B and four == LLAMA8B
    assert result(method="full", optimizer="adamw_8bit")["detail"]["optimizer_step"] == 0
    assert result(method="full", optimizer="sgd_momentum")["detail"]["optimizer_step"] == 0
    # Adafactor: squared gradient and factored update of the largest tensor (embedding), fp32
    assert result(method="full", optimizer="adafactor")["detail"]["optimizer_step"] == 2 * 4 * 128256 * 4096


def test_overlap_is_explained_in_a_note():
    r = result(**TINY)
    note = next(n for n in r["display"][-1]["items"] if "{forward_backward}" in n["msg"])
    assert note["params"]["forward_backward"]["value"] == r["detail"]["peak_forward_backward"]
    assert note["params"]["optimizer_step"]["value"] == r["detail"]["peak_optimizer_step"]


def _figure(**inputs):
    return result(**inputs)["per_gpu_bytes"]


def test_verdict_comes_first_and_names_the_chosen_card():
    r = result()  # LoRA on Llama 3.1 8B fits one H100 80 GB
    v = r["display"][0]
    assert v["kind"] == "verdict" and v["status"] == "ok" and v["msg"].startswith("Fits on")
    assert v["params"]["gpu"] == "H100 SXM 80 GB" and v["params"]["count"]["value"] == 1
    assert v["params"]["free"]["value"] == 80e9 - r["per_gpu_bytes"]
    assert v["params"]["needed"]["value"] == r["per_gpu_bytes"]
    assert result(gpu="rtx-4090-24gb")["display"][0]["status"] == "bad"


def test_a_run_that_does_not_fit_lists_what_fits_and_each_lever_is_the_estimate_rerun():
    """Issue 33's example: LoRA at 8192 tokens needs 84.7 GB, over an H100's 72 GB after the reserve."""
    inputs = {"seq_len": 8192}
    r = result(**inputs)
    v, a = r["display"][0], r["answer"]
    assert v["status"] == "bad" and not a["fits"] and a["usable_bytes"] == 72e9
    options = [
        (o["msg"], {k: p["value"] if isinstance(p, dict) else p for k, p in o["params"].items()})
        for o in v["params"]["options"]["items"]
    ]
    assert options[0] == ("{count} × {gpu}", {"count": 1, "gpu": "H200 SXM 141 GB"})  # the smallest setup
    # and the cheapest per hour at the catalog's on-demand prices, where it is another (issue 51 item 2)
    assert options[1] == ("{count} × {gpu} (the cheapest per hour)", {"count": 1, "gpu": "MI300X 192 GB"})
    assert r["cheapest"]["usd_per_hour"] == min(
        calculators._data.hourly_price(g["gpu"]) for g in r["gpu_fit"] if g["min_count"] == 1
    )
    levers = {lv["lever"]: lv for lv in a["levers"]}
    assert set(levers) == {"fused_loss", "micro_batch", "fsdp"}  # checkpointing is already on
    assert levers["fused_loss"]["bytes"] == _figure(**inputs, loss="fused")
    assert levers["micro_batch"] == {
        "lever": "micro_batch",
        "bytes": _figure(**inputs, micro_batch=2),
        "fits": True,
        "fits_elsewhere": None,  # it fits this card: no other is named
        "batch": 2,
    }  # 4 -> 2: the largest smaller one that fits
    fsdp = levers["fsdp"]
    assert fsdp["bytes"] == _figure(**inputs, parallelism="fsdp", gpus=fsdp["count"]) <= 72e9
    assert _figure(**inputs, parallelism="fsdp", gpus=fsdp["count"] // 2) > 72e9  # the fewest cards that fit
    assert [lv["lever"] for lv in a["levers"] if lv["fits"]] == [m for m in ("fused_loss", "micro_batch", "fsdp")]
    assert len(options) == 5
    lever_block = r["display"][1]  # right under the sentence: each lever is a fix to apply
    assert lever_block["kind"] == "notes" and lever_block["title"] == "What lowers the memory per GPU on this card"
    assert all(item["apply"] for item in lever_block["items"])


def test_levers_that_leave_the_peak_alone_are_not_offered():
    """A full fine-tune whose foreach step holds a copy of every gradient peaks in that step: the fused loss and
    a smaller micro-batch change nothing. With the fused step (no copy), the first block's backward pass is the
    peak by a little, and a smaller micro-batch is offered, since the block's activations shrink with it."""
    r = result(method="full", optimizer_impl="foreach")
    assert [lv["lever"] for lv in r["answer"]["levers"]] == ["fsdp"]
    assert all(lv["bytes"] < r["per_gpu_bytes"] for lv in r["answer"]["levers"])
    fused = result(method="full")
    assert fused["detail"]["peak_forward_backward"] > fused["detail"]["peak_optimizer_step"]
    assert [lv["lever"] for lv in fused["answer"]["levers"]] == ["micro_batch", "fsdp"]
    smaller = next(lv for lv in fused["answer"]["levers"] if lv["lever"] == "micro_batch")
    assert fused["detail"]["peak_optimizer_step"] <= smaller["bytes"] < fused["per_gpu_bytes"]


def test_verdict_when_nothing_fits():
    r = result(model="llama-3.1-70b", method="full", gpu="rtx-4090-24gb", micro_batch=1, loss="fused")
    assert r["smallest"] is None
    v = r["display"][0]
    if r["answer"]["levers"]:  # FSDP across many 24 GB cards can still fit
        assert "{options}" in v["msg"]
    else:
        assert v["msg"].endswith("no catalog GPU fits it with these settings.")


def test_the_master_copy_note_says_what_it_adds_here():
    """Issue 33: switching the copy off took a 1.5B full fine-tune from 42.1 to 28.5 GB; the result says so."""
    r = result(method="full")
    added = r["per_gpu_bytes"] - _figure(method="full", master_weights=False)
    assert added > 0 and r["answer"]["master_copy_bytes"] == added
    note = next(n for n in r["display"][-1]["items"] if n["msg"].startswith("The fp32 master copy adds"))
    assert note["params"]["bytes"]["value"] == added
    assert "master_copy_bytes" not in result(method="full", master_weights=False)["answer"]


def test_the_smallest_setup_tile_names_its_card():
    """A bare green "1" read as one of the card the reader chose (issue 33, item 4)."""
    head = next(b for b in result(seq_len=8192)["display"] if b["kind"] == "metrics")
    tile = next(i for i in head["items"] if i["label"] == "Smallest setup that fits")
    assert tile["value"] == "1 × H200 SXM 141 GB" and tile["status"] == "ok"


@pytest.mark.parametrize(
    ("inputs", "limit", "module"),
    [
        ({}, 1024, "k_proj"),  # Llama 3.1 8B: k and v project 4096 -> 1024
        ({**TINY, "method": "lora"}, 32, "k_proj"),  # 2 kv heads of 16
        ({**TINY, "method": "lora", "lora_targets": ["gate", "down"]}, 64, "gate_proj"),
    ],
)
def test_lora_rank_above_the_smallest_adapted_dimension_is_refused(inputs, limit, module):
    """The pilot's rule (pilot.checks.check_lora_rank), from the same function: issue 33 saw rank 4096
    accepted with a trainable share of 233.5 %."""
    assert compute("memory", {**inputs, "lora_rank": limit})["ok"]
    answer = compute("memory", {**inputs, "lora_rank": limit + 1})
    assert answer["errors"] == [{"field": "lora_rank", "code": "lora_rank_too_high", "limit": limit, "module": module}]


def test_fit_table_and_smallest_configuration():
    r = result(model="llama-3.1-70b", method="full", parallelism="fsdp", gpus=8)
    fit = {g["gpu"]: g for g in r["gpu_fit"]}
    assert set(fit) >= {"a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb", "mi300x-192gb"}
    for g in fit.values():
        assert g["fits"] == (r["per_gpu_bytes"] <= g["memory_bytes"] * 0.9)
        assert g["headroom_bytes"] == g["memory_bytes"] - r["per_gpu_bytes"]
    smallest = r["smallest"]
    assert smallest["count"] == min(g["min_count"] for g in fit.values() if g["min_count"])
    single = result(model="llama-3.1-70b", method="full")
    assert single["smallest"] is None  # 70B full fine-tune fits no single card


def test_fit_table_shows_the_answer_before_the_breakdown():
    """On a phone the first columns are what is read: whether it fits, how many cards, the headroom;
    each row's cells stay under their own header."""
    r = result(model="llama-3.1-70b", method="full", parallelism="fsdp", gpus=8)
    table = next(b for b in r["display"] if b.get("title") == "Which GPUs fit")
    labels = [c["label"] for c in table["columns"]]
    assert labels == ["GPU", "Fits with the reserve", "Cards needed", "Free memory", "Free share", "Memory"]
    for row, g in zip(table["rows"], r["gpu_fit"], strict=True):
        assert row == [
            g["short_name"],
            g["fits"],
            g["min_count"],
            g["headroom_bytes"],
            g["headroom_fraction"],
            g["memory_bytes"] / 1e9,
        ]


def test_shortcuts_are_lower_bounds_here():
    r = result(method="full")
    items = {i["rule"]: i for i in r["shortcuts"]["items"]}
    assert items["params_x_precision"]["bytes"] == 2 * LLAMA8B
    assert items["plus_40_percent"]["bytes"] == round(2.8 * LLAMA8B)
    for i in items.values():
        assert i["difference_bytes"] == i["bytes"] - r["shortcuts"]["single_gpu_bytes"] < 0
    assert result(method="qlora")["shortcuts"]["bytes_per_param"] == 0.5


def test_params_below_the_architecture_are_not_used():
    r = result(model="custom", params=1000)
    assert r["params"] == r["params_derived"] == LLAMA8B
    notes = r["display"][-1]["items"]
    assert any("{derived}" in n["msg"]["msgid"] for n in notes if isinstance(n["msg"], dict))


def _reads(run, part) -> set:
    """The fields of `run` that `part(run)` reads, its properties' reads included."""
    names, seen = {f.name for f in fields(run)}, set()

    class Recording(type(run)):
        def __getattribute__(self, name):
            if name in names:
                seen.add(name)
            return super().__getattribute__(name)

    part(Recording(**{f.name: getattr(run, f.name) for f in fields(run)}))
    return seen


def test_each_kept_part_of_the_budget_is_keyed_by_every_field_it_reads():
    """`unsharded` keeps the model states and the passes' figures across calls, keyed by the fields
    listed for each: a field one of them reads but its key lacks would serve a stale figure."""
    choices = {
        "method": ["full", "lora", "qlora"],
        "optimizer": ["adamw", "adamw_8bit", "sgd_momentum", "adafactor"],
        "optimizer_impl": list(memory_run.OPTIMIZER_IMPLS),
        "weights_dtype": list(memory_run.DTYPES),
        "autocast": ["off", "bf16", "fp16"],
        "quant": ["nf4", "int8"],
        "adapter_dtype": ["fp32", "weights"],
        "attention": ["fused", "eager"],
        "loss": ["standard", "fused"],
        "gradient_checkpointing": [True, False],
        "master_weights": [True, False],
        "lora_dropout": [0.0, 0.1],
        "double_quant": [True, False],
        "model": ["llama-3.1-8b", "qwen2.5-0.5b", "gemma-2-9b", "qwen1.5-moe-a2.7b", "custom"],
        "parallelism": ["single", "ddp", "fsdp"],
        "fused_projections": [True, False],
        "qkv_bias": [True, False],
        "family": list(FAMILIES),
        "router_aux_loss": [True, False],
        "lora_targets": [["q", "v"], list(LINEARS)],
    }
    rng = random.Random(3)
    model_states, passes = set(), set()
    for _ in range(150):
        values = memory.prepare(
            {**{i.name: i.default for i in memory.INPUTS}, **{k: rng.choice(v) for k, v in choices.items()}}
        )
        run = memory.build_run(values)
        for part in (
            memory_model.weight_bytes,
            memory_model.gradient_bytes,
            memory_model.optimizer_bytes,
            memory_model.optimizer_step_bytes,
        ):
            model_states |= _reads(run, part)
        for part in (memory_passes.activation_bytes, memory_passes.logits_bytes):
            passes |= _reads(run, part)
    assert not model_states - set(memory_model.MODEL_STATE_FIELDS), model_states - set(memory_model.MODEL_STATE_FIELDS)
    assert not passes - set(memory_model.PASS_FIELDS), passes - set(memory_model.PASS_FIELDS)
    assert {"quant", "optimizer_impl"} <= model_states  # the probe sees
    assert {"seq_len", "cpu_masks", "loss", "router_aux_loss"} <= passes


def test_a_memory_answer_does_not_depend_on_the_answers_before_it():
    """Each memory input changed alone, after an answer without the change, gives the answer that
    nothing kept gives, and so does going back (the kept parts of `unsharded`)."""
    base = {"model": "custom", "parallelism": "fsdp", "gpus": 4}
    assert valid_edits_answered_as_from_nothing("memory", memory.INPUTS, base, memory_model.forget) > 30


@pytest.mark.parametrize("offload, extra_weights", [("optimizer", 0), ("optimizer_params", 2)])
def test_host_ram_under_offload_is_derived_as_the_page_says(offload, extra_weights):
    """docs/*/memory.md#offload: optimizer state with master copy, 4 bytes per trainable parameter for the fp32
    gradient copy and, with parameter offload, the weights, each divided where the parallelism shards it."""
    r = result(
        method="full",
        weights_dtype="bf16",
        master_weights=True,
        optimizer="adamw",
        parallelism="fsdp",
        gpus=4,
        offload=offload,
        **NO_OVERHEAD,
    )
    assert r["host_bytes_per_gpu"] == (12 + 4 + extra_weights) * LLAMA8B // 4
    assert r["bytes"]["optimizer"] == 0
    assert result(method="full", **NO_OVERHEAD)["host_bytes_per_gpu"] == 0


@settings(max_examples=60, deadline=None)
@given(
    gpu=st.sampled_from([g["id"] for g in calculators.catalog()["gpus"]]),
    model=st.sampled_from(["llama-3.1-8b", "qwen3-8b", "mixtral-8x7b", "llama-3.2-1b"]),
    method=st.sampled_from(["full", "lora", "qlora"]),
    gpus=st.sampled_from([1, 2, 8]),
    parallelism=st.sampled_from(["single", "ddp", "zero1", "zero2", "fsdp"]),
    micro_batch=st.sampled_from([1, 4, 16]),
)
def test_every_lever_is_a_fix_whose_inputs_give_its_figure(gpu, model, method, gpus, parallelism, micro_batch):
    """Each lever the answer offers carries the inputs that apply it (the page's one-tap button, the
    command line's --set): applied, they give the lever's own figure, and fit when it says so."""
    if parallelism == "single":
        gpus = 1
    inputs = dict(gpu=gpu, model=model, method=method, gpus=gpus, parallelism=parallelism, micro_batch=micro_batch)
    answer = calculators.compute("memory", inputs)
    assume(answer["ok"])
    levers = answer["result"]["answer"]["levers"]
    lever_blocks = [b for b in answer["result"]["display"] if b.get("title") == memory.LEVERS_TITLE]
    fixes = [i for b in lever_blocks for i in b["items"]]
    assert len(fixes) == len(levers) and all("apply" in fix for fix in fixes)
    for lever, fix in zip(levers, fixes):
        applied = calculators.compute("memory", {**inputs, **fix["apply"]})
        assert applied["ok"], (lever, applied.get("errors"))
        assert applied["result"]["per_gpu_bytes"] == lever["bytes"], lever
        # A lever that leaves this card too small applies with the card it fits on (its sentence names it).
        assert applied["result"]["answer"]["fits"] == (lever["fits"] or lever["fits_elsewhere"] is not None), lever


def _why(result_: dict) -> list[dict]:
    return next((b["items"] for b in result_["display"] if b.get("title") == "Why this figure"), [])


def test_mixtral_under_qlora_says_its_experts_stay_in_bf16():
    """Issue 51 item 5 (reader task 2): Mixtral 8x7B QLoRA on one H100 shows 115 GB; the line beside the
    figure says that the grouped experts, most of the weights, are not quantized."""
    r = result(model="mixtral-8x7b", method="qlora", seq_len=4096, micro_batch=2, gpu="h100-sxm-80gb")
    (line,) = [i for i in _why(r) if i["msg"].startswith("QLoRA leaves the routed experts unquantized")]
    experts = line["params"]["bytes"]["value"]
    # Mixtral's config.json: 32 layers x 8 experts x 3 matrices of 4096 x 14336, two bytes each in bf16.
    assert experts == 32 * 8 * 3 * 4096 * 14336 * 2
    assert experts > r["bytes"]["weights"] / 2 and line["params"]["dtype"] == "bf16"
    dense = result(model="llama-3.1-8b", method="qlora")
    assert not [i for i in _why(dense) if i["msg"].startswith("QLoRA leaves")]


@settings(max_examples=60, deadline=None)
@given(
    model=st.sampled_from(["llama-3.1-8b", "qwen3-8b", "llama-3.2-1b", "gemma-2-9b", "mixtral-8x7b"]),
    method=st.sampled_from(["full", "lora", "qlora"]),
    seq_len=st.sampled_from([512, 4096, 32768]),
    micro_batch=st.sampled_from([1, 8]),
    checkpointing=st.booleans(),
    optimizer=st.sampled_from(["adamw", "sgd_momentum"]),
)
def test_a_component_above_half_says_why_and_its_fix_shrinks_it(
    model, method, seq_len, micro_batch, checkpointing, optimizer
):
    inputs = dict(
        model=model,
        method=method,
        seq_len=seq_len,
        micro_batch=micro_batch,
        gradient_checkpointing=checkpointing,
        optimizer=optimizer,
    )
    answer = calculators.compute("memory", inputs)
    assume(answer["ok"])
    r = answer["result"]
    big = [c for c, b in r["bytes"].items() if b > r["per_gpu_bytes"] / 2]
    lines = [i for i in _why(r) if "share" in i["params"]]
    if "weights" in big and any(i["msg"].startswith("QLoRA leaves") for i in _why(r)):
        big.remove("weights")
    assert len(lines) == len(big) <= 1
    for line in lines:
        (component,) = big
        assert line["params"]["share"]["value"] == r["bytes"][component] / r["per_gpu_bytes"]
        if "apply" in line:
            fixed = calculators.compute("memory", {**inputs, **line["apply"]})
            assert fixed["ok"] and fixed["result"]["per_gpu_bytes"] < r["per_gpu_bytes"], (component, line["apply"])
