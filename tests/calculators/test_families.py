"""The families transformers 5 builds beyond the Llama block: config.json reading, presets, parameter and
LoRA counts, the checks the calculator makes, and their per-block terms worked by hand."""

import json

import pytest

import calculators
from calculators import _memory_passes as memory_passes, hf_config, memory
from calculators.architecture import FAMILIES, MOE_FAMILIES
from calculators.hf_config import MODEL_TYPES, SUPPORTED

# Each from its model card or the count transformers prints for the checkpoint.
PUBLISHED = {
    "gemma-2-2b": 2_614_341_888,
    "gemma-2-9b": 9_241_705_984,
    "gemma-2-27b": 27_227_128_320,
    "gemma-3-1b": 999_885_952,
    "qwen3-0.6b": 596_049_920,
    "qwen3-8b": 8_190_735_360,
    "mixtral-8x7b": 46_702_792_704,
    "mixtral-8x22b": 140_620_634_112,
    "qwen1.5-moe-a2.7b": 14_315_784_192,
    "qwen3-30b-a3b": 30_532_122_624,
    "qwen3-235b-a22b": 235_093_634_560,
    "olmoe-1b-7b": 6_919_161_856,
}
PRESETS = {m["id"]: m for m in calculators.models()["models"]}
MOE = {
    "model": "custom",
    "family": "mixtral",
    "layers": 2,
    "hidden": 64,
    "heads": 4,
    "kv_heads": 2,
    "intermediate": 32,
    "vocab": 256,
    "experts": 4,
    "experts_per_token": 2,
    "framework_gb": 0,
    "fragmentation": 0,
}


def compute_ok(inputs: dict) -> dict:
    answer = calculators.compute("memory", inputs)
    assert answer["ok"], answer.get("errors")
    return answer["result"]


@pytest.mark.parametrize("preset, params", PUBLISHED.items())
def test_new_presets_match_published_counts(preset, params):
    r = compute_ok({"model": preset})
    assert r["params"] == r["params_derived"] == params


def test_every_preset_is_of_a_model_type_the_reader_knows_and_reads_back_as_itself():
    """A preset's dimensions, written as its config.json (what the pilot builds), read back unchanged."""
    for preset in PRESETS.values():
        inputs, errors = hf_config.inputs_from_config(
            {"model_type": preset["model_type"], **hf_config.config_keys(preset["model_type"], preset)}
        )
        assert errors == [], preset["id"]
        prepared = memory.prepare({**{i.name: i.default for i in memory.INPUTS}, "model": preset["id"]})
        for field in memory.ARCH_FIELDS:
            if field not in ("params", "head_dim"):
                assert inputs.get(field, prepared[field]) == prepared[field], (preset["id"], field)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # Gemma: 256-wide heads and tied embeddings unless the file says otherwise (transformers' defaults)
        (
            {
                "model_type": "gemma2",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 2,
                "intermediate_size": 96,
                "vocab_size": 300,
            },
            {"family": "gemma2", "head_dim": 256, "tied_embeddings": True, "kv_heads": 2},
        ),
        (
            {
                "model_type": "gemma3_text",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 2,
                "num_key_value_heads": 1,
                "head_dim": 32,
                "intermediate_size": 96,
                "vocab_size": 300,
            },
            {"family": "gemma3", "head_dim": 0, "tied_embeddings": True},
        ),
        (
            {
                "model_type": "qwen3",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "intermediate_size": 96,
                "vocab_size": 300,
            },
            {"family": "qwen3", "head_dim": 128},
        ),
        # Mixtral's experts are intermediate_size wide; the Qwen MoEs keep theirs in moe_intermediate_size
        (
            {
                "model_type": "mixtral",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "intermediate_size": 96,
                "vocab_size": 300,
            },
            {"family": "mixtral", "intermediate": 96, "experts": 8, "experts_per_token": 2, "router_aux_loss": False},
        ),
        (
            {
                "model_type": "qwen2_moe",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "intermediate_size": 96,
                "moe_intermediate_size": 16,
                "vocab_size": 300,
                "output_router_logits": True,
            },
            {
                "family": "qwen2_moe",
                "intermediate": 16,
                "experts": 60,
                "experts_per_token": 4,
                "qkv_bias": True,
                "shared_expert_intermediate": 5632,
                "router_aux_loss": True,
            },
        ),
        # transformers 5 writes a Qwen3-MoE's count as num_local_experts and reads either name
        (
            {
                "model_type": "qwen3_moe",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "moe_intermediate_size": 16,
                "num_local_experts": 6,
                "num_experts_per_tok": 3,
                "vocab_size": 300,
            },
            {"family": "qwen3_moe", "intermediate": 16, "experts": 6, "experts_per_token": 3},
        ),
        (
            {
                "model_type": "olmoe",
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "intermediate_size": 32,
                "num_experts": 16,
                "vocab_size": 300,
            },
            {"family": "olmoe", "experts": 16},
        ),
    ],
)
def test_each_family_reads_with_transformers_defaults(config, expected):
    inputs, errors = hf_config.inputs_from_config(config)
    assert errors == []
    assert {k: inputs[k] for k in expected} == expected
    assert calculators.compute("memory", inputs)["ok"]


@pytest.mark.parametrize(
    ("config", "key", "got"),
    [
        ({"model_type": "gemma2", "final_logit_softcapping": None}, "final_logit_softcapping", "null"),
        ({"model_type": "gemma2", "attn_logit_softcapping": "50"}, "attn_logit_softcapping", '"50"'),
        ({"model_type": "gemma3_text", "final_logit_softcapping": 30.0}, "final_logit_softcapping", "30.0"),
        ({"model_type": "qwen2_moe", "decoder_sparse_step": 2}, "decoder_sparse_step", "2"),
        ({"model_type": "qwen3_moe", "mlp_only_layers": [0]}, "mlp_only_layers", "[0]"),
    ],
)
def test_a_layout_the_model_does_not_describe_is_refused_naming_the_key(config, key, got):
    base = {
        "num_hidden_layers": 2,
        "hidden_size": 64,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "vocab_size": 300,
    }
    inputs, errors = hf_config.read(json.dumps({**base, **config}))
    assert inputs == {}
    assert errors == [{"field": "model_config", "code": "config_unsupported_value", "key": key, "got": got}]


def test_an_unsupported_model_type_names_every_supported_one():
    _, errors = hf_config.inputs_from_config({"model_type": "gpt2"})
    assert errors[0]["code"] == "unsupported_model_type"
    assert errors[0]["choices"] == list(SUPPORTED)
    assert {
        "Gemma 2 (gemma2)",
        "Gemma 3 (gemma3_text)",
        "Qwen3 (qwen3)",
        "Mixtral (mixtral)",
        "Qwen2-MoE (qwen2_moe)",
        "Qwen3-MoE (qwen3_moe)",
        "OLMoE (olmoe)",
        "Phi-3 (phi3)",
    } <= set(SUPPORTED)
    assert len(SUPPORTED) == len(MODEL_TYPES) and {t.family for t in MODEL_TYPES.values()} == set(FAMILIES)


def test_every_expert_is_resident_and_learns_in_a_full_fine_tune():
    """Mixtral-shaped: per layer gate_up E x 2I x h, down E x h x I, router E x h beside the attention."""
    r = compute_ok({**MOE, "method": "full"})
    h, I, E, L = 64, 32, 4, 2
    attention = h * 64 + 2 * h * 32 + 64 * h  # q; k and v (2 kv heads of 16); o
    per_layer = attention + E * (2 * I * h + h * I) + E * h + 2 * h
    assert r["params"] == L * per_layer + 2 * 256 * h + h
    assert r["trainable_params"] == r["params"]


def test_lora_on_a_mixture_of_experts_adapts_every_routed_expert():
    """peft's target_parameters: per expert tensor one A of (r*E) x in and one B of out x (r*E)."""
    r, h, I, E, L = 8, 64, 32, 4, 2
    attention = r * ((h + 64) + 2 * (h + 32) + (64 + h))
    experts = r * E * (h + 2 * I) + r * E * (I + h)
    assert compute_ok({**MOE, "method": "lora", "lora_rank": r})["lora_params"] == L * (attention + experts)
    assert (
        compute_ok({**MOE, "method": "lora", "lora_rank": r, "lora_targets": ["q", "k", "v", "o"]})["lora_params"]
        == L * attention
    )
    assert compute_ok({**MOE, "method": "lora", "lora_rank": r, "lora_targets": ["down"]})[
        "lora_params"
    ] == L * r * E * (I + h)


@pytest.mark.parametrize(
    ("changes", "field", "code"),
    [
        ({"experts_per_token": 5}, "experts_per_token", "experts_per_token_too_many"),
        ({"method": "lora", "lora_targets": ["q", "gate"]}, "lora_targets", "fused_target_partial"),
        ({"method": "lora", "lora_dropout": 0.1}, "lora_dropout", "expert_lora_dropout"),
    ],
)
def test_what_a_mixture_of_experts_cannot_be_is_refused(changes, field, code):
    answer = calculators.compute("memory", {**MOE, **changes})
    assert not answer["ok"] and [(e["field"], e["code"]) for e in answer["errors"]] == [(field, code)]


def test_dropout_on_the_attention_adapters_of_a_mixture_of_experts_is_accepted():
    compute_ok({**MOE, "method": "lora", "lora_dropout": 0.1, "lora_targets": ["q", "k", "v", "o"]})
    compute_ok({**MOE, "family": "llama", "method": "lora", "lora_targets": ["gate"]})  # a dense MLP's own linears


def test_a_dense_model_ignores_the_expert_inputs():
    dense = {**MOE, "family": "qwen3"}
    assert compute_ok(dense) == compute_ok({**dense, "experts": 64, "experts_per_token": 8, "router_aux_loss": True})


def test_moe_block_activations_by_hand():
    """Mixtral-shaped, fp32, full fine-tune, fused attention; s = 8, b = 2 (16 tokens), k = 2: 32 pairs.

    Attention as for Llama (norm 8256, q/k/v input 4096, q/k/v 4*16*(64+32+32) = 8192, output = o's input
    4096, log-sum-exp 256) and the pre-MLP norm 8256: 33152. The router: its input, the norm's output,
    4096 (its weight learns), fp32 softmax 4*16*4 = 256, top-k indices 8*16*2 = 256, the renormalised top-k
    weights and their sum 4*32 + 4*16 = 192. Sorting the 32 pairs: three int64 indices 3*8*32 = 768. The
    experts: gathered tokens 4*32*64 = 8192, gate_up's output 4*32*64 = 8192, SiLU output 4*32*32 = 4096,
    down's input 4096 and output 8192, the fp32 routing weights 4*32 = 128. Total 33152 + 4800 + 768 + 32896.
    """
    r = compute_ok(
        {
            **MOE,
            "method": "full",
            "weights_dtype": "fp32",
            "autocast": "off",
            "seq_len": 8,
            "micro_batch": 2,
            "attention": "fused",
            "gradient_checkpointing": False,
        }
    )
    assert r["detail"]["activations_per_layer"] == 33152 + 4800 + 768 + 32896


def test_lora_on_the_experts_saves_the_merged_weights():
    """peft folds W + B A into one tensor as large as the layer's experts, which grouped_mm saves: the
    reason LoRA on the experts of a large mixture costs as much activation memory as its experts weigh."""
    run = memory.build_run(
        memory.prepare(
            {
                **{i.name: i.default for i in memory.INPUTS},
                "model": "mixtral-8x7b",
                "method": "lora",
                "weights_dtype": "bf16",
            }
        )
    )
    attention_only = memory.build_run(
        memory.prepare(
            {
                **{i.name: i.default for i in memory.INPUTS},
                "model": "mixtral-8x7b",
                "method": "lora",
                "lora_targets": ["q", "k", "v", "o"],
            }
        )
    )
    experts_bytes = 2 * 8 * 3 * 14336 * 4096  # bf16, 8 experts, gate_up and down
    assert (
        memory_passes.layer_activation_bytes(run) - memory_passes.layer_activation_bytes(attention_only) > experts_bytes
    )


def test_gemma_soft_capping_keeps_a_logits_sized_tanh_output():
    """Gemma 2's final soft-capping saves tanh's output (working dtype) beside the fp32 loss buffers."""
    base = {"model": "gemma-2-9b", "loss": "standard"}
    logits = compute_ok(base)["bytes"]["logits"]
    tokens, vocab = 4 * 2048, 256000
    assert logits == (12 + 2) * tokens * vocab
    assert compute_ok({**base, "model": "gemma-3-12b"})["bytes"]["logits"] == 12 * tokens * 262208


def test_every_family_is_a_choice_and_the_moe_ones_are_marked():
    choices = {
        c["value"]
        for c in next(i for i in calculators.describe("memory")["inputs"] if i["name"] == "family")["choices"]
    }
    assert choices == set(FAMILIES)
    assert set(MOE_FAMILIES) == {"mixtral", "qwen2_moe", "qwen3_moe", "olmoe"}


@pytest.mark.parametrize("locale", ["es", "ja", "ar"])
def test_an_unsupported_model_type_points_to_tracing_it_in_the_readers_language(locale):
    """The calculator cannot size a family it does not model; `gpu-pilot trace` can, for any causal LM."""
    from guidekit.l10n import Localizer
    from guidekit.render._render import error_message
    from guidekit.site.locale_pack import locale_pack
    from tests.conftest import ROOT

    pack = locale_pack(locale, ROOT / "locales")
    _, errors = hf_config.inputs_from_config({"model_type": "gpt2"})
    text = error_message(errors[0], Localizer(pack))
    assert "gpt2" in text and "gpu-pilot trace --model-config config.json" in text
    assert "Mixtral (mixtral)" in text and "{" not in text
