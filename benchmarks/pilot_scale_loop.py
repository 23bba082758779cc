"""The scaling step's torchrun launches, repeated: proof that workers end cleanly (no SIGABRT at teardown).

Before the fix, about 2 in 50 single-node `gpu-pilot scale` runs lost rank 0 to SIGABRT while the
ranks tore down gloo: rank 1 closed its connections while rank 0 was still busy (writing the
figures) before its own `destroy_process_group`. Workers now pass a barrier before the teardown.
Each iteration launches DDP then FSDP on two gloo processes through torchrun, exactly as
`gpu-pilot scale` does after its baseline; a failure keeps torchrun's log.
Usage: python benchmarks/pilot_scale_loop.py [--runs 50] [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from pilot.config import ModelConfig, PilotConfig, TrainConfig
from pilot.errors import TorchrunFailed
from pilot.scale import ScaleConfig, run_torchrun, split_batch

CONFIG = PilotConfig(
    model=ModelConfig(layers=2, hidden=32, heads=4, kv_heads=2, intermediate=64, vocab=300),
    train=TrainConfig(micro_batch=2, grad_accum=2, seq_len=16),
    warmup_steps=2,
    steps=4,
    threads=1,
    restore_check=False,
)
SCALE = ScaleConfig(nproc_per_node=2, rdzv_id="loop")


def loop(runs: int, keep: Path) -> dict:
    micro, accum = split_batch(CONFIG, 2)
    cfg = dataclasses.replace(CONFIG, train=dataclasses.replace(CONFIG.train, micro_batch=micro, grad_accum=accum))
    launches, failures, seconds = 0, [], []
    with tempfile.TemporaryDirectory(prefix="gpu-pilot-loop-") as tmp:
        cfg_file = Path(tmp) / "config.json"
        cfg_file.write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
        for i in range(runs):
            for strategy in ("ddp", "fsdp"):
                out = Path(tmp) / f"{i}-{strategy}.json"
                t0 = time.perf_counter()
                launches += 1
                try:
                    run_torchrun(cfg_file, strategy, out, SCALE)
                except TorchrunFailed as exc:
                    keep.mkdir(parents=True, exist_ok=True)
                    shutil.copy(out.with_suffix(".log"), keep / f"{i}-{strategy}.log")
                    failures.append(
                        {
                            "run": i,
                            "strategy": strategy,
                            "error": str(exc),
                            "sigabrt": "SIGABRT" in str(exc) or "-6" in str(exc),
                        }
                    )
                seconds.append(time.perf_counter() - t0)
            print(f"run {i + 1}/{runs}: {len(failures)} failed launches so far", file=sys.stderr, flush=True)
    return {
        "runs": runs,
        "launches": launches,
        "failed": len(failures),
        "sigabrt": sum(f["sigabrt"] for f in failures),
        "failures": failures,
        "mean_launch_s": sum(seconds) / len(seconds) if seconds else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="iterations of DDP + FSDP (default: %(default)s)")
    parser.add_argument("--json", help="also write the summary to this file")
    parser.add_argument("--keep-logs", default="test-artifacts/scale-loop", help="torchrun logs of failed launches")
    args = parser.parse_args(argv)
    summary = loop(args.runs, Path(args.keep_logs))
    print(
        f"{summary['launches']} torchrun launches ({summary['runs']} x DDP + FSDP on 2 gloo processes): "
        f"{summary['failed']} failed, {summary['sigabrt']} by SIGABRT; mean {summary['mean_launch_s']:.1f} s per launch"
    )
    for f in summary["failures"]:
        print(f"  run {f['run']} {f['strategy']}: {f['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
