"""The memory calculator against fake-tensor traces of the presets at their real width (issue 30 item 2).

Each configuration is one preset (calculators/data/models.json) built by transformers with its real
hidden size, heads, vocabulary and experts, and trained for two optimizer steps by the pilot's own
loop under FakeTensorMode (pilot.trace): nothing is allocated, the pilot's storage tracker counts
what would be. The CPU run's peak is the memory model's reference, so the estimate compared is the
CPU one, as in the measured matrix.

Every preset is traced at its full depth. Tracing a few layers and extending the per-layer term is
not exact: that term is constant (to the byte, two to four layers of Qwen2.5-0.5B), but the peak is
the largest of several phases, each affine in the depth with its own slope, so it moves with depth
(Qwen2.5-0.5B full, checkpointed, 256 tokens: the logits of step 2 at 2-3 layers, AdamW foreach's
temporaries of step 1 at 24 layers; the two-layer extension said 4.19 GiB, the full trace 4.60 GiB).

    python -m benchmarks.memory_accuracy --traced [--presets a,b] [--json FILE]
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GOAL = 0.03
DEFAULT_JSON = Path(__file__).parent / "results" / "memory_traced.json"
# Checkpointing off, and the precision cross (fp32 weights, bf16 weights without autocast, fp32 weights
# under bf16 autocast), on small presets only: their effect is per tensor, the same at every size, and a
# trace's time grows with the number of layers (30-90 s for an 8B model on two cores).
UNCHECKPOINTED = ("llama-3.2-1b", "qwen2.5-0.5b", "qwen3-0.6b", "gemma-2-2b", "gemma-3-1b", "olmoe-1b-7b")
# Not a mixture of experts: under fake tensors torch 2.13's grouped_mm accepts bf16 only (its meta function
# refuses fp32, which the CPU kernel runs), so an MoE with fp32 weights cannot be traced.
PRECISION_PRESETS = ("llama-3.2-1b", "qwen3-0.6b", "gemma-3-1b")
PRECISIONS = (("fp32", False), ("bf16", False), ("fp32", True))


@dataclass(frozen=True)
class TracedCase:
    preset: str
    method: str  # full | lora
    dtype: str  # weights: bf16 | fp32
    autocast: bool  # bf16 autocast
    ckpt: bool
    micro_batch: int = 1
    seq_len: int = 2048

    @property
    def name(self) -> str:
        return " ".join(
            [
                self.preset,
                self.method,
                f"{self.dtype}{'+autocast' if self.autocast else ''}",
                *(["ckpt"] if self.ckpt else []),
            ]
        )


def cases(presets: tuple[str, ...] | None = None) -> tuple[TracedCase, ...]:
    """Every preset (or those named), full and LoRA, checkpointed, bf16 weights under bf16 autocast (the common
    recipe at these sizes); then checkpointing off and the precision cross on the small presets among them."""
    presets = presets or tuple(m["id"] for m in _presets())
    common = tuple(TracedCase(p, method, "bf16", True, True) for p in presets for method in ("full", "lora"))
    off = tuple(
        TracedCase(p, method, "bf16", True, False)
        for p in presets
        if p in UNCHECKPOINTED
        for method in ("full", "lora")
    )
    cross = tuple(
        TracedCase(p, method, dtype, autocast, True)
        for p in presets
        if p in PRECISION_PRESETS
        for dtype, autocast in PRECISIONS
        for method in ("full", "lora")
    )
    return common + off + cross


def _presets() -> list[dict]:
    import calculators

    return calculators.models()["models"]


def preset(name: str) -> dict:
    found = next((m for m in _presets() if m["id"] == name), None)
    if found is None:
        raise ValueError(f"no preset {name!r} in calculators/data/models.json")
    return found


def config_json(name: str, layers: int | None = None) -> dict:
    """The preset as transformers' config.json, with ``layers`` decoder layers (None: its own depth)."""
    from calculators.hf_config import config_keys

    spec = preset(name)
    keys = config_keys(spec["model_type"], spec)
    if layers is not None:
        keys["num_hidden_layers"] = layers
    return {"model_type": spec["model_type"], **keys}


def pilot_config(case: TracedCase, config_file: Path):
    from pilot.config import PilotConfig

    # Gemma 2's soft-capped attention has no SDPA path; pilot.hf_model.resolve switches it to eager.
    return PilotConfig(
        model={"config_file": str(config_file), "dtype": case.dtype},
        train={
            "method": case.method,
            "precision": "bf16" if case.autocast else "fp32",
            "grad_checkpointing": case.ckpt,
            "optimizer": "adamw",
            "optimizer_impl": "foreach",
            "seq_len": case.seq_len,
            "micro_batch": case.micro_batch,
            "lora_rank": 16,
        },
        data={"synthetic_sequences": 16},
        device="cpu",
        restore_check=False,
    )


def trace_at(case: TracedCase, layers: int | None, workdir: Path):
    """The trace of ``case`` with ``layers`` decoder layers, and the resolved configuration."""
    from pilot.trace import trace_step
    from pilot.trainer import resolved

    config_file = workdir / f"{case.preset}-{layers}.json"
    config_file.write_text(json.dumps(config_json(case.preset, layers)), encoding="utf-8")
    cfg = pilot_config(case, config_file)
    return trace_step(cfg), resolved(cfg)


def estimate(row: dict, cfg) -> dict:
    """The calculator's CPU estimate for a traced row (a trace says nothing of the model that is checked)."""
    from pilot.estimate import compare

    est = compare(cfg, row["traced_bytes"], "cpu")
    return {**row, "estimated_bytes": est.estimated_bytes, "relative_error": est.relative_error, "reason": est.reason}


def reestimate(rows: list[dict], workdir: Path) -> list[dict]:
    """The rows with the calculator's current estimates, without tracing again: the memory model changes more
    often than the libraries traced."""
    from pilot.trainer import resolved

    fields = {f.name for f in dataclasses.fields(TracedCase)}
    out = []
    for row in rows:
        if not row["traced_bytes"]:
            out.append(row)
            continue
        case = TracedCase(**{k: v for k, v in row.items() if k in fields})
        config_file = workdir / f"{case.preset}.json"
        config_file.write_text(json.dumps(config_json(case.preset)), encoding="utf-8")
        out.append(estimate(row, resolved(pilot_config(case, config_file))))
    return out


def measure(case: TracedCase, workdir: Path) -> dict:
    t0 = time.perf_counter()
    traced, cfg = trace_at(case, None, workdir)
    seconds = time.perf_counter() - t0
    return estimate(
        {
            "name": case.name,
            **case.__dict__,
            "layers": cfg.model.layers,
            "traced_bytes": traced.peak_bytes,
            "traced": traced.to_dict(),
            "seconds": round(seconds, 1),
        },
        cfg,
    )


def run(selected, done: dict[str, dict], save, show=print) -> list[dict]:
    """Trace each case not in ``done`` (rows by name, from an earlier run with the same versions), calling
    ``save(rows)`` after each, so that a long run can stop and go on where it was."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="memory-traced-") as tmp:
        for case in selected:
            row = done.get(case.name)
            if row is None:
                try:
                    row = measure(case, Path(tmp))
                except Exception as exc:  # noqa: BLE001 - one failing preset is a row, not the end of the run
                    row = {
                        "name": case.name,
                        **case.__dict__,
                        "traced_bytes": None,
                        "estimated_bytes": None,
                        "relative_error": None,
                        "reason": f"trace failed: {type(exc).__name__}: {exc}"[:300],
                    }
                show(line(row))
            rows.append(row)
            save(rows)
    return rows


def line(r: dict) -> str:
    if r["traced_bytes"] is None or r["relative_error"] is None:
        return f"{r['name']:<44} {r['reason']}"
    return (
        f"{r['name']:<44} {r['traced_bytes'] / 2**30:9.2f} {r['estimated_bytes'] / 2**30:9.2f} "
        f"{r['relative_error']:+7.1%} {r['seconds']:6.1f}s"
    )


def main(args) -> int:
    from .memory_accuracy import versions

    presets = tuple(p for p in args.presets.split(",") if p) or None
    for name in presets or ():
        preset(name)  # an unknown name fails before any trace
    json_path = args.json if args.json != args.default_json else DEFAULT_JSON
    used = versions() | {"tracer": "FakeTensorMode"}
    done = {}
    if args.resume and json_path.exists():  # rows traced with the same libraries are kept
        earlier = json.loads(json_path.read_text(encoding="utf-8"))
        same = {k: v for k, v in earlier["traced_with"].items() if k != "date"} == {
            k: v for k, v in used.items() if k != "date"
        }
        done = {r["name"]: r for r in earlier["rows"] if r["traced_bytes"]} if same else {}
        print(f"{len(done)} rows kept from {json_path}" if same else f"{json_path}: other versions, traced again")

    def save(rows):  # "seconds": the tracing time of the rows shown, whichever run traced them
        json_path.parent.mkdir(parents=True, exist_ok=True)
        total = round(sum(r.get("seconds", 0) for r in rows))
        json_path.write_text(
            json.dumps({"goal": GOAL, "traced_with": used, "seconds": total, "rows": rows}, indent=1) + "\n",
            encoding="utf-8",
        )

    print(f"{'configuration (traced, GiB; estimate, GiB)':<44} {'traced':>9} {'estimate':>9} {'error':>7}")
    if args.reestimate:
        earlier = json.loads(json_path.read_text(encoding="utf-8"))
        used = earlier["traced_with"]
        with tempfile.TemporaryDirectory(prefix="memory-traced-") as tmp:
            rows = reestimate(earlier["rows"], Path(tmp))
        for row in rows:
            print(line(row))
        save(rows)
    else:
        rows = run(cases(presets), done, save)
    worst = max((abs(r["relative_error"]) for r in rows if r["relative_error"] is not None), default=None)
    print(
        f"{len(rows)} configurations; worst absolute error "
        + (f"{worst:.1%}" if worst is not None else "none")
        + f" (goal: within {GOAL:.0%}); written to {json_path}"
    )
    return 0 if all(r["relative_error"] is not None and abs(r["relative_error"]) <= GOAL for r in rows) else 1
