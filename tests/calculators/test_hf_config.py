"""A Hugging Face config.json as memory inputs: the one reader behind the page, the CLI and the pilot."""
import json
from pathlib import Path

import pytest

import calculators
from calculators import hf_config

CONFIGS = Path(__file__).parents[1] / "fixtures" / "hf-configs"


def test_llama_config_maps_to_a_custom_model_with_its_dimensions():
    inputs, errors = hf_config.read((CONFIGS / "llama-tiny.json").read_bytes())
    assert errors == []
    assert inputs == {"model": "custom", "params": 0, "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2,
                      "intermediate": 176, "vocab": 300, "head_dim": 0, "tied_embeddings": False, "qkv_bias": False}
    assert calculators.compute("memory", inputs)["ok"]


def test_bytes_as_the_browser_worker_hands_them_over():
    raw = (CONFIGS / "qwen2-tiny.json").read_bytes()
    assert hf_config.read(memoryview(raw)) == hf_config.read(raw) == hf_config.read(raw.decode())


def test_qwen2_has_qkv_biases_and_tied_embeddings_and_matches_the_preset_count():
    preset = next(m for m in calculators.models()["models"] if m["id"] == "qwen2.5-0.5b")
    config = {"model_type": "qwen2", "num_hidden_layers": 24, "hidden_size": 896, "num_attention_heads": 14,
              "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936, "tie_word_embeddings": True}
    inputs, errors = hf_config.inputs_from_config(config)
    assert errors == [] and inputs["qkv_bias"] and inputs["tied_embeddings"]
    result = calculators.compute("memory", inputs)["result"]
    assert result["params"] == preset["params"]  # the published count, as for the preset


@pytest.mark.parametrize("text, code", [
    (b"not json", "config_not_json"),
    (b"[1, 2]", "config_not_json"),
    (json.dumps({"model_type": "gpt2", "n_layer": 2}).encode(), "unsupported_model_type"),
    (json.dumps({"model_type": "llama", "hidden_size": 64}).encode(), "config_missing_key"),
    (json.dumps({"model_type": "llama", "num_hidden_layers": True, "hidden_size": 64}).encode(), "config_missing_key"),
    (b" " * (hf_config.MAX_BYTES + 1), "config_too_large"),
])
def test_bad_files_get_one_field_error(text, code):
    inputs, errors = hf_config.read(text)
    assert inputs == {} and [e["code"] for e in errors] == [code] and errors[0]["field"] == "model_config"


def test_cli_takes_a_model_config_and_reports_an_unsupported_one(capsys):
    from calculators._cli import main

    assert main(["memory", "--model-config", str(CONFIGS / "mistral-tiny.json"), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["inputs"]["kv_heads"] == 1 and answer["inputs"]["vocab"] == 700
    assert main(["memory", "--model-config", str(CONFIGS / "gpt2-tiny.json")]) == 2
    assert "model_config: unsupported_model_type" in capsys.readouterr().err


def test_offload_moves_optimizer_state_to_host_ram():
    base = {"model": "llama-3.1-8b", "method": "full", "parallelism": "fsdp", "gpus": 8,
            "framework_gb": 0, "fragmentation": 0}
    on_gpu = calculators.compute("memory", base)["result"]
    offloaded = calculators.compute("memory", {**base, "offload": "optimizer"})["result"]
    assert offloaded["bytes"]["optimizer"] == 0 and on_gpu["bytes"]["optimizer"] > 0
    # host: master copy + AdamW moments (12 bytes) + an fp32 gradient copy (4), per shard
    assert offloaded["host_bytes_per_gpu"] == pytest.approx(16 * 8030261248 / 8, rel=1e-9)
    assert offloaded["per_gpu_bytes"] < on_gpu["per_gpu_bytes"]
    refused = calculators.compute("memory", {**base, "parallelism": "ddp", "offload": "optimizer_params"})
    assert [e["code"] for e in refused["errors"]] == ["offload_needs_fsdp"]


def test_fused_loss_removes_most_of_the_logits_term():
    standard = calculators.compute("memory", {"model": "llama-3.1-8b"})["result"]["bytes"]["logits"]
    fused = calculators.compute("memory", {"model": "llama-3.1-8b", "loss": "fused"})["result"]["bytes"]["logits"]
    assert fused < standard / 10
