"""The families added with transformers 5 against the library itself: every preset's parameter count as
transformers builds the class, each block's saved activations as autograd saves them, LoRA's trainable
parameters as peft adds them, and the pilot's one-line refusals."""

import dataclasses
import json

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

import calculators  # noqa: E402
from benchmarks.memory_accuracy import FAMILIES, NEW_FAMILIES, Case, pilot_config  # noqa: E402
from calculators import (
    _memory_passes as memory_passes,  # noqa: E402
    memory,  # noqa: E402
)
from calculators.pilot_inputs import memory_inputs  # noqa: E402

# Builds models and runs them: the full suite's (`make test`), not the fast tier's.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("preset", [m["id"] for m in calculators.models()["models"]])
def test_each_preset_has_the_parameters_of_the_class_transformers_builds(preset):
    """Built on the meta device (no memory) from the configuration the pilot gives transformers."""
    import torch
    import transformers

    from pilot.config import ModelConfig
    from pilot.hf_model import hf_config

    config = hf_config(ModelConfig(source=preset))
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    counted = sum(p.numel() for p in model.parameters())  # a tied head is one parameter
    assert counted == calculators.compute("memory", {"model": preset})["result"]["params"]


def _resolved(family: str, layers: int, tmp_path, **case):
    from pilot.trainer import resolved

    path = tmp_path / f"{family}-{layers}.json"
    path.write_text(json.dumps({**FAMILIES[family], "num_hidden_layers": layers, "vocab_size": 256}), encoding="utf-8")
    cfg = resolved(pilot_config(Case(family, **case), path))
    return dataclasses.replace(cfg, train=dataclasses.replace(cfg.train, grad_checkpointing=False))


def _saved_bytes(cfg) -> int:
    """Bytes of the distinct storages autograd saves in one forward pass, parameters left out."""
    import torch

    from pilot.model import build_model

    model = build_model(cfg.model, cfg.train, cfg.seed, torch.device("cpu"))
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in params:
            seen[storage.data_ptr()] = storage.nbytes()
        return tensor

    tokens = torch.randint(0, cfg.model.vocab, (cfg.train.micro_batch, cfg.train.seq_len + 1))
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=cfg.train.precision == "bf16")
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), autocast:
        model(tokens)
    return sum(seen.values())


@pytest.mark.parametrize("family", ["llama", "phi3", *NEW_FAMILIES])
@pytest.mark.parametrize(
    "case",
    [
        {"method": "full", "dtype": "fp32", "autocast": False},
        {"method": "lora", "dtype": "bf16", "autocast": True},
        {"method": "lora", "dtype": "fp32", "autocast": False, "targets": ("q", "v", "down")},
    ],
    ids=["full-fp32", "lora-bf16-autocast", "lora-q-v-down"],
)
def test_a_blocks_saved_activations_are_what_autograd_saves(family, case, tmp_path):
    """One block's saved tensors (three layers less two, so the embedding and the head cancel) equal
    `layer_activation_bytes` to within 64 bytes (per-layer constants such as a routing sum's shape).
    Llama's attention output is o's input itself (counted twice before); Phi-3's is not, as its partial
    rotary lays q out head by head and the kernel's output follows q's layout."""
    if family == "phi3" and "down" in case.get("targets", ()):
        case = {**case, "targets": ("q", "k", "v", "down")}  # Phi-3 adapts its fused qkv only as a whole
    case = {"seq_len": 64, "micro_batch": 2, "attention": "eager" if family == "gemma2" else "sdpa", **case}
    two, three = (_resolved(family, n, tmp_path, **case) for n in (2, 3))
    measured = _saved_bytes(three) - _saved_bytes(two)
    answer = calculators.compute("memory", {**memory_inputs(three.to_dict(), "cpu"), "gradient_checkpointing": False})
    run = dataclasses.replace(memory.build_run(answer["inputs"]), cpu_masks=True)
    assert abs(memory_passes.layer_activation_bytes(run) - measured) <= 64, (
        memory_passes.layer_activation_bytes(run),
        measured,
    )


@pytest.mark.parametrize(
    "case",
    [
        {"dtype": "bf16", "autocast": True, "targets": ("q", "k", "v", "o")},
        {"dtype": "fp32", "autocast": False},
    ],
    ids=["bf16-autocast-attention", "fp32-all"],
)
def test_the_first_blocks_lora_dropout_keeps_no_mask_where_its_input_needs_no_gradient(case, tmp_path):
    """The embedding is frozen, so the first block's q, k and v read an input that needs no gradient:
    their dropout keeps its output (lora_A's input) but no mask. What the first block saves beyond a
    later one, with dropout less without, is what `layer_activation_bytes(first=True)` says."""

    def first_less_later(dropout: bool) -> tuple[int, float]:
        two, three = (
            _resolved("llama", n, tmp_path, method="lora", dropout=dropout, seq_len=64, micro_batch=2, **case)
            for n in (2, 3)
        )
        later = _saved_bytes(three) - _saved_bytes(two)
        answer = calculators.compute("memory", {**memory_inputs(two.to_dict(), "cpu"), "gradient_checkpointing": False})
        run = dataclasses.replace(memory.build_run(answer["inputs"]), cpu_masks=True)
        # two blocks: the first, one later, and the embedding's and the head's, the same with or without dropout
        return _saved_bytes(two) - 2 * later, memory_passes.layer_activation_bytes(
            run, first=True
        ) - memory_passes.layer_activation_bytes(run)

    (measured_on, estimate_on), (measured_off, estimate_off) = first_less_later(True), first_less_later(False)
    assert measured_on - measured_off < 0  # the masks the first block does not keep
    assert estimate_on - estimate_off == measured_on - measured_off


@pytest.mark.parametrize("family", ["mixtral", "qwen2_moe", "qwen3_moe", "olmoe"])
@pytest.mark.parametrize("targets", [("q", "k", "v", "o", "gate", "up", "down"), ("q", "v"), ("down",)])
def test_lora_on_a_mixture_of_experts_trains_what_the_calculator_counts(family, targets, tmp_path):
    import torch

    from pilot.model import build_model

    cfg = _resolved(family, 2, tmp_path, method="lora", dtype="fp32", autocast=False, targets=targets)
    model = build_model(cfg.model, cfg.train, cfg.seed, torch.device("cpu"))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == calculators.compute("memory", memory_inputs(cfg.to_dict(), "cpu"))["result"]["lora_params"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "lora", "--lora-dropout", "0.1"], "peft cannot apply LoRA dropout to the routed experts"),
        (
            ["--method", "lora", "--lora-targets", "q,gate"],
            "fuses gate, up into gate_up_proj; target all of them or none",
        ),
    ],
)
def test_the_pilot_refuses_what_peft_cannot_do_on_experts_in_one_line(args, message, tmp_path, capsys):
    from pilot.cli import main

    config = tmp_path / "mixtral.json"
    config.write_text(json.dumps(NEW_FAMILIES["mixtral"]), encoding="utf-8")
    status = main(
        ["run", "--model-config", str(config), *args, "--quiet", "-o", str(tmp_path / "r.json"), "--steps", "2"]
    )
    err = capsys.readouterr().err
    assert status == 1 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
