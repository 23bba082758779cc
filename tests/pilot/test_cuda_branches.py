"""The pilot's GPU-only branches, run on the CPU: QLoRA's quantization through the real bitsandbytes (whose
CPU backend quantizes as its CUDA one does), and, with the device calls faked, the fused loss's patch, the
CUDA memory meters and cap, CUDA event timing, the RNG state of the CUDA generators and the NCCL process
group of a scaling rank. A GPU run then exercises only the device itself."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
import torch
from torch import nn

from pilot import checkpoint, environment, runner, scale_launch, steps
from pilot.config import ModelConfig, TrainConfig
from pilot.hf_model import PilotSetupError, _fused_loss, _lora, _quantize, check_device, hf_config
from pilot.memory import DeviceSampler
from pilot.trainer import StepTimer

from .conftest import tiny

CONFIG = Path(__file__).parents[1] / "fixtures" / "hf-configs" / "llama-tiny.json"
CUDA = torch.device("cuda", 0)


def _hf_model(model: ModelConfig):
    import transformers

    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(hf_config(model), dtype=torch.float32)


@pytest.mark.slow  # a real model quantized and run
def test_qlora_puts_every_decoder_linear_in_nf4_and_adapts_it():
    bnb = pytest.importorskip("bitsandbytes")
    model_cfg = ModelConfig(config_file=str(CONFIG))
    train = TrainConfig(method="qlora", lora_rank=4, lora_targets=("q", "k", "v", "o", "gate", "up", "down"))
    model = _hf_model(model_cfg)
    shapes = {n: (m.in_features, m.out_features) for n, m in model.named_modules() if isinstance(m, nn.Linear)}
    _quantize(model, train, torch.bfloat16, torch.device("cpu"))
    quantized = {n: m for n, m in model.named_modules() if isinstance(m, bnb.nn.Linear4bit)}
    assert set(quantized) == {n for n in shapes if not n.endswith("lm_head")} and len(quantized) == 2 * 7
    for name, layer in quantized.items():
        assert layer.weight.quant_type == "nf4" and layer.weight.compress_statistics
        assert layer.compute_dtype == torch.bfloat16
        inputs, outputs = shapes[name]
        assert layer.weight.dtype == torch.uint8 and layer.weight.numel() == inputs * outputs // 2  # 4 bits each
    assert isinstance(model.lm_head, nn.Linear) and not isinstance(model.lm_head, bnb.nn.Linear4bit)
    adapted = _lora(model, model_cfg, train)
    trainable = [n for n, p in adapted.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    logits = adapted(torch.randint(0, 300, (1, 8))).logits
    assert logits.shape == (1, 8, 300) and torch.isfinite(logits).all()


def test_qlora_and_the_fused_loss_are_refused_off_cuda_in_one_line():
    with pytest.raises(PilotSetupError, match="train.method 'qlora' needs bitsandbytes on a CUDA device"):
        check_device(TrainConfig(method="qlora"), torch.device("cpu"))
    with pytest.raises(PilotSetupError, match="train.loss 'fused' needs Liger Kernel's Triton kernels"):
        check_device(TrainConfig(loss="fused"), torch.device("cpu"))
    check_device(TrainConfig(method="qlora", loss="fused"), CUDA)  # no refusal on a CUDA device


def test_the_fused_loss_patches_only_the_loss(monkeypatch):
    calls = []
    fake = types.ModuleType("liger_kernel.transformers")
    fake._apply_liger_kernel = lambda model_type, **switches: calls.append((model_type, switches))
    monkeypatch.setitem(sys.modules, "liger_kernel", types.ModuleType("liger_kernel"))
    monkeypatch.setitem(sys.modules, "liger_kernel.transformers", fake)
    _fused_loss(hf_config(ModelConfig(config_file=str(CONFIG))), TrainConfig(loss="fused"), CUDA)
    assert calls == [
        (
            "llama",
            {
                "fused_linear_cross_entropy": True,
                "cross_entropy": False,
                "rms_norm": False,
                "rope": False,
                "swiglu": False,
            },
        )
    ]
    monkeypatch.setitem(sys.modules, "liger_kernel.transformers", None)  # not installed
    with pytest.raises(PilotSetupError, match="needs the 'liger-kernel' package"):
        _fused_loss(None, TrainConfig(loss="fused"), CUDA)


class _FakeCuda:
    """The torch.cuda calls the meters make, answering like an 80 GB card."""

    TOTAL = 80_000_000_000

    def __init__(self, monkeypatch):
        self.free = [70_000_000_000, 50_000_000_000, 60_000_000_000]
        self.calls: list[tuple] = []
        for name, fn in {
            "mem_get_info": lambda device=None: (self.free.pop(0), self.TOTAL),
            "max_memory_allocated": lambda device=None: 21_000_000_000,
            "max_memory_reserved": lambda device=None: 24_000_000_000,
            "empty_cache": lambda: self.calls.append(("empty_cache",)),
            "reset_peak_memory_stats": lambda device=None: self.calls.append(("reset_peak", device)),
            "get_device_properties": lambda device=None: types.SimpleNamespace(total_memory=self.TOTAL),
            "set_per_process_memory_fraction": lambda f, device=None: self.calls.append(("fraction", f, device)),
            "synchronize": lambda device=None: self.calls.append(("synchronize",)),
        }.items():
            monkeypatch.setattr(torch.cuda, name, fn)


def test_cuda_memory_meters_and_cap(monkeypatch):
    fake = _FakeCuda(monkeypatch)
    trainer = types.SimpleNamespace(device=CUDA)
    sampler = DeviceSampler(CUDA)
    for _ in range(3):
        sampler.sample()
    memory = runner._memory(tiny(memory_limit_gb=40), trainer, steps.Meters(None, sampler))
    assert memory.method == "cuda_allocator"
    assert (memory.peak_tensor_bytes, memory.reserved_bytes) == (21_000_000_000, 24_000_000_000)
    assert (memory.device_used_peak_bytes, memory.device_total_bytes) == (30_000_000_000, fake.TOTAL)  # the fullest
    assert memory.limit_bytes == 40_000_000_000
    steps.release(CUDA)
    runner.cap_device(tiny(memory_limit_gb=40), CUDA)
    runner.cap_device(tiny(memory_limit_gb=200), CUDA)  # above the card: the whole card, not more
    runner.cap_device(tiny(), CUDA)  # no limit: nothing set
    assert fake.calls == [("empty_cache",), ("reset_peak", CUDA), ("fraction", 0.5, CUDA), ("fraction", 1.0, CUDA)]


def test_a_cuda_step_is_timed_by_events_after_a_synchronize(monkeypatch):
    fake = _FakeCuda(monkeypatch)

    class Event:
        def __init__(self, enable_timing=False):
            assert enable_timing

        def record(self):
            fake.calls.append(("record",))

        def elapsed_time(self, end):
            return 12.5  # milliseconds, as CUDA events report

    monkeypatch.setattr(torch.cuda, "Event", Event)
    with StepTimer(CUDA) as timer:
        pass
    assert timer.seconds == 0.0125 and fake.calls == [("record",), ("record",), ("synchronize",)]


def test_the_cuda_generators_are_saved_and_restored(monkeypatch):
    state = [torch.tensor([1, 2, 3], dtype=torch.uint8)]
    restored = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_rng_state_all", lambda: state)
    monkeypatch.setattr(torch.cuda, "set_rng_state_all", restored.append)
    saved = checkpoint.rng_state()
    assert saved["torch_cuda"] == state
    checkpoint.set_rng_state(saved)
    checkpoint.set_rng_state(saved, skip="torch_cuda")  # the restore check's planted fault leaves it out
    assert restored == [state]


def test_a_scaling_rank_on_a_gpu_joins_nccl_on_its_local_device(monkeypatch, tmp_path):
    import torch.distributed as dist

    seen = {}
    for name, value in (("RANK", "3"), ("WORLD_SIZE", "8"), ("LOCAL_RANK", "3")):
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(scale_launch, "resolve_device", lambda name: torch.device("cuda"))
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: seen.setdefault("device", device))
    monkeypatch.setattr(runner, "cap_device", lambda cfg, device: seen.setdefault("capped", device))

    def init(backend):
        seen["backend"] = backend
        raise RuntimeError("stop here: no GPU")

    monkeypatch.setattr(dist, "init_process_group", init)
    config = tmp_path / "config.json"
    config.write_text(json.dumps(tiny().to_dict()), encoding="utf-8")
    out = tmp_path / "fsdp.json"
    with pytest.raises(RuntimeError, match="stop here"):
        scale_launch.worker_main(config, "fsdp", out)
    assert seen == {"device": torch.device("cuda", 3), "capped": torch.device("cuda", 3), "backend": "nccl"}
    assert (tmp_path / "fsdp.json.rank3.error").read_text(encoding="utf-8") == "rank 3: RuntimeError: stop here: no GPU"


@pytest.mark.parametrize(
    ("device", "hip", "backend", "label"),
    [
        ("cpu", None, "gloo", "gloo"),
        ("cuda", None, "nccl", "nccl"),
        ("cuda", "6.2", "nccl", "rccl"),
    ],
)
def test_the_collective_library_follows_the_device_and_build(monkeypatch, device, hip, backend, label):
    monkeypatch.setattr(torch.version, "hip", hip)
    assert scale_launch.process_group_backend(torch.device(device)) == backend
    assert scale_launch.backend_label(torch.device(device)) == label


def test_the_environment_names_the_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H200")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 8)
    monkeypatch.setattr(environment, "driver_version", lambda: "570.86.15")
    env = environment.collect(CUDA)
    assert (env.device_type, env.device_name, env.device_count, env.driver) == ("cuda", "NVIDIA H200", 8, "570.86.15")


def _script_commands() -> list[list[str]]:
    """Every `gpu-pilot` command benchmarks/gpu_pilot.sh runs, as argument lists (run's COMMON options
    included, shell variables given plain values)."""
    import re
    import shlex

    text = (Path(__file__).parents[2] / "benchmarks" / "gpu_pilot.sh").read_text(encoding="utf-8")
    text = re.sub(r"\\\n\s*", " ", text)  # continuation lines joined
    values = {"DEVICE_NAME": "NVIDIA H200", "GPUS": "8", "WORK": "/tmp/w", "OUTDIR": "/tmp/o", "name": "n"}
    text = re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), m.group(0)), text)
    common = shlex.split(re.search(r"COMMON=\((.*?)\)", text, re.S).group(1))
    commands = []
    for line in text.splitlines():
        try:
            words = shlex.split(line.split(" >>", 1)[0])
        except ValueError:  # a line of the Python the script embeds
            continue
        if words[:1] == ["pilot"] and len(words) > 3:  # pilot LIMIT NAME OPTIONS...
            commands.append(["run", *common, *words[3:], "--output", "/tmp/o/x.json"])
        elif "-m" in words and words[words.index("-m") + 1 : words.index("-m") + 3] == ["pilot", "scale"]:
            commands.append(words[words.index("-m") + 2 :])
    return commands


def test_gpu_pilot_sh_runs_unchanged_against_todays_options():
    """Every option the GPU script passes is one the CLI accepts and checks, before any GPU is needed."""
    from pilot import cli
    from pilot.scale_config import ScaleConfig, split_batch

    commands = _script_commands()
    assert sum(c[0] == "run" for c in commands) == 5 and sum(c[0] == "scale" for c in commands) == 1
    for argv in commands:
        args = cli._parser().parse_args(argv)
        cfg = cli.config_from_args(args)
        assert cfg.device == "cuda" and cfg.train.precision == "bf16"
        if args.command == "scale":
            scale = ScaleConfig.from_args(args)
            assert scale.strategies == ("ddp", "zero1", "zero2", "fsdp", "fsdp_ckpt") and scale.world == 8
            split_batch(cfg, scale.world)
