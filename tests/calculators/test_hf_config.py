"""A Hugging Face config.json as memory inputs: the one reader behind the page, the CLI and the pilot."""

import json
from pathlib import Path

import pytest

import calculators
import gpuguide.results as results
from calculators import hf_config
from guidekit.site.locale_pack import locale_pack

CONFIGS = Path(__file__).parents[1] / "fixtures" / "hf-configs"
PACKS = {code: locale_pack(code, Path(__file__).parents[2] / "locales") for code in ("es", "ja")}


def test_llama_config_maps_to_a_custom_model_with_its_dimensions():
    inputs, errors = hf_config.read((CONFIGS / "llama-tiny.json").read_bytes())
    assert errors == []
    assert inputs == {
        "model": "custom",
        "params": 0,
        "family": "llama",
        "layers": 2,
        "hidden": 64,
        "heads": 4,
        "kv_heads": 2,
        "intermediate": 176,
        "vocab": 300,
        "head_dim": 0,
        "tied_embeddings": False,
        "qkv_bias": False,
        "fused_projections": False,
    }
    assert calculators.compute("memory", inputs)["ok"]


def test_bytes_as_the_browser_worker_hands_them_over():
    raw = (CONFIGS / "qwen2-tiny.json").read_bytes()
    assert hf_config.read(memoryview(raw)) == hf_config.read(raw) == hf_config.read(raw.decode())


def test_qwen2_has_qkv_biases_and_tied_embeddings_and_matches_the_preset_count():
    preset = next(m for m in calculators.models()["models"] if m["id"] == "qwen2.5-0.5b")
    config = {
        "model_type": "qwen2",
        "num_hidden_layers": 24,
        "hidden_size": 896,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "intermediate_size": 4864,
        "vocab_size": 151936,
        "tie_word_embeddings": True,
    }
    inputs, errors = hf_config.inputs_from_config(config)
    assert errors == [] and inputs["qkv_bias"] and inputs["tied_embeddings"]
    result = calculators.compute("memory", inputs)["result"]
    assert result["params"] == preset["params"]  # the published count, as for the preset


# microsoft/Phi-3-mini-4k-instruct's config.json (the dimensions that count) and its published size
PHI3_MINI = {
    "model_type": "phi3",
    "num_hidden_layers": 32,
    "hidden_size": 3072,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "intermediate_size": 8192,
    "vocab_size": 32064,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
PHI3_MINI_PARAMS = 3_821_079_552


def test_phi3_has_fused_projections_and_the_published_parameter_count():
    inputs, errors = hf_config.inputs_from_config(PHI3_MINI)
    assert errors == [] and inputs["fused_projections"] and not inputs["qkv_bias"]
    assert calculators.compute("memory", inputs)["result"]["params"] == PHI3_MINI_PARAMS


def test_fused_projections_take_one_adapter_each():
    """peft puts one A (rank x hidden) and one B on qkv_proj and on gate_up_proj: the shared input
    is counted once, where separate q, k, v (and gate, up) projections each have their own A."""
    inputs, _ = hf_config.inputs_from_config(PHI3_MINI)
    lora = {**inputs, "method": "lora", "lora_rank": 16}
    fused = calculators.compute("memory", lora)["result"]["lora_params"]
    separate = calculators.compute("memory", {**lora, "fused_projections": False})["result"]["lora_params"]
    h, layers, r = 3072, 32, 16
    assert separate - fused == layers * r * h * 3  # two As fewer on qkv, one fewer on gate_up
    # B of qkv_proj is as wide as q, k and v together: r * (h + 3h); gate_up: r * (h + 2 * 8192)
    assert fused == layers * r * ((h + 3 * h) + (h + h) + (h + 2 * 8192) + (8192 + h))


@pytest.mark.parametrize("targets", [["q", "o"], ["gate", "down"], ["q", "k", "v", "up"]])
def test_part_of_a_fused_projection_is_refused(targets):
    inputs, _ = hf_config.inputs_from_config(PHI3_MINI)
    answer = calculators.compute("memory", {**inputs, "method": "lora", "lora_targets": targets})
    assert not answer["ok"]
    assert {e["code"] for e in answer["errors"]} == {"fused_target_partial"}
    assert all(e["field"] == "lora_targets" for e in answer["errors"])


def test_a_fused_models_whole_projections_are_accepted():
    inputs, _ = hf_config.inputs_from_config(PHI3_MINI)
    assert calculators.compute("memory", {**inputs, "method": "lora", "lora_targets": ["q", "k", "v", "o"]})["ok"]


@pytest.mark.parametrize(
    "text, code",
    [
        (b"not json", "config_not_json"),
        (b"[1, 2]", "config_not_json"),
        (json.dumps({"model_type": "gpt2", "n_layer": 2}).encode(), "unsupported_model_type"),
        (json.dumps({"model_type": "llama", "hidden_size": 64}).encode(), "config_missing_key"),
        (
            json.dumps({"model_type": "llama", "num_hidden_layers": True, "hidden_size": 64}).encode(),
            "config_not_count",
        ),
        (b" " * (hf_config.MAX_BYTES + 1), "config_too_large"),
    ],
)
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
    base = {
        "model": "llama-3.1-8b",
        "method": "full",
        "parallelism": "fsdp",
        "gpus": 8,
        "framework_gb": 0,
        "fragmentation": 0,
    }
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


LLAMA = json.loads((CONFIGS / "llama-tiny.json").read_text(encoding="utf-8"))


def _read(**changes):
    config = {k: v for k, v in {**LLAMA, **changes}.items() if v is not _ABSENT}
    return hf_config.read(json.dumps(config).encode())


_ABSENT = object()


@pytest.mark.parametrize("key", ["tie_word_embeddings", "attention_bias"])
@pytest.mark.parametrize("value", ["no", "false", "yes", 0, 1, [], {}])
def test_a_flag_is_a_json_boolean(key, value):
    """ "no" is a non-empty string: bool() read it as true, and tied the embeddings."""
    inputs, errors = _read(**{key: value})
    assert inputs == {}
    assert errors == [{"field": "model_config", "code": "config_not_boolean", "key": key, "got": json.dumps(value)}]


@pytest.mark.parametrize("key", ["num_key_value_heads", "head_dim", "num_hidden_layers", "vocab_size"])
@pytest.mark.parametrize("value", [0, -2, 2.5, 2.0, "2", True, [2]])
def test_a_count_is_a_whole_number_of_one_or_more(key, value):
    """num_key_value_heads 0 used to become the head count (`0 or heads`), head_dim 0 "derive it"."""
    inputs, errors = _read(**{key: value})
    assert inputs == {}
    assert errors == [{"field": "model_config", "code": "config_not_count", "key": key, "got": json.dumps(value)}]


@pytest.mark.parametrize("missing", [_ABSENT, None])
def test_absent_or_null_optional_keys_take_the_documented_defaults(missing):
    inputs, errors = _read(
        num_key_value_heads=missing, head_dim=missing, tie_word_embeddings=missing, attention_bias=missing
    )
    assert errors == []
    assert (inputs["kv_heads"], inputs["head_dim"], inputs["tied_embeddings"], inputs["qkv_bias"]) == (
        LLAMA["num_attention_heads"],
        0,
        False,
        False,
    )
    _, errors = _read(num_hidden_layers=missing)
    assert errors == [{"field": "model_config", "code": "config_missing_key", "key": "num_hidden_layers"}]


@pytest.mark.parametrize(
    ("literal", "key", "got"),
    [
        ('"num_hidden_layers": 1e400', "num_hidden_layers", "1e400"),
        ('"num_hidden_layers": -1e400', "num_hidden_layers", "-1e400"),
        ('"num_hidden_layers": ' + "7" * 5000, "num_hidden_layers", "7" * 39 + "…"),
        ('"rope_scaling": {"factor": 8, "extra": [1, 2e999]}', "rope_scaling.extra.1", "2e999"),
    ],
)
def test_a_number_beyond_a_double_is_named_not_unreadable(literal, key, got):
    """json read 1e400 as inf and refused 5,000 digits: "not a JSON object", or a missing key."""
    text = json.dumps(LLAMA)[:-1] + ", " + literal + "}"
    text = text.replace('"num_hidden_layers": 2, ', "") if literal.startswith('"num_hidden_layers"') else text
    assert hf_config.read(text.encode()) == (
        {},
        [{"field": "model_config", "code": "config_huge_number", "key": key, "got": got}],
    )


def test_nesting_past_the_limit_is_refused_before_json_reads_it():
    text = '{"model_type": "llama", "x": ' + "[" * 100_000  # json.loads: RecursionError (the browser: a crash)
    assert hf_config.read(text) == ({}, [{"field": "model_config", "code": "config_too_deep", "limit": 32}])
    assert hf_config.read(json.dumps({**LLAMA, "x": [[[[1]]]]}))[1] == []


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"model_type": ["llama"]}, "unsupported_model_type"),  # unhashable: `in FAMILIES` raised TypeError
        ({"model_type": None}, "unsupported_model_type"),
    ],
)
def test_odd_values_never_raise(change, code):
    _, errors = _read(**change)
    assert [e["code"] for e in errors] == [code]


@pytest.mark.parametrize("dtype", [["bfloat16"], {"x": 1}, 16])
def test_a_dtype_that_is_not_a_name_is_ignored(dtype):
    """`DTYPES.get(["bfloat16"])` raised TypeError, which the page showed as "could not read the file"."""
    assert hf_config.weights_dtype({**LLAMA, "dtype": dtype}) is None
    out = results.import_result("memory", json.dumps({**LLAMA, "dtype": dtype}), PACKS["es"])
    assert out["ok"], out["errors"]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"tie_word_embeddings": "no"}, 'En el config.json, tie_word_embeddings debe ser true o false, no "no".'),
        (
            {"num_key_value_heads": 0},
            "En el config.json, num_key_value_heads debe ser un número entero mayor o igual que 1, no 0.",
        ),
    ],
)
def test_the_page_says_which_key_and_what_it_holds(changes, expected):
    out = results.import_result("memory", json.dumps({**LLAMA, **changes}).encode(), PACKS["es"])
    assert not out["ok"] and out["errors"] == [expected]


def test_the_page_names_a_huge_number_in_a_config_not_as_a_result_file():
    text = json.dumps(LLAMA).replace('"num_hidden_layers": 2', '"num_hidden_layers": ' + "9" * 5000)
    out = results.import_result("memory", text.encode(), PACKS["ja"])
    assert not out["ok"] and out["problems"] == []
    assert out["errors"] == ["config.json の num_hidden_layers の数値が大きすぎて読み取れません：" + "9" * 39 + "…。"]


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        (
            {"tie_word_embeddings": "no"},
            'model_config: config_not_boolean (In the config.json, tie_word_embeddings must be true or false, not "no".)',
        ),
        (
            {"head_dim": 0},
            "model_config: config_not_count (In the config.json, head_dim must be a whole number of 1 or more, not 0.)",
        ),
    ],
)
def test_the_cli_prints_one_precise_line(changes, line, tmp_path, capsys):
    from calculators._cli import main

    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA, **changes}), encoding="utf-8")
    assert main(["memory", "--model-config", str(path)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {line}"]


def test_the_cli_refuses_deep_nesting_with_one_line(tmp_path, capsys):
    from calculators._cli import main

    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "x": ' + "[" * 50_000 + "]" * 50_000 + "}", encoding="utf-8")
    assert main(["memory", "--model-config", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: model_config: config_too_deep (The file nests deeper than a config.json can (32 levels at most).)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"model_type": "llama", "x": ' + "[" * 50_000,
            "The file nests deeper than a config.json can (32 levels at most).",
        ),
        (
            json.dumps({**LLAMA, "tie_word_embeddings": "no"}),
            'In the config.json, tie_word_embeddings must be true or false, not "no".',
        ),
        (
            json.dumps(LLAMA).replace('"vocab_size": 300', '"vocab_size": 1e999'),
            "In the config.json, vocab_size holds a number too large to read: 1e999.",
        ),
    ],
)
def test_the_pilot_reads_a_config_file_with_the_same_reader(text, message, tmp_path):
    pytest.importorskip("transformers")
    from pilot.config import PilotConfig
    from pilot.hf_model import PilotSetupError, resolve

    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PilotSetupError) as refused:
        resolve(PilotConfig(model={"config_file": str(path)}).model)
    assert str(refused.value).endswith(message) and str(path) in str(refused.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [("hidden_size", 10**30), ("num_attention_heads", 1_000_000), ("vocab_size", 10**12), ("num_hidden_layers", 10**6)],
)
def test_a_dimension_beyond_the_calculators_fields_is_named_by_its_key(key, value):
    """Attack finding 19: hidden_size of 10^30 (it fits a double) fell to "the file could not be read"."""
    config = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8}
    config |= {"intermediate_size": 128, "vocab_size": 100, key: value}
    _, errors = hf_config.inputs_from_config(config)
    assert [(e["code"], e["key"], e["got"]) for e in errors] == [("config_unsupported_value", key, str(value))]


def test_a_figure_past_1e28_is_formatted():
    """The default Decimal context's 28 digits raised InvalidOperation on such a figure (finding 13 too)."""
    from guidekit.l10n import Localizer
    from tests.conftest import locale_packs

    fmt = Localizer(locale_packs()["es"]).fmt
    assert fmt.number(1e29, max_frac=2) == "100.000.000.000.000.000.000.000.000.000"
    assert fmt.number(1.5e308, max_frac=0).startswith("150.000.000")
