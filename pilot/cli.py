"""The `gpu-pilot` command: run, scale, validate (plus internal commands for the child processes)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from .config import DataConfig, ModelConfig, PilotConfig, TrainConfig

# Flags are generated from the config dataclasses; these two would otherwise both be --source.
RENAMED = {("model", "source"): "model", ("model", "config_file"): "model_config", ("data", "source"): "data"}
EXIT_CONFIG, EXIT_RESTORE_FAILED = 1, 3


def _add_config_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="a JSON or TOML file with [model], [train], [data] tables and run options")
    sections = (("model", ModelConfig), ("train", TrainConfig), ("data", DataConfig), ("run", PilotConfig))
    for section, cls in sections:
        group = parser.add_argument_group(f"{section} options")
        for f in dataclasses.fields(cls):
            if f.name in ("model", "train", "data"):
                continue
            flag = "--" + RENAMED.get((section, f.name), f.name).replace("_", "-")
            dest = f"{section}.{f.name}"
            help_text = f.metadata.get("help", "") + f" (default: {f.default if f.default is not dataclasses.MISSING else '...'})"
            if isinstance(f.default, bool):
                group.add_argument(flag, dest=dest, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=help_text)
            elif f.name == "lora_targets":
                group.add_argument(flag, dest=dest, default=argparse.SUPPRESS, help="comma-separated: q,k,v,o,gate,up,down")
            else:
                group.add_argument(flag, dest=dest, type=type(f.default), default=argparse.SUPPRESS, help=help_text)


def config_from_args(args: argparse.Namespace) -> PilotConfig:
    data: dict[str, Any] = {}
    if args.config:
        data = json.loads(json.dumps(PilotConfig.from_file(args.config).to_dict()))
    for dest, value in vars(args).items():
        if "." not in dest:
            continue
        section, name = dest.split(".", 1)
        target = data if section == "run" else data.setdefault(section, {})
        target[name] = value
    return PilotConfig.from_dict(data)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpu-pilot", description="Pilot benchmark for a fine-tuning run: "
                                     "timing, memory, checkpoint restore and scaling, written to one JSON file.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the single-process pilot and write the result file")
    scale = sub.add_parser("scale", help="the same workload through torchrun with DDP and FSDP")
    for p in (run, scale):
        _add_config_flags(p)
        p.add_argument("--output", "-o", type=Path, default=Path("pilot-result.json"), help="result file (default: %(default)s)")
        p.add_argument("--overwrite", action="store_true", help="replace an existing result file")
        p.add_argument("--workdir", type=Path, help="where checkpoints go (default: a temporary directory)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
    scale.add_argument("--nproc-per-node", type=int, default=2)
    scale.add_argument("--strategies", default="ddp,fsdp", help="comma-separated: ddp,fsdp")
    scale.add_argument("--nnodes", default="1", help="passed to torchrun, e.g. 2 or 1:4")
    scale.add_argument("--node-rank", type=int, default=0)
    scale.add_argument("--rdzv-endpoint", default="", help="host:port of the rendezvous (multi-node)")
    scale.add_argument("--rdzv-backend", default="c10d")
    scale.add_argument("--rdzv-id", default="gpu-pilot")
    check = sub.add_parser("validate", help="check result files against the schema")
    check.add_argument("files", nargs="+", type=Path)
    resume = sub.add_parser("_resume", help=argparse.SUPPRESS)
    resume.add_argument("manifest", type=Path)
    resume.add_argument("out", type=Path)
    resume.add_argument("--fault", default=None)
    worker = sub.add_parser("_scale_worker", help=argparse.SUPPRESS)
    worker.add_argument("config_json", type=Path)
    worker.add_argument("strategy")
    worker.add_argument("out", type=Path)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "_resume":
        from .restore import resume_main

        return resume_main(args.manifest, args.out, args.fault)
    if args.command == "_scale_worker":
        from .scale import worker_main

        return worker_main(args.config_json, args.strategy, args.out)
    if args.command == "validate":
        from .validate import problems

        bad = 0
        for path in args.files:
            try:
                errors = problems(path)
            except OSError as exc:
                errors = [f"cannot be read ({exc.strerror or exc})"]
            print(f"{path}: " + ("valid" if not errors else "INVALID\n  " + "\n  ".join(errors)))
            bad += bool(errors)
        return 1 if bad else 0
    try:
        from .trainer import resolved

        cfg = resolved(config_from_args(args))  # the real model's shape, checked before any work
    except (ValueError, OSError) as exc:
        print(f"gpu-pilot: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    output = args.output / "pilot-result.json" if args.output.is_dir() else args.output
    if output.exists() and not args.overwrite:
        print(f"gpu-pilot: {output} already exists; pass --overwrite to replace it", file=sys.stderr)
        return EXIT_CONFIG
    from . import summary

    if args.command == "run":
        from .runner import run

        result = run(cfg, args.workdir, show_progress=not args.quiet)
    else:
        from .scale import run_scale

        strategies = [s for s in args.strategies.split(",") if s]
        result = run_scale(cfg, strategies, args.nproc_per_node, args, show_progress=not args.quiet)
    result.save_json(output, overwrite=args.overwrite)
    print(summary.render(result))
    print(f"result written to {output}")
    if result.restore is not None and not result.restore.passed:
        return EXIT_RESTORE_FAILED
    return 0
