"""The `gpu-pilot` command: run, scale, trace, validate (plus internal commands for the child processes).

Everything the user can get wrong (options, the config file, the model's config.json, the output and
the workdir) is checked before torch is imported, so a mistake costs a second, not the imports.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tomllib
import traceback
from pathlib import Path
from typing import Any

from . import config as config_module
from .config import DataConfig, ModelConfig, PilotConfig, TrainConfig
from .errors import EXIT_DISK, EXIT_MEMORY, EXIT_RESTORE_FAILED, Interrupted, PartialRun, PilotError, describe
from .interrupts import signals_raise
from .resultfile import ResultFile, command_line
from .scale_config import STRATEGIES, ScaleConfig, split_batch
from .trace_file import DEFAULT_OUTPUT as DEFAULT_TRACE_OUTPUT

# Flags are generated from the config dataclasses; these two would otherwise both be --source.
RENAMED = {("model", "source"): "model", ("model", "config_file"): "model_config", ("data", "source"): "data"}
# Options with a fixed set of values list them in --help and refuse others at parse time.
CHOICES = {
    ("train", "method"): config_module.METHODS,
    ("train", "precision"): config_module.PRECISIONS,
    ("train", "optimizer"): config_module.OPTIMIZERS,
    ("train", "lr_schedule"): config_module.SCHEDULES,
    ("train", "optimizer_impl"): config_module.OPTIMIZER_IMPLS,
    ("train", "loss"): config_module.LOSSES,
    ("train", "adapter_dtype"): config_module.ADAPTER_DTYPES,
    ("model", "dtype"): config_module.MODEL_DTYPES,
    ("model", "attention"): config_module.ATTENTIONS,
    ("run", "device"): config_module.DEVICES,
}
EXIT_CODES = (
    "exit codes: 0 done; 1 bad option, config or data; 2 bad command line; 3 restore check failed; "
    "4 device unavailable; 5 disk full, file-size limit, output or workdir not writable, or a partial "
    "result; 6 out of memory: the run does not fit (its result is written); 7 torchrun failed; "
    "8 loss diverged; 130/143 interrupted (SIGINT/SIGTERM); 70 unexpected"
)
TRACE_EXIT_CODES = (
    "exit codes: 0 done; 1 bad option, config or config.json; 2 bad command line; 5 disk full, "
    "file-size limit or output not writable; 130/143 interrupted (SIGINT/SIGTERM); 70 unexpected"
)
TRACE_HELP = (
    "trace one training step at full width on the CPU under fake tensors (no GPU, no weights, little "
    "memory) and write a result file of kind 'trace': the peak of live tensors and its breakdown"
)
TRACE_DESCRIPTION = (
    TRACE_HELP[0].upper() + TRACE_HELP[1:] + " (parameters, gradients, optimizer state, "
    "activations and temporaries), against the memory calculator's estimate. Two optimizer steps "
    "of the pilot's own model, optimizer and loop run under PyTorch's FakeTensorMode: the model "
    "options name a preset (--model) or a config.json (--model-config; a local model directory is "
    "traced from its config.json), and the train options (method, precision, micro-batch, seq_len, "
    "checkpointing, optimizer) apply as for `run`. The figures are those of a CPU run: a GPU adds "
    "its framework's context and the allocator's fragmentation. The device, step, restore and "
    "batch-search options do not apply."
)


class _Parser(argparse.ArgumentParser):
    """A bad command line is one line too: the error and where to look, not the whole usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_config_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, help="a JSON or TOML file with [model], [train], [data] tables and run options"
    )
    sections = (("model", ModelConfig), ("train", TrainConfig), ("data", DataConfig), ("run", PilotConfig))
    for section, cls in sections:
        group = parser.add_argument_group(f"{section} options")
        for f in dataclasses.fields(cls):
            if f.name in ("model", "train", "data"):
                continue
            flag = "--" + RENAMED.get((section, f.name), f.name).replace("_", "-")
            dest = f"{section}.{f.name}"
            help_text = (
                f.metadata.get("help", "")
                + f" (default: {f.default if f.default is not dataclasses.MISSING else '...'})"
            )
            if (section, f.name) == ("model", "source"):  # only the presets the pilot runs are offered
                help_text += "; presets: " + ", ".join(p["id"] for p in config_module.runnable_presets())
            if isinstance(f.default, bool):
                group.add_argument(
                    flag, dest=dest, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=help_text
                )
            elif f.name == "lora_targets":
                group.add_argument(
                    flag,
                    dest=dest,
                    default=argparse.SUPPRESS,
                    help="comma-separated: " + ",".join(config_module.LORA_TARGETS),
                )
            else:
                group.add_argument(
                    flag,
                    dest=dest,
                    type=type(f.default),
                    default=argparse.SUPPRESS,
                    help=help_text,
                    choices=CHOICES.get((section, f.name)),
                )


def config_from_args(args: argparse.Namespace) -> PilotConfig:
    data: dict[str, Any] = {}
    if args.config:
        data = json.loads(json.dumps(_config_file(args.config).to_dict()))
    for dest, value in vars(args).items():
        if "." not in dest:
            continue
        section, name = dest.split(".", 1)
        target = data if section == "run" else data.setdefault(section, {})
        target[name] = value
    return PilotConfig.from_dict(data)


def _config_file(path: Path) -> PilotConfig:
    """The config file, with syntax errors naming the file, line and column."""
    try:
        return PilotConfig.from_file(path)
    except tomllib.TOMLDecodeError as exc:
        raise PilotError(f"{path}: invalid TOML: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise PilotError(f"{path}: invalid JSON: {exc.msg} (at line {exc.lineno}, column {exc.colno})") from exc
    except UnicodeDecodeError as exc:
        raise PilotError(f"{path}: not UTF-8 text (invalid byte at offset {exc.start})") from exc
    except OSError as exc:
        raise PilotError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise PilotError(f"{path}: {exc}") from exc


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gpu-pilot",
        description="Pilot benchmark for a fine-tuning run: "
        "timing, memory, checkpoint restore and scaling, written to one JSON file.",
        epilog=EXIT_CODES,
    )
    # The metavar keeps the internal commands (for child processes) out of the usage line.
    sub = parser.add_subparsers(dest="command", required=True, metavar="{run,scale,trace,validate}")
    run = sub.add_parser("run", help="run the single-process pilot and write the result file", epilog=EXIT_CODES)
    scale = sub.add_parser(
        "scale",
        help="the same workload through torchrun with DDP, ZeRO and FSDP; sharded when one process cannot hold it",
        epilog=EXIT_CODES,
    )
    for p in (run, scale):
        _add_config_flags(p)
        p.add_argument(
            "--output", "-o", type=Path, default=Path("pilot-result.json"), help="result file (default: %(default)s)"
        )
        p.add_argument("--overwrite", action="store_true", help="replace an existing result file (atomically)")
        p.add_argument(
            "--workdir",
            type=Path,
            help="where the checkpoint goes; checked for writing before any work, "
            "and for room for one checkpoint (weights, optimizer state, RNG states) before the first step "
            "(default: a temporary directory, removed at the end, on SIGINT/SIGTERM, and by the next run "
            "if this one is killed)",
        )
        p.add_argument(
            "--keep-workdir",
            action="store_true",
            help="keep the temporary directory (checkpoint included) and print its path",
        )
        p.add_argument("--quiet", action="store_true", help="no progress bar")
        p.add_argument(
            "--debug", action="store_true", help="print the traceback of a failure, not only its one-line message"
        )
    trace = sub.add_parser("trace", help=TRACE_HELP, description=TRACE_DESCRIPTION, epilog=TRACE_EXIT_CODES)
    _add_config_flags(trace)
    trace.add_argument(
        "--output",
        "-o",
        type=Path,
        default=DEFAULT_TRACE_OUTPUT,
        help="result file, or a folder to write pilot-trace.json in (default: %(default)s)",
    )
    trace.add_argument("--overwrite", action="store_true", help="replace an existing result file (atomically)")
    trace.add_argument(
        "--debug", action="store_true", help="print the traceback of a failure, not only its one-line message"
    )
    scale.add_argument("--nproc-per-node", type=int, default=2, help="processes per node (default: %(default)s)")
    scale.add_argument(
        "--strategies",
        default=",".join(STRATEGIES),
        help="comma-separated, each run on every process: ddp; zero1 (DDP, optimizer state sharded); zero2 "
        "(optimizer state and gradients sharded); fsdp (ZeRO-3: weights too); fsdp_ckpt (fsdp with gradient "
        "checkpointing). One that runs out of memory is recorded as not fitting. (default: %(default)s)",
    )
    scale.add_argument("--nnodes", default="1", help="passed to torchrun, e.g. 2 or 1:4")
    scale.add_argument(
        "--node-rank",
        type=int,
        default=0,
        help="with --nnodes > 1: 0 on the one node that writes "
        "the result (torchrun's c10d rendezvous numbers the nodes itself)",
    )
    scale.add_argument("--rdzv-endpoint", default="", help="host:port of the rendezvous (multi-node)")
    scale.add_argument("--rdzv-backend", default="c10d")
    scale.add_argument("--rdzv-id", default="gpu-pilot")
    scale.add_argument(
        "--rdzv-timeout",
        type=int,
        default=600,
        help="seconds a node waits at each strategy's rendezvous for the other nodes (default: %(default)s)",
    )
    check = sub.add_parser("validate", help="check result files against the schema")
    check.add_argument("files", nargs="+", type=Path)
    check.add_argument("--debug", action="store_true", help="print the traceback of a failure")
    resume = sub.add_parser("_resume")
    resume.add_argument("manifest", type=Path)
    resume.add_argument("out", type=Path)
    resume.add_argument("--fault", default=None)
    worker = sub.add_parser("_scale_worker")
    worker.add_argument("config_json", type=Path)
    worker.add_argument("strategy")
    worker.add_argument("out", type=Path)
    return parser


def _fail(exc: BaseException, debug: bool) -> int:
    message, code = describe(exc)
    if debug:
        traceback.print_exception(exc)
    print(f"gpu-pilot: error: {message}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    debug = getattr(args, "debug", False)
    try:
        return _dispatch(args, argv)
    except PartialRun as partial:
        return _fail(partial.cause, debug)
    except (Exception, KeyboardInterrupt, Interrupted) as exc:
        return _fail(exc, debug)


def _validate(files: list[Path]) -> int:
    """The result contract (pilot.result, standard library only) the site reads with: the machine and the build agree."""
    from .validate import printable, problems

    bad = 0
    for path in files:
        try:
            errors = problems(path)
        except OSError as exc:
            raise PilotError(f"{printable(str(path))}: cannot be read: {exc.strerror or exc}") from exc
        print(f"{printable(str(path))}: " + ("valid" if not errors else "INVALID\n  " + "\n  ".join(errors)))
        bad += bool(errors)
    return 1 if bad else 0


def _dispatch(args: argparse.Namespace, argv: list[str]) -> int:
    if args.command == "_resume":
        from .restore import resume_main

        return resume_main(args.manifest, args.out, args.fault)
    if args.command == "_scale_worker":
        from .scale_launch import worker_main

        code = worker_main(args.config_json, args.strategy, args.out)
        # A rank that finished (its figures written, its process group destroyed) leaves without the
        # interpreter's and C++'s exit-time teardown: there, one of c10d's threads is sometimes still
        # joinable when it is destroyed ("terminate called without an active exception", SIGABRT; about
        # one two-node run in six here), and torchrun then reports a finished strategy as failed.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if args.command == "validate":
        return _validate(args.files)
    if args.command == "trace":
        return _trace(args, argv)
    from .model_source import read_config
    from .workdirs import check_writable_folder

    # Before torch: the options, the model's config.json, the workdir, and room for the result.
    cfg = config_from_args(args)
    scale = None
    if args.command == "scale":
        scale = ScaleConfig.from_args(args)
        split_batch(cfg, scale.world)  # the effective batch must split over every process
    read_config(cfg.model)
    if args.workdir is not None:
        check_writable_folder(args.workdir, "workdir")
    writer = ResultFile(args.output, args.overwrite, cfg.total_steps, command_line(argv), fallback=args.workdir)
    writer.prepare()
    try:
        return _measure(args, cfg, scale, writer)
    finally:
        writer.discard_reserve()


def _trace(args: argparse.Namespace, argv: list[str]) -> int:
    """Checked before torch as for a run (options, config.json, output), traced, written and validated."""
    from .model_source import read_config
    from .trace_file import summary, trace_result, traced_config

    cfg = traced_config(config_from_args(args))
    read_config(cfg.model, any_family=True)  # the file and its model_type; transformers decides the family
    output = args.output / DEFAULT_TRACE_OUTPUT.name if args.output.is_dir() else args.output
    writer = ResultFile(output, args.overwrite, 0, command_line(argv))
    writer.prepare()
    try:
        with signals_raise():
            result = trace_result(cfg)
        print(summary(result), flush=True)
        path = writer.finish(result)
    finally:
        writer.discard_reserve()
    print(f"trace written to {path}")
    return 0


def _measure(args: argparse.Namespace, cfg: PilotConfig, scale: ScaleConfig | None, writer: ResultFile) -> int:
    from .trainer import resolved

    cfg = resolved(cfg)  # the real model's shape, checked before any work
    with signals_raise():
        try:
            if args.command == "run":
                from .runner import run

                result = run(
                    cfg, args.workdir, show_progress=not args.quiet, keep_workdir=args.keep_workdir, record=writer.stage
                )
            else:
                from .scale import run_scale

                result = run_scale(cfg, scale, show_progress=not args.quiet, record=writer.stage, workdir=args.workdir)
        except PartialRun as partial:
            try:
                _save(writer, partial.result, partial=True)
            except OSError as exc:  # the run's own failure keeps its exit code and its error line
                print(f"gpu-pilot: the result file could not be written either: {describe(exc)[0]}", file=sys.stderr)
            raise
    if result is None:  # a scale run on a node that does not write (see --node-rank)
        return 0
    _save(writer, result)
    if result.outcome.status == "does_not_fit":
        print(f"gpu-pilot: does not fit: {result.outcome.error}", file=sys.stderr)
        return EXIT_MEMORY
    if result.outcome.status == "partial":
        print(f"gpu-pilot: {result.outcome.error}", file=sys.stderr)
        return EXIT_DISK
    if result.restore is not None and not result.restore.passed:
        first = (result.restore.failures or ["no detail"])[0]
        print(f"gpu-pilot: error: restore check failed: {first}", file=sys.stderr)
        return EXIT_RESTORE_FAILED
    return 0


def _save(writer: ResultFile, result, partial: bool = False) -> None:
    """The summary first (a failing write cannot take it), then the file, then where the file is."""
    from . import flags, summary

    result.flags = flags.evaluate(result)
    print(summary.render(result), flush=True)
    path = writer.finish(result)
    print(f"{'partial result' if partial else 'result'} written to {path}")
