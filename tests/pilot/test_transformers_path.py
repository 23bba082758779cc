"""The pilot on the real stack: transformers models built from a config.json with random weights,
LoRA through peft, on the CPU. One tiny model per supported family, seconds each."""

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

from pilot import runner  # noqa: E402
from pilot.cli import main  # noqa: E402
from pilot.config import PilotConfig  # noqa: E402
from pilot.hf_model import PilotSetupError, resolve  # noqa: E402
from pilot.trainer import resolved  # noqa: E402

# Child processes and real training: the full suite's (`make test`), not the fast tier's.
pytestmark = pytest.mark.slow

CONFIGS = Path(__file__).parents[1] / "fixtures" / "hf-configs"


def hf(family: str, restore: bool = False, **train) -> PilotConfig:
    return PilotConfig(
        model={"config_file": str(CONFIGS / f"{family}-tiny.json")},
        train={"micro_batch": 2, "seq_len": 32, **train},
        data={"synthetic_sequences": 16},
        warmup_steps=2,
        steps=2,
        val_batches=1,
        threads=1,
        restore_check=restore,
    )


@pytest.mark.parametrize(
    "family, train",
    [
        ("llama", {"method": "lora", "precision": "bf16", "lora_dropout": 0.1}),
        ("qwen2", {"method": "full", "grad_checkpointing": True}),
        ("mistral", {"method": "lora", "grad_checkpointing": True, "optimizer_impl": "fused"}),
        ("phi3", {"method": "lora", "lora_dropout": 0.1}),
    ],
)
def test_each_family_trains_records_its_own_shape_and_is_estimated(family, train, tmp_path, validate):
    cfg = hf(family, **train)
    result = runner.run(cfg, tmp_path, show_progress=False)
    data = validate(result)
    spec = json.loads((CONFIGS / f"{family}-tiny.json").read_text())
    model = data["config"]["model"]
    # The shape and vocabulary are the model's, not the built-in defaults, and so is the data.
    assert (model["layers"], model["hidden"], model["vocab"]) == (
        spec["num_hidden_layers"],
        spec["hidden_size"],
        spec["vocab_size"],
    )
    assert model["dtype"] == "bf16"  # the checkpoint's dtype, as transformers loads it by default
    assert data["outcome"]["status"] == "completed"
    est = data["estimate"]
    assert est["available"], est["reason"]
    assert abs(est["relative_error"]) <= 0.05, est


def test_restore_check_passes_bitwise_on_the_transformers_path(tmp_path):
    result = runner.run(hf("llama", restore=True, method="lora", precision="bf16"), tmp_path, show_progress=False)
    assert result.restore.passed and result.restore.fresh_process, result.restore.failures


def test_synthetic_tokens_cover_the_models_vocabulary():
    from pilot.data import load_tokens

    cfg = resolved(hf("qwen2"))
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    assert cfg.model.vocab == 1000 and tokens.max().item() > 512  # the built-in default vocabulary is 512


def test_a_preset_resolves_to_the_real_shape_without_building_it():
    model = resolve(PilotConfig(model={"source": "llama-3.1-8b"}).model)
    assert (model.layers, model.hidden, model.kv_heads, model.vocab, model.dtype) == (32, 4096, 8, 128256, "bf16")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--model-config", str(CONFIGS / "gpt2-tiny.json")], "model type 'gpt2' is not supported"),
        (
            ["--model-config", str(CONFIGS / "llama-tiny.json"), "--method", "qlora"],
            "needs bitsandbytes on a CUDA device",
        ),
        (["--model-config", str(CONFIGS / "llama-tiny.json"), "--loss", "fused"], "on a CUDA device"),
        (["--model", "no-such-model"], "model.source must be 'builtin', a preset"),
        (["--lora-dropout", "0.1"], "needs a transformers model"),
        (
            ["--model-config", str(CONFIGS / "phi3-tiny.json"), "--method", "lora", "--lora-targets", "q,v"],
            "this model fuses q, k, v into qkv_proj; target all of them or none",
        ),
    ],
)
def test_setup_errors_are_one_line(args, message, tmp_path, capsys):
    status = main(["run", *args, "--quiet", "-o", str(tmp_path / "r.json"), "--steps", "2"])
    err = capsys.readouterr().err
    assert status == 1 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.json").exists()


def test_setup_error_type_is_a_value_error():
    with pytest.raises(PilotSetupError):
        resolve(PilotConfig(model={"config_file": str(CONFIGS / "gpt2-tiny.json")}).model)


def test_fsdp_finds_each_decoder_layer_of_a_transformers_model():
    import torch

    from pilot.model import build_model, decoder_layers

    cfg = resolved(hf("mistral", method="lora"))
    model = build_model(cfg.model, cfg.train, cfg.seed, torch.device("cpu"))
    layers = decoder_layers(model)
    assert len(layers) == cfg.model.layers == 2
    assert {type(layer).__name__ for layer in layers} == {"MistralDecoderLayer"}


@pytest.fixture(scope="module")
def hf_reference(tmp_path_factory):
    """A LoRA run with dropout (it consumes the torch RNG), checkpointed mid-way in a fresh workdir."""
    from .conftest import checkpointed_reference

    cfg = resolved(hf("llama", restore=True, method="lora", lora_dropout=0.1))
    return checkpointed_reference(cfg, tmp_path_factory.mktemp("hf-faults"))


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("drop_optimizer", "optimizer not restored: "),
        ("skip_rng:torch_cpu", "rng.torch_cpu not restored"),
    ],
)
def test_restore_faults_are_caught_on_the_transformers_path(hf_reference, fault, reason):
    import torch

    from pilot import restore

    cfg, ref, workdir = hf_reference
    check = restore.verify(cfg, torch.device("cpu"), ref, workdir, fault=fault)
    assert not check.passed and check.failures[0].startswith(reason), check.failures


def test_a_local_checkpoint_loads_in_its_own_dtype(tmp_path):
    """`--model DIR`: the weights come from the directory, in the dtype it was saved in."""
    import torch
    import transformers

    from pilot.model import build_model

    spec = json.loads((CONFIGS / "llama-tiny.json").read_text())
    config = transformers.AutoConfig.for_model(**{k: v for k, v in spec.items() if k != "architectures"})
    torch.manual_seed(0)
    saved = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    saved.save_pretrained(tmp_path)
    cfg = resolved(PilotConfig(model={"source": str(tmp_path)}, train={"method": "full", "seq_len": 8}))
    assert cfg.model.dtype == "bf16" and cfg.model.vocab == 300
    model = build_model(cfg.model, cfg.train, cfg.seed, torch.device("cpu"))
    weight = model.inner.model.embed_tokens.weight
    assert weight.dtype == torch.bfloat16 and torch.equal(weight, saved.model.embed_tokens.weight)


def test_fused_projections_get_one_adapter_each_and_the_calculators_count():
    """Phi-3's qkv_proj and gate_up_proj: every projection the run names is adapted, as a whole."""
    import torch

    import calculators
    from pilot.hf_model import build

    cfg = resolved(hf("phi3", method="lora"))
    model = build(cfg.model, cfg.train, seed=0, device=torch.device("cpu"))
    adapted = {name.rsplit(".", 2)[-2] for name, _ in model.named_modules() if name.endswith("lora_A")}
    assert adapted == {"qkv_proj", "o_proj", "gate_up_proj", "down_proj"}
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    from calculators.pilot_inputs import memory_inputs

    inputs = memory_inputs(cfg.to_dict(), "cpu")
    assert inputs["fused_projections"] is True
    assert trainable == calculators.compute("memory", inputs)["result"]["lora_params"]


@pytest.mark.parametrize(
    "targets", [["q", "v"], ["q", "k", "v"], ["gate"], ["gate", "up", "down"], ["o"], ["q", "k", "v", "gate"]]
)
def test_the_calculator_and_the_pilot_refuse_the_same_fused_targets(targets):
    import calculators
    from calculators import hf_config
    from pilot.hf_model import lora_modules

    inputs, _ = hf_config.inputs_from_config(json.loads((CONFIGS / "phi3-tiny.json").read_text(encoding="utf-8")))
    answer = calculators.compute("memory", {**inputs, "method": "lora", "lora_targets": targets})
    calculator_refuses = any(e["code"] == "fused_target_partial" for e in answer.get("errors", []))
    try:
        lora_modules(targets, fused=True)
        pilot_refuses = False
    except PilotSetupError:
        pilot_refuses = True
    assert calculator_refuses == pilot_refuses == (targets in (["q", "v"], ["gate"], ["q", "k", "v", "gate"]))
