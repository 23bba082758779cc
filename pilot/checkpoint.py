"""Checkpoints: what a bitwise-identical resume needs, written atomically, and fingerprints of it.

A resume needs the model, optimizer and scheduler state dicts, every RNG (Python, NumPy, torch CPU
and each device), the data position and the thread count. RNG states are stored as plain lists and
ints so `torch.load(weights_only=True)` accepts the file.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .atomic import atomic_write
from .data import DataPosition

FAULTS = (
    "drop_optimizer",
    "reset_scheduler",
    "lose_data_position",
    "skip_rng:python",
    "skip_rng:numpy",
    "skip_rng:torch_cpu",
    "skip_rng:torch_cuda",
)


def rng_state() -> dict[str, Any]:
    version, keys, gauss = random.getstate()
    name, np_keys, pos, has_gauss, cached = np.random.get_state()
    return {
        "python": [version, list(keys), gauss],
        "numpy": [name, np_keys.tolist(), int(pos), int(has_gauss), float(cached)],
        "torch_cpu": torch.get_rng_state(),
        "torch_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }


def set_rng_state(state: dict[str, Any], skip: str | None = None) -> None:
    if skip != "python":
        version, keys, gauss = state["python"]
        random.setstate((version, tuple(keys), gauss))
    if skip != "numpy":
        name, keys, pos, has_gauss, cached = state["numpy"]
        np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))
    if skip != "torch_cpu":
        torch.set_rng_state(state["torch_cpu"])
    if skip != "torch_cuda" and state["torch_cuda"]:
        torch.cuda.set_rng_state_all(state["torch_cuda"])


def model_state(trainer) -> dict[str, torch.Tensor]:
    """Full fine-tune: every weight. LoRA: only the adapters; the frozen base is rebuilt from the seed."""
    if trainer.cfg.train.method == "full":
        return trainer.module.state_dict()
    return {name: p.detach() for name, p in trainer.trainable}


def training_state(trainer) -> dict[str, Any]:
    pos = trainer.source.position
    return {
        "step": trainer.steps_done,
        "model": model_state(trainer),
        "optimizer": trainer.optimizer.state_dict(),
        "scheduler": trainer.scheduler.state_dict(),
        "rng": rng_state(),
        "data": {"epoch": pos.epoch, "batch": pos.batch},
        "threads": torch.get_num_threads(),
    }


def restore_training_state(trainer, state: dict[str, Any], fault: str | None = None) -> None:
    """Load a checkpoint into a freshly built trainer; `fault` plants one defect for the self-tests."""
    if fault is not None and fault not in FAULTS:  # a misspelt fault would plant nothing and pass
        raise ValueError(f"unknown restore fault {fault!r}; one of {', '.join(FAULTS)}")
    trainer.module.load_state_dict(state["model"], strict=trainer.cfg.train.method == "full")
    if fault != "drop_optimizer":
        trainer.optimizer.load_state_dict(state["optimizer"])
    if fault != "reset_scheduler":
        trainer.scheduler.load_state_dict(state["scheduler"])
    if fault != "lose_data_position":
        trainer.set_position(DataPosition(**state["data"]))
    trainer.steps_done = state["step"]
    torch.set_num_threads(state["threads"])
    skip = fault.split(":", 1)[1] if fault and fault.startswith("skip_rng:") else None
    set_rng_state(state["rng"], skip)


def _fingerprint(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu().contiguous()
        flat = t.reshape(-1)
        raw = flat.to(torch.uint8) if t.dtype == torch.bool else flat.view(torch.uint8)
        digest = hashlib.sha256(raw.numpy().tobytes()).hexdigest()[:16]
        return f"tensor {t.dtype} {tuple(t.shape)} sha256:{digest}"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return "sequence sha256:" + hashlib.sha256(repr(value).encode()).hexdigest()[:16]
    return repr(value)


def _flatten(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), item, out)
    elif isinstance(value, (list, tuple)) and value and any(isinstance(v, (dict, torch.Tensor)) for v in value):
        for i, item in enumerate(value):
            _flatten(f"{prefix}[{i}]", item, out)
    else:
        out[prefix] = _fingerprint(value)


def fingerprints(trainer) -> dict[str, dict[str, str]]:
    """Per component, a short fingerprint of every entry of the live training state."""
    names = [n for n, _ in trainer.trainable]
    opt = trainer.optimizer.state_dict()
    # Name optimizer entries after their parameters so a mismatch says which weight it concerns.
    opt_state = {names[i] if isinstance(i, int) and i < len(names) else str(i): v for i, v in opt["state"].items()}
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt["param_groups"]]
    rng = rng_state()
    components: dict[str, Any] = {
        "model": {n: p for n, p in trainer.module.named_parameters()},
        "optimizer": {"state": opt_state, "param_groups": groups},
        "scheduler": {k: v for k, v in trainer.scheduler.state_dict().items() if k != "lr_lambdas"},
        "data_position": {"epoch": trainer.source.position.epoch, "batch": trainer.source.position.batch},
        "step": {"steps_done": trainer.steps_done},
    }
    for name in ("python", "numpy", "torch_cpu", "torch_cuda"):
        if rng[name] != []:  # no device RNG to compare on a CPU-only machine
            components[f"rng.{name}"] = {"state": rng[name]}
    out = {}
    for component, value in components.items():
        flat: dict[str, str] = {}
        _flatten("", value, flat)
        out[component] = flat
    return out


def state_differences(expected: dict[str, dict[str, str]], actual: dict[str, dict[str, str]]) -> list[dict]:
    """One structured finding per kind of difference in a component (the result file's
    `restore.checks` items): entries missing, unexpected, or with another fingerprint."""
    found = []
    for component, want in expected.items():
        got = actual.get(component, {})
        missing = [k for k in want if k not in got]
        extra = [k for k in got if k not in want]
        differ = [k for k in want if k in got and got[k] != want[k]]
        for problem, keys in (("missing", missing), ("unexpected", extra), ("differ", differ)):
            if keys:
                # Clipped to the schema's limits: a key or a repr can be long.
                item = {
                    "check": "state",
                    "passed": False,
                    "component": component[:200],
                    "problem": problem,
                    "count": len(keys),
                    "total": len(want),
                    "first": keys[0][:1000],
                }
                if problem == "differ":
                    item.update(expected=want[keys[0]][:1000], got=got[keys[0]][:1000])
                found.append(item)
    return found


def compare_fingerprints(expected: dict[str, dict[str, str]], actual: dict[str, dict[str, str]]) -> list[str]:
    """One precise sentence per component that differs."""
    by_component: dict[str, list[str]] = {}
    for d in state_differences(expected, actual):
        if d["problem"] == "missing":
            part = f"{d['count']} of {d['total']} entries missing (first: {d['first']})"
        elif d["problem"] == "unexpected":
            part = f"{d['count']} unexpected entries (first: {d['first']})"
        else:
            part = (
                f"{d['count']} of {d['total']} entries differ "
                f"(first: {d['first']}: expected {d['expected']}, got {d['got']})"
            )
        by_component.setdefault(d["component"], []).append(part)
    return [f"{component} not restored: " + "; ".join(parts) for component, parts in by_component.items()]


def atomic_save(obj: Any, path: Path) -> tuple[float, int]:
    """torch.save through `atomic_write`: a killed or failing writer never destroys the previous
    checkpoint; a full disk raises DiskFullError. Returns (seconds, bytes)."""
    return atomic_write(Path(path), lambda fh: torch.save(obj, fh))


def state_bytes(trainer) -> int:
    """Bytes a checkpoint will take, from the model before its first step: the saved weights plus
    the optimizer's state (AdamW: two moments per trainable value; SGD: one momentum buffer)."""
    saved = sum(t.numel() * t.element_size() for t in model_state(trainer).values())
    trainable = sum(p.numel() * p.element_size() for _, p in trainer.trainable)
    return saved + trainable * (2 if trainer.cfg.train.optimizer == "adamw" else 1)


def load_checkpoint(path: Path, device: torch.device) -> dict[str, Any]:
    state = torch.load(path, map_location=device, weights_only=True)
    # RNG states must stay on the CPU whatever the map location.
    state["rng"]["torch_cpu"] = state["rng"]["torch_cpu"].cpu()
    state["rng"]["torch_cuda"] = [s.cpu() for s in state["rng"]["torch_cuda"]]
    return state
