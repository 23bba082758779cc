"""Estimate vs measured: the calculators' memory model against the pilot's exact tensor peak on the CPU.

Runs a matrix of small configurations (full and LoRA, fp32 and bf16, with and without gradient
checkpointing, several micro-batches and sequence lengths) through the same code the pilot uses
and prints, per configuration, the measured peak of live tensors, the estimate and the error.
Usage: python benchmarks/pilot_estimate_matrix.py [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys

from pilot.config import ModelConfig, PilotConfig, TrainConfig
from pilot.data import load_tokens
from pilot.estimate import compare
from pilot.runner import fits
from pilot.trainer import resolve_device

# Proportions of a small Llama (vocabulary large against hidden, as in real models).
MODEL = ModelConfig(layers=4, hidden=256, heads=8, kv_heads=2, intermediate=688, vocab=8192)
MATRIX = [
    # method, precision, checkpointing, micro_batch, seq_len
    ("full", "fp32", False, 2, 128), ("full", "fp32", True, 2, 128),
    ("full", "bf16", False, 2, 128), ("full", "bf16", True, 2, 128),
    ("full", "fp32", False, 8, 256), ("full", "bf16", True, 8, 256),
    ("lora", "fp32", False, 2, 128), ("lora", "fp32", True, 2, 128),
    ("lora", "bf16", False, 2, 128), ("lora", "bf16", True, 2, 128),
    ("lora", "fp32", False, 8, 256), ("lora", "bf16", True, 8, 256),
]


def run_matrix() -> list[dict]:
    rows = []
    device = resolve_device("cpu")
    for method, precision, ckpt, mb, seq in MATRIX:
        cfg = PilotConfig(model=MODEL, train=TrainConfig(method=method, precision=precision, grad_checkpointing=ckpt,
                                                         micro_batch=mb, seq_len=seq), restore_check=False)
        tokens = load_tokens(cfg.data, cfg.model, seq, cfg.seed)
        _, measured = fits(cfg, device, tokens)
        est = compare(cfg, measured)
        rows.append({"method": method, "precision": precision, "checkpointing": ckpt, "micro_batch": mb,
                     "seq_len": seq, "measured_bytes": measured, "estimated_bytes": est.estimated_bytes,
                     "relative_error": est.relative_error, "components": est.components, "reason": est.reason})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    rows = run_matrix()
    print(f"{'method':<6} {'prec':<5} {'ckpt':<5} {'mb':>3} {'seq':>4} {'measured MB':>12} {'estimate MB':>12} {'error':>8}")
    worst = 0.0
    for r in rows:
        err = r["relative_error"]
        worst = max(worst, abs(err)) if err is not None else worst
        est = f"{r['estimated_bytes'] / 1e6:12.3f}" if r["estimated_bytes"] else f"{'absent':>12}"
        print(f"{r['method']:<6} {r['precision']:<5} {str(r['checkpointing']):<5} {r['micro_batch']:>3} {r['seq_len']:>4} "
              f"{r['measured_bytes'] / 1e6:12.3f} {est} {err:+8.1%}" if err is not None else f"  {r['reason']}")
    print(f"worst absolute error: {worst:.1%} (goal: within 5%)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
