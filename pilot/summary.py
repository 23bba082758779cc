"""The readable summary printed at the end of a run."""

from __future__ import annotations

from .config import tokenizer_for
from .report import PilotResult


def _gb(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e9:.3f} GB"


def _ms(s: float) -> str:
    return f"{s * 1000:.1f} ms"


def render(result: PilotResult) -> str:
    env, lines = result.environment, []
    lines.append(
        f"gpu-pilot {env.pilot_version} | {env.device_type}: {env.device_name} x{env.device_count} | "
        f"torch {env.torch}" + (f" | CUDA {env.cuda}" if env.cuda else "") + (f" | ROCm {env.hip}" if env.hip else "")
    )
    lines.append(
        f"model: {result.model.family}, {result.model.parameters:,} parameters, "
        f"{result.model.trainable_parameters:,} trainable"
    )
    data = result.config.get("data", {}) if isinstance(result.config, dict) else {}
    if data.get("source", "synthetic") != "synthetic":
        model = result.config.get("model", {}).get("source", "builtin")
        tokenizer = tokenizer_for(data.get("tokenizer", "auto"), model)
        how = "UTF-8 bytes, offline" if tokenizer == "bytes" else f"the tokenizer in {tokenizer}"
        lines.append(f"data: {data['source']}, tokenized as {how}")
    if result.batch_search:
        lines.append(f"largest micro-batch that fits: {result.batch_search.largest_fitting}")
    if result.outcome.status == "does_not_fit":
        lines.append(f"RESULT: does not fit - {result.outcome.error}")
        return "\n".join(lines)
    if result.outcome.partial:
        p = result.outcome.partial
        lines.append(
            f"PARTIAL RESULT ({p.reason}, stopped in {p.stage} after {p.steps_done} steps): {result.outcome.error}"
        )
    if result.timing:
        t = result.timing
        lines += [
            f"step time     mean {_ms(t.step.mean)}  p50 {_ms(t.step.p50)}  p95 {_ms(t.step.p95)}  "
            f"std {_ms(t.step.std)}  CV {t.step.cv:.1%}  ({t.step.n} steps after {t.warmup_steps} warm-up)",
            f"throughput    {t.tokens_per_s:,.0f} tokens/s ({t.tokens_per_step:,} tokens per step)",
            f"data wait     {t.data_wait_fraction:.1%} of step time; {t.stalled_steps} steps waited over "
            f"{t.stall_threshold:.0%}",
        ]
        if t.data_pipeline is not None:
            d = t.data_pipeline
            lines.append(
                f"data pipeline {d.tokens_per_s:,.0f} tokens/s read and tokenized by one process, timed apart: "
                f"{d.share_of_training:.1f}× what training consumes"
            )
        if t.validation_s is not None:
            extent = (
                f" over {t.validation_batches} held-out micro-batch{'es' * (t.validation_batches != 1)}, "
                f"{t.validation_tokens:,} tokens"
                if t.validation_batches is not None and t.validation_tokens is not None
                else ""
            )
            lines.append(f"validation    {t.validation_s:.2f} s{extent} (loss {t.validation_loss:.4f})")
    if result.memory:
        m = result.memory
        extra = (
            (
                f", reserved {_gb(m.reserved_bytes)}, whole device {_gb(m.device_used_peak_bytes)} of "
                f"{_gb(m.device_total_bytes)}"
            )
            if m.method == "cuda_allocator"
            else f", process RSS peak {_gb(m.rss_peak_bytes)}"
        )
        lines.append(f"memory        tensor peak {_gb(m.peak_tensor_bytes)} ({m.method}){extra}")
    if result.estimate:
        e = result.estimate
        lines.append(
            f"estimate      {_gb(e.estimated_bytes)} from the calculator, error {e.relative_error:+.1%}"
            if e.available and e.relative_error is not None
            else f"estimate      absent: {e.reason}"
        )
    if result.checkpoint:
        c = result.checkpoint
        lines.append(
            f"checkpoint    NOT WRITTEN at step {c.step}: {c.error}"
            if c.error
            else f"checkpoint    {_gb(c.size_bytes)} written atomically in {c.write_s:.2f} s at step {c.step} "
            "by one process, not sharded (scale measures a sharded one per strategy)"
        )
    if result.restore:
        r = result.restore
        verdict = "PASSED" if r.passed else "FAILED"
        lines.append(f"restore       {verdict} ({r.mode}, fresh process, resumed at step {r.resumed_from_step})")
        lines += [f"  ok   {v}" for v in r.verified] + [f"  FAIL {f}" for f in r.failures]
    if result.scaling:
        lines += _scaling(result)
    run_flags = [f for f in result.flags if f.subject == "run"]
    if run_flags:
        lines.append(
            f"flags         {len(run_flags)} to act on (the guide's pilot page, section #summary, says what each means):"
        )
        lines += [f"  ! {f.message}" for f in run_flags]
    return "\n".join(lines)


def _untrusted_reason(flag) -> str:
    return flag.message.split(": not trustworthy: ", 1)[-1]


def _scaling(result: PilotResult) -> list[str]:
    """Each strategy against the baseline in words: faster or slower, by how much, at the same batch; the
    baseline named, with why it is not one process when it is not; the strategies that did not fit."""
    s, lines = result.scaling, []
    threads = (
        f", {s.threads_per_process} thread{'s' * (s.threads_per_process != 1)} per process"
        if s.threads_per_process
        else ""
    )
    base = s.baseline
    where = "1 process" if base.world_size == 1 else f"{base.world_size} processes with {base.strategy}"
    lines.append(
        f"scaling       baseline {base.tokens_per_s:,.0f} tokens/s on {where}{threads}; every "
        f"configuration at the same effective batch of {s.effective_batch} sequences per step"
    )
    if s.baseline_reason:
        lines.append(f"  baseline: {s.baseline_reason}; efficiencies are relative to it, not to one process")
    for flag in (f for f in result.flags if f.subject == "none" and not f.trustworthy):
        lines.append(f"  baseline: not trustworthy: {_untrusted_reason(flag)}")
    them = "one" if base.world_size == 1 else str(base.world_size)
    for r in s.runs:
        head = f"  {r.strategy:<9} x{r.world_size}:"
        own = [f for f in result.flags if f.subject == r.strategy and not f.trustworthy]
        if own:
            lines.append(f"{head} not trustworthy: " + "; ".join(_untrusted_reason(f) for f in own))
            lines += [f"  {'':<9}     {_sharded_checkpoint(r.checkpoint)}"] if r.checkpoint is not None else []
            continue
        speedup = r.tokens_per_s / base.tokens_per_s if base.tokens_per_s else 0.0
        if speedup >= 1.005:
            verdict = f"{r.world_size} processes beat {them} by {speedup - 1:.0%}"
        elif speedup <= 0.995:
            verdict = f"{r.world_size} processes are {1 - speedup:.0%} slower than {them}"
        else:
            verdict = f"{r.world_size} processes are as fast as {them}"
        figures = (
            f"{r.tokens_per_s:,.0f} tokens/s, {speedup:.2f}x the baseline: {verdict}; efficiency {r.efficiency:.0%}"
        )
        if any(f.subject == "none" and not f.trustworthy for f in result.flags):
            figures = f"not trustworthy, since its baseline is not (measured: {figures})"
        lines.append(f"{head} {figures}")
        if r.checkpoint is not None:
            lines.append(f"  {'':<9}     {_sharded_checkpoint(r.checkpoint)}")
    for miss in s.did_not_fit or []:
        lines.append(f"  {miss.strategy:<9} x{miss.world_size}: does not fit: {miss.message}")
    return lines


def _sharded_checkpoint(c) -> str:
    if c.error:
        return f"checkpoint {c.error}"
    layout = "sharded" if c.sharded else "replicated, written once"
    check = "" if c.restored else "; NOT RESTORED: the weights loaded back differ from those saved"
    return (
        f"checkpoint {_gb(c.size_bytes)} ({layout}) written by {c.processes} processes in {c.write_s:.2f} s, "
        f"loaded back in {c.load_s:.2f} s{check}"
    )
