"""The restore check: resume a mid-run checkpoint in a fresh process and compare with the run that went on.

The parent records, at the checkpoint step, a fingerprint of every part of the live training
state; after the run it keeps the losses that followed and the final weights. A new interpreter
(`python -m pilot _resume`) scrambles every RNG, so nothing can match by coincidence, restores the
checkpoint, fingerprints what it restored, continues to the last step and reports back.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .checkpoint import (
    _fingerprint,
    atomic_save,
    compare_fingerprints,
    fingerprints,
    load_checkpoint,
    restore_training_state,
    state_differences,
    training_state,
)
from .config import PilotConfig
from .processes import run_child
from .progress import Progress
from .report import Checkpoint, RestoreCheck
from .trainer import Trainer, seed_everything

# On a GPU the continued run may use other reduction orders; these bounds are stated in the report.
GPU_RTOL, GPU_ATOL = 1e-2, 1e-3
RESUME_TIMEOUT_S = 3600
PROGRESS_LINE = "gpu-pilot-progress"


@dataclass
class Reference:
    """What the uninterrupted run knows about itself, to judge the resumed one."""

    checkpoint: Path
    step: int
    state: dict[str, dict[str, str]]
    losses: list[float] = field(default_factory=list)
    final: dict[str, str] = field(default_factory=dict)
    final_params: dict[str, torch.Tensor] = field(default_factory=dict)


def write_checkpoint(trainer: Trainer, path: Path) -> tuple[Reference, Checkpoint]:
    reference = Reference(path, trainer.steps_done, fingerprints(trainer))
    seconds, size = atomic_save(training_state(trainer), path)
    return reference, Checkpoint(step=trainer.steps_done, write_s=seconds, size_bytes=size, processes=1, sharded=False)


def finish_reference(reference: Reference, trainer: Trainer, losses_after: list[float]) -> None:
    reference.losses = list(losses_after)
    reference.final = {n: _fingerprint(p) for n, p in trainer.trainable}
    if trainer.device.type != "cpu":
        reference.final_params = {n: p.detach().float().cpu().clone() for n, p in trainer.trainable}


def resume_main(manifest_path: Path, out_path: Path, fault: str | None = None) -> int:
    """Entry point of the fresh process."""
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    cfg = PilotConfig.from_dict(manifest["config"])
    device = torch.device(manifest["device"])
    trainer = Trainer(cfg, device)
    seed_everything(cfg.seed + 1_000_003)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(cfg.seed + 1_000_003)
    restore_training_state(trainer, load_checkpoint(Path(manifest["checkpoint"]), device), fault)
    restored = fingerprints(trainer)
    print(PROGRESS_LINE, flush=True)  # the parent's progress bar: one tick for the restore, one per step
    losses = []
    for _ in range(manifest["until_step"] - manifest["from_step"]):
        losses.append(trainer.step()[0])
        print(PROGRESS_LINE, flush=True)
    final = {n: _fingerprint(p) for n, p in trainer.trainable}
    if device.type != "cpu":
        torch.save({n: p.detach().float().cpu() for n, p in trainer.trainable}, Path(out_path).with_suffix(".pt"))
    Path(out_path).write_text(json.dumps({"restored": restored, "losses": losses, "final": final}), encoding="utf-8")
    return 0


def verify(
    cfg: PilotConfig,
    device: torch.device,
    reference: Reference,
    workdir: Path,
    fault: str | None = None,
    show: bool = False,
) -> RestoreCheck:
    """Run the fresh process and compare; every failure is one precise sentence."""
    t0 = time.perf_counter()
    bitwise = device.type == "cpu"
    until = reference.step + len(reference.losses)
    manifest = workdir / "resume-manifest.json"
    out = workdir / "resumed.json"
    out.unlink(missing_ok=True)
    manifest.write_text(
        json.dumps(
            {
                "config": cfg.to_dict(),
                "device": str(device),
                "checkpoint": str(reference.checkpoint),
                "from_step": reference.step,
                "until_step": until,
            }
        ),
        encoding="utf-8",
    )
    cmd = [sys.executable, "-m", "pilot", "_resume", str(manifest), str(out)] + (["--fault", fault] if fault else [])
    log = workdir / "resume-stderr.log"
    bar = Progress(1 + len(reference.losses), "restore", show)
    try:
        returncode = run_child(
            cmd, log, RESUME_TIMEOUT_S, lambda line: bar.update() if line.strip() == PROGRESS_LINE else None
        )
    finally:
        bar.close()
    check = RestoreCheck(
        performed=True,
        passed=False,
        mode="bitwise" if bitwise else "tolerance",
        rtol=0.0 if bitwise else GPU_RTOL,
        atol=0.0 if bitwise else GPU_ATOL,
        fresh_process=True,
        resumed_from_step=reference.step,
        resumed_steps=len(reference.losses),
        verified=[],
        failures=[],
        max_loss_abs_diff=None,
        max_param_abs_diff=None,
        duration_s=0.0,
    )
    if returncode != 0 or not out.exists():
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] or ["no output"]
        check.failures.append(f"the fresh process could not resume (exit {returncode}): {tail[0]}")
        check.checks.append({"check": "resume", "passed": False, "exit_code": returncode, "message": tail[0][:1000]})
    else:
        _compare(check, reference, json.loads(out.read_text(encoding="utf-8")), out.with_suffix(".pt"))
    check.passed = not check.failures
    check.duration_s = time.perf_counter() - t0
    return check


def _compare(check: RestoreCheck, ref: Reference, resumed: dict[str, Any], params_file: Path) -> None:
    state_failures = compare_fingerprints(ref.state, resumed["restored"])
    check.failures += state_failures
    check.checks += state_differences(ref.state, resumed["restored"])
    failed = {f.split(" ", 1)[0] for f in state_failures}
    for component, entries in ref.state.items():
        if component not in failed:
            check.verified.append(f"{component}: {len(entries)} entries identical after restore at step {ref.step}")
            check.checks.append(
                {"check": "state", "passed": True, "component": component, "count": len(entries), "step": ref.step}
            )
    diffs = [abs(a - b) for a, b in zip(ref.losses, resumed["losses"])]
    check.max_loss_abs_diff = max(diffs, default=0.0)
    word = "bitwise identical" if check.mode == "bitwise" else f"within rtol {check.rtol:g}"
    losses_ok = len(diffs) == len(ref.losses) and all(
        d == 0.0 if check.mode == "bitwise" else d <= check.atol + check.rtol * abs(a)
        for d, a in zip(diffs, ref.losses)
    )
    if losses_ok:
        check.verified.append(f"continued losses for {len(diffs)} steps: {word}")
        check.checks.append({"check": "losses", "passed": True, "count": len(diffs)})
    else:
        first = next((i for i, d in enumerate(diffs) if d != 0.0), 0)
        check.failures.append(
            f"continued losses diverge from the uninterrupted run at step {ref.step + first + 1}: "
            f"expected {ref.losses[first]!r}, got {resumed['losses'][first]!r}"
        )
        check.checks.append(
            {
                "check": "losses",
                "passed": False,
                "step": ref.step + first + 1,
                "expected": _number(ref.losses, first),
                "got": _number(resumed["losses"], first),
            }
        )
    if check.mode == "bitwise":
        differ = [n for n in ref.final if resumed["final"].get(n) != ref.final[n]]
        check.max_param_abs_diff = None if differ else 0.0
    else:
        other = torch.load(params_file, weights_only=True)
        gaps = {n: (ref.final_params[n] - other[n]).abs().max().item() for n in ref.final_params}
        check.max_param_abs_diff = max(gaps.values(), default=0.0)
        differ = [
            n
            for n in ref.final_params
            if not torch.allclose(other[n], ref.final_params[n], rtol=check.rtol, atol=check.atol)
        ]
    if differ:
        check.failures.append(
            f"final parameters differ from the uninterrupted run: {len(differ)} of "
            f"{len(ref.final)} tensors (first: {differ[0]})"
        )
        check.checks.append(
            {"check": "parameters", "passed": False, "count": len(differ), "total": len(ref.final), "first": differ[0]}
        )
    else:
        check.verified.append(f"final trainable parameters ({len(ref.final)} tensors): {word}")
        check.checks.append({"check": "parameters", "passed": True, "count": len(ref.final)})
    if check.max_param_abs_diff is not None and not math.isfinite(check.max_param_abs_diff):
        check.max_param_abs_diff = None


def _number(losses: list[float], i: int) -> float | None:
    """A loss for the file: JSON has no NaN (a diverged loss) and no value past a list's end."""
    value = losses[i] if i < len(losses) else None
    return value if value is not None and math.isfinite(value) else None
