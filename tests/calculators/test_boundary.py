"""The compute/describe boundary: validation, coercion from strings, the registry."""

import json
import types

import pytest

import guidekit.calc._registry
from calculators import ERROR_CODES, Choice, Input, compute, describe, names, register


def codes(answer):
    assert answer["ok"] is False
    return {(e["field"], e["code"]) for e in answer["errors"]}


def test_names_and_defaults_compute():
    assert names()[:2] == ["memory", "cost"]
    for name in names():
        answer = compute(name, {})
        assert answer["ok"] and answer["calculator"] == name
        assert json.loads(json.dumps(answer)) == answer  # plain JSON all the way down


def test_unknown_calculator():
    answer = compute("nope", {})
    assert answer["errors"] == [{"field": "calculator", "code": "unknown_calculator", "choices": names()}]
    assert describe("nope")["ok"] is False


def test_unknown_field_and_not_an_object():
    assert codes(compute("memory", {"colour": "red"})) == {("colour", "unknown_field")}
    assert codes(compute("memory", ["seq_len"])) == {("inputs", "not_an_object")}
    assert compute("memory", None)["ok"]


@pytest.mark.parametrize(
    "field, raw, expected",
    [
        ("seq_len", "4096", 4096),
        ("seq_len", " 512 ", 512),
        ("seq_len", "1e3", 1000),
        ("seq_len", 2048.0, 2048),
        ("margin", "0.25", 0.25),
        ("margin", 0, 0.0),
        ("gradient_checkpointing", "on", True),
        ("gradient_checkpointing", "false", False),
        ("gradient_checkpointing", "1", True),
        ("gradient_checkpointing", 0, False),
        ("lora_targets", "q, v", ["q", "v"]),
        ("lora_targets", "v,q,q", ["q", "v"]),
        ("lora_targets", ["down", "q"], ["q", "down"]),
        ("method", " qlora ", "qlora"),
        ("params", "", 8030261248),  # optional: empty means default, then the preset fills it
    ],
)
def test_string_coercion(field, raw, expected):
    answer = compute("memory", {field: raw})
    assert answer["ok"], answer
    assert answer["inputs"][field] == expected


@pytest.mark.parametrize(
    "field, raw, code",
    [
        ("seq_len", "", "required"),
        ("seq_len", "abc", "not_a_number"),
        ("seq_len", "12.5", "not_an_integer"),
        ("seq_len", True, "not_a_number"),
        ("seq_len", "nan", "not_a_number"),
        ("seq_len", "inf", "not_a_number"),
        ("seq_len", 0, "out_of_range"),
        ("seq_len", [1], "not_a_number"),
        ("margin", "0.95", "out_of_range"),
        ("margin", "1e400", "not_a_number"),
        ("gradient_checkpointing", "maybe", "not_a_boolean"),
        ("gradient_checkpointing", 2, "not_a_boolean"),
        ("method", "lorax", "unknown_choice"),
        ("method", "", "required"),
        ("lora_targets", "q,zz", "unknown_choice"),
        ("lora_targets", 5, "unknown_choice"),
    ],
)
def test_field_errors(field, raw, code):
    answer = compute("memory", {field: raw})
    assert codes(answer) == {(field, code)}
    err = answer["errors"][0]
    if code == "out_of_range":
        assert {"min", "max"} <= set(err)
    if code == "unknown_choice":
        assert isinstance(err["choices"], list)


def test_cross_field_errors():
    custom = {"model": "custom", "hidden": 100, "heads": 3, "kv_heads": 2, "head_dim": 0}
    assert codes(compute("memory", custom)) == {("heads", "heads_not_divisible"), ("kv_heads", "kv_heads_not_divisor")}
    assert codes(compute("memory", {"gpus": 2})) == {("gpus", "single_gpu_only")}
    assert codes(compute("memory", {"lora_targets": ""})) == {("lora_targets", "required")}
    assert compute("memory", {"lora_targets": "", "method": "full"})["ok"]


def test_all_error_codes_are_snake_case_and_have_messages():
    for code, msg in ERROR_CODES.items():
        assert code == code.lower() and " " not in code and msg


def test_describe_is_json_and_covers_every_input():
    for name in names():
        d = describe(name)
        assert d["name"] == name and d["title"]
        assert json.loads(json.dumps(d)) == d
        inputs = {i["name"]: i for i in d["inputs"]}
        assert set(compute(name, {})["inputs"]) == set(inputs)
        for i in d["inputs"]:
            assert i["kind"] in {"int", "float", "choice", "multichoice", "bool"} and i["label"]
            if i["kind"] in {"choice", "multichoice"}:
                values = [c["value"] for c in i["choices"]]
                default = i["default"] if i["kind"] == "multichoice" else [i["default"]]
                assert set(default) <= set(values)


def test_register_a_third_calculator():
    calc = types.SimpleNamespace(
        NAME="kv_cache",
        TITLE="KV cache",
        INPUTS=(
            Input("tokens", "int", 10, "Tokens", min=1, max=100),
            Input("dtype", "choice", "bf16", "Type", choices=(Choice("bf16", "bf16"),)),
        ),
        run=lambda v: {"bytes": v["tokens"] * 2, "display": []},
    )
    register(calc)
    try:
        assert compute("kv_cache", {"tokens": "7"})["result"]["bytes"] == 14
        assert codes(compute("kv_cache", {"tokens": 0})) == {("tokens", "out_of_range")}
        assert describe("kv_cache")["inputs"][1]["choices"] == [{"value": "bf16", "label": "bf16"}]
    finally:
        guidekit.calc._registry._CALCULATORS.pop("kv_cache")
    with pytest.raises(TypeError):
        register(types.SimpleNamespace(NAME="broken"))


def test_preset_overrides_dimensions():
    answer = compute("memory", {"model": "qwen2.5-0.5b", "layers": 99})
    assert answer["inputs"]["layers"] == 24 and answer["inputs"]["tied_embeddings"] is True
    assert answer["result"]["params"] == 494032768


@pytest.mark.parametrize("raw", ["1", "yes", "TRUE", " On ", True, 1])
def test_every_true_spelling_a_url_may_carry_is_true(raw):
    answer = compute("memory", {"model": "custom", "tied_embeddings": raw})
    assert answer["ok"] and answer["inputs"]["tied_embeddings"] is True


@pytest.mark.parametrize(
    "inputs, expected",
    [
        ({"model": "custom", "layers": "abc"}, ("layers", "not_a_number")),
        ({"model": "custom", "layers": ""}, ("layers", "required")),
        ({"model": "custom", "layers": "1e9"}, ("layers", "out_of_range")),
        ({"method": "qlora", "quant": "int4"}, ("quant", "unknown_choice")),
        ({"lora_targets": "q,zz"}, ("lora_targets", "unknown_choice")),
    ],
)
def test_an_active_field_gets_its_own_error(inputs, expected):
    assert codes(compute("memory", inputs)) == {expected}


@pytest.mark.parametrize(
    "inputs",
    [
        {"layers": "abc"},  # a preset model supplies the dimensions
        {"model": "qwen2.5-0.5b", "hidden": ""},
        {"method": "full", "lora_rank": "abc", "lora_targets": "zz"},
        {"method": "lora", "quant": "int4"},  # the base format matters for QLoRA only
        {"model": "nope", "layers": "abc"},  # a refused controller counts as its default (a preset)
    ],
)
def test_a_field_only_when_switches_off_is_never_validated(inputs):
    answer = compute("memory", inputs)
    refused = {e["field"] for e in answer.get("errors", [])}
    assert refused <= {"model"} and not refused & set(inputs) - {"model"}
    values = answer.get("inputs") or answer["accepted"]
    defaults = compute("memory", {"model": values.get("model", describe("memory")["inputs"][0]["default"])})["inputs"]
    for field in set(inputs) - {"model", "method"}:
        assert values[field] == defaults[field]  # the default (or the preset's value), silently


def test_a_refusal_still_returns_every_accepted_value_normalized():
    answer = compute("memory", {"model": "qwen2.5-0.5b", "seq_len": "abc", "micro_batch": "2", "layers": "7"})
    assert codes(answer) == {("seq_len", "not_a_number")}
    accepted = answer["accepted"]
    assert "seq_len" not in accepted and accepted["micro_batch"] == 2
    assert accepted["layers"] == 24 and accepted["tied_embeddings"] is True  # the preset's, as on success


def test_a_zero_checkpoint_interval_is_refused_or_costs_nothing():
    assert codes(compute("cost", {"checkpoint_interval_hours": 0, "failures_per_100h": 0})) == {
        ("checkpoint_interval_hours", "out_of_range")
    }
    answer = compute("cost", {"checkpoint_interval_hours": 0, "failures_per_100h": 0, "checkpoint_write_s": 0})
    assert answer["ok"]


def test_what_a_calculator_declares_for_its_page_reaches_the_generator():
    """The import panel and the footnote belong to the calculators that declare them, not to the templates."""
    from guidekit import calc

    assert calc.importer("memory") == calc.importer("cost") == "gpuguide.results"
    assert describe("memory")["footnote"] == "GB = 10⁹ bytes."  # the memory page shows no price
    assert describe("cost")["footnote"].startswith("GB = 10⁹ bytes. Prices in US dollars")


def test_this_guides_error_codes_are_its_own_registration_not_the_frameworks():
    """The framework declares the generic codes; this guide's rules (a config.json's, the model's) are
    registered by its calculators, and a code cannot be worded two ways."""
    import subprocess
    import sys

    from guidekit.calc import register_error_codes

    run = subprocess.run(
        [sys.executable, "-c", "from guidekit.calc import ERROR_CODES; print(' '.join(sorted(ERROR_CODES)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    generic = set(run.stdout.split())
    assert {"required", "not_a_number", "out_of_range", "unknown_choice", "unknown_calculator"} <= generic
    assert not generic & {"heads_not_divisible", "config_not_json", "unsupported_model_type"}
    assert {"heads_not_divisible", "config_not_json", "unsupported_model_type"} <= set(ERROR_CODES)
    register_error_codes({"required": ERROR_CODES["required"]})  # the same wording again: accepted
    with pytest.raises(ValueError, match="declared twice with different messages: required"):
        register_error_codes({"required": "Fill this in."})
