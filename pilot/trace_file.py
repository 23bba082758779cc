"""`gpu-pilot trace`: one training step traced at full width (`pilot.trace`), as a result file of kind
'trace' beside the calculator's estimate.

The trace counts the tensors a CPU run of the configuration holds, so the file records the CPU's
configuration and environment and compares the peak with the calculator's CPU estimate (the same
memory model, with the CPU's optimizer path and dropout masks); the GPU estimate is recorded beside it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from .config import PilotConfig
from .report import ModelInfo, Outcome, PilotResult, TraceFigures

DEFAULT_OUTPUT = Path("pilot-trace.json")


def traced_config(cfg: PilotConfig) -> PilotConfig:
    """The configuration as traced: on the CPU, no memory cap or thread setting; a local model directory
    is traced from its config.json (a trace needs no weights)."""
    model = cfg.model
    if model.source != "builtin" and not model.config_file and Path(model.source).is_dir():
        model = dataclasses.replace(model, source="builtin", config_file=str(Path(model.source) / "config.json"))
    return dataclasses.replace(cfg, model=model, device="cpu", memory_limit_gb=0.0, threads=0)


def _cuda_estimate(cfg: PilotConfig) -> int | None:
    try:
        from calculators.pilot_inputs import tensor_peak

        answer = tensor_peak(cfg.to_dict(), "cuda")
    except Exception:  # noqa: BLE001 - the GPU figure is a bonus; the CPU comparison says why when it fails
        return None
    return answer["estimated_bytes"] if answer["ok"] else None


def _compared(cfg: PilotConfig, model_type: str, traced: int):
    """The CPU estimate against the trace; for a family the calculator does not model, the reason says so."""
    from calculators.hf_config import MODEL_TYPES

    from .estimate import compare

    found = compare(cfg, traced, "cpu")
    if not found.available and cfg.model.is_transformers and model_type not in MODEL_TYPES:
        found.reason = (
            f"the memory calculator does not model {model_type!r} models (it models {', '.join(MODEL_TYPES)})"
        )
    return found


def trace_result(cfg: PilotConfig) -> PilotResult:
    """Trace `cfg` (see `traced_config`) and return the result of kind 'trace'."""
    import torch

    from . import environment, model_source
    from .hf_model import any_causal_lm
    from .model import parameter_count
    from .trace import trace_step
    from .trainer import resolved

    counts: list[tuple[int, int]] = []
    with any_causal_lm():  # a family the calculator does not model traces too; its estimate says why it is absent
        cfg = resolved(traced_config(cfg))
        ident = model_source.identity(cfg.model, any_family=True)
        trace = trace_step(cfg, seen=lambda module: counts.append(parameter_count(module)))
    parameters, trainable = counts[0]
    return PilotResult(
        kind="trace",
        label=cfg.label,
        note=cfg.note,
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        environment=environment.collect(torch.device("cpu")),
        config=cfg.to_dict(),
        model=ModelInfo(
            cfg.model.config_file or cfg.model.source,
            parameters,
            trainable,
            cfg.model_hash(ident.config_sha256),
            None,
            ident.family,
            ident.config_sha256,
        ),
        outcome=Outcome("completed"),
        estimate=_compared(cfg, ident.family, trace.peak_bytes),
        trace=TraceFigures(
            peak_step=trace.peak_step,
            peak_bytes=trace.peak_bytes,
            parameters=trace.parameters,
            gradients=trace.gradients,
            optimizer_state=trace.optimizer_state,
            activations_and_temporaries=trace.other,
            cuda_estimated_bytes=_cuda_estimate(cfg),
        ),
    )


def _gb(n: int) -> str:
    """Decimal units, as the site's calculator states memory."""
    return f"{n / 1e9:,.2f} GB" if n >= 1e9 else f"{n / 1e6:,.2f} MB" if n >= 1e6 else f"{n:,} bytes"


def summary(result: PilotResult) -> str:
    """The terminal's lines: the peak, its breakdown and the estimates."""
    t, m, train = result.trace, result.model, result.config["train"]
    lines = [
        f"traced (FakeTensorMode, CPU tensors, no GPU): {m.family}, {m.parameters:,} parameters, "
        f"{m.trainable_parameters:,} trainable, {result.config['model']['dtype']} weights; {train['method']}, "
        f"precision {train['precision']}, "
        f"micro-batch {train['micro_batch']} x {train['seq_len']} tokens, "
        f"checkpointing {'on' if train['grad_checkpointing'] else 'off'}, {train['optimizer']}",
        f"peak of live tensors          {_gb(t.peak_bytes)}, in step {t.peak_step} of {t.steps}",
        f"  parameters                  {_gb(t.parameters)}",
        f"  gradients                   {_gb(t.gradients)}",
        f"  optimizer state             {_gb(t.optimizer_state)}",
        f"  activations and temporaries {_gb(t.activations_and_temporaries)}",
    ]
    e = result.estimate
    if e.available:
        lines.append(
            f"calculator's estimate        {_gb(e.estimated_bytes)} on the CPU ({e.relative_error:+.1%} against the trace)"
            + (f"; {_gb(t.cuda_estimated_bytes)} on a GPU" if t.cuda_estimated_bytes is not None else "")
        )
    else:
        lines.append(f"calculator's estimate        none: {e.reason}")
    return "\n".join(lines)
