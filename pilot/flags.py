"""What the guide says to act on, found in a result: one `Flag` per figure outside its range.

The thresholds are the guide's (docs/<lang>/pilot.md, "Leer el resumen"): a step-time CV above 10 %,
a loss that grows more than tenfold at any step (a spike that collapses again counts), a loss that stops
changing for its last steps (what a divergence often collapses into), a gradient norm that grows more than
a hundredfold over the first step's, data waits above 5 % of step time, a data pipeline (the reader's file
read and tokenized by one process, timed apart) slower than training consumes, a validation or a checkpoint
that costs more than 5 % of the steps between two of them (500, the Hugging Face Trainer's default
interval), and a scaling efficiency above 100 %, which no real speed-up gives. Each flag carries its
value and limit, so the site words it in the reader's language; `message` is the terminal's English.
"""

from __future__ import annotations

import math

from .report import Flag, PilotResult, ScaleRun

STEP_CV_LIMIT = 0.10
LOSS_GROWTH_LIMIT = 10.0
DATA_WAIT_LIMIT = 0.05
PIPELINE_LIMIT = 1.0  # the data pipeline, timed alone, must deliver at least what training consumes
OVERHEAD_SHARE_LIMIT = 0.05
OVERHEAD_BUDGET_STEPS = 500
EFFICIENCY_LIMIT = 1.0
PLATEAU_STEPS = 5  # this many last steps with the same loss (to 1e-6): no batch of real data gives that
PLATEAU_MIN_RUN = 8  # steps in the run before a plateau can be told from a short run
GRAD_GROWTH_LIMIT = 100.0
_CAP = 1e12  # the schema's bound: a ratio past it says no more


def _capped(x: float) -> float:
    return min(max(float(x), 0.0), _CAP)


def _run_flags(result: PilotResult) -> list[Flag]:
    out, t = [], result.timing
    if t is not None and t.step.n >= 2 and t.step.cv > STEP_CV_LIMIT:
        out.append(
            Flag(
                "step_cv",
                "run",
                _capped(t.step.cv),
                STEP_CV_LIMIT,
                True,
                f"step-time CV {t.step.cv:.1%} is above {STEP_CV_LIMIT:.0%}: the step time varies too much "
                "to plan on; look for another load, clock throttling or uneven batches",
            )
        )
    if t is not None and t.data_wait_fraction > DATA_WAIT_LIMIT:
        out.append(
            Flag(
                "data_wait",
                "run",
                _capped(t.data_wait_fraction),
                DATA_WAIT_LIMIT,
                True,
                f"waiting for data takes {t.data_wait_fraction:.1%} of step time, above {DATA_WAIT_LIMIT:.0%}: "
                "the data loader holds the device back",
            )
        )
    pipe = t.data_pipeline if t is not None else None
    if pipe is not None and pipe.share_of_training < PIPELINE_LIMIT:
        out.append(
            Flag(
                "data_pipeline",
                "run",
                _capped(pipe.share_of_training),
                PIPELINE_LIMIT,
                True,
                f"one process reads and tokenizes the data at {pipe.tokens_per_s:,.0f} tokens/s, "
                f"{pipe.share_of_training:.0%} of what training consumes: a loader that tokenizes as it trains "
                "would hold the device back; tokenize ahead, or in more loader workers",
            )
        )
    budget = t.step.mean * OVERHEAD_BUDGET_STEPS if t is not None and t.step.n else 0.0
    if budget > 0 and t.validation_s is not None and t.validation_s / budget > OVERHEAD_SHARE_LIMIT:
        share = t.validation_s / budget
        out.append(
            Flag(
                "validation_share",
                "run",
                _capped(share),
                OVERHEAD_SHARE_LIMIT,
                True,
                f"one validation ({t.validation_s:.2f} s) costs {share:.1%} of {OVERHEAD_BUDGET_STEPS} steps' "
                f"time, above {OVERHEAD_SHARE_LIMIT:.0%}: validate less often or on fewer batches",
                OVERHEAD_BUDGET_STEPS,
            )
        )
    ck = result.checkpoint
    if budget > 0 and ck is not None and not ck.error and ck.write_s / budget > OVERHEAD_SHARE_LIMIT:
        share = ck.write_s / budget
        out.append(
            Flag(
                "checkpoint_share",
                "run",
                _capped(share),
                OVERHEAD_SHARE_LIMIT,
                True,
                f"one checkpoint write ({ck.write_s:.2f} s) costs {share:.1%} of {OVERHEAD_BUDGET_STEPS} steps' "
                f"time, above {OVERHEAD_SHARE_LIMIT:.0%}: save less often or to a faster disk",
                OVERHEAD_BUDGET_STEPS,
            )
        )
    growth = loss_growth(result.losses)
    if growth is not None and growth > LOSS_GROWTH_LIMIT:
        peak = max(x for x in result.losses if math.isfinite(x))
        out.append(
            Flag(
                "loss_growth",
                "run",
                _capped(growth),
                LOSS_GROWTH_LIMIT,
                True,
                f"the loss grew {growth:,.4g}x over the run ({result.losses[0]:.4g} to a peak of {peak:.4g}), "
                f"more than {LOSS_GROWTH_LIMIT:g}x: training diverges; lower the learning rate",
            )
        )
    flat = loss_plateau(result.losses)
    if flat >= PLATEAU_STEPS:
        out.append(
            Flag(
                "loss_plateau",
                "run",
                float(flat),
                float(PLATEAU_STEPS),
                True,
                f"the loss stayed at {result.losses[-1]:.6g} for the last {flat} steps: the model stopped learning, "
                "often after a divergence; lower the learning rate or the weight decay",
            )
        )
    norms = grad_norm_growth(result.grad_norms)
    if norms is not None and norms > GRAD_GROWTH_LIMIT:
        out.append(
            Flag(
                "grad_norm_growth",
                "run",
                _capped(norms),
                GRAD_GROWTH_LIMIT,
                True,
                f"the gradient norm grew {norms:,.4g}x over the first step's (to {max(result.grad_norms):.4g}), more "
                f"than {GRAD_GROWTH_LIMIT:g}x: training is becoming unstable; lower the learning rate or clip "
                "the gradients",
            )
        )
    return out


def loss_growth(losses: list[float]) -> float | None:
    """The highest finite loss over the first (a spike that collapses again counts); None when there is
    nothing to compare."""
    finite = [x for x in losses if math.isfinite(x)]
    if len(losses) < 2 or len(finite) < 2 or not math.isfinite(losses[0]) or losses[0] <= 0:
        return None
    return max(finite) / losses[0]


def loss_plateau(losses: list[float]) -> int:
    """How many last steps have the same loss (to a relative 1e-6); 0 for a run too short to tell."""
    if len(losses) < PLATEAU_MIN_RUN or not math.isfinite(losses[-1]):
        return 0
    last, run = losses[-1], 0
    for x in reversed(losses):
        if not (math.isfinite(x) and abs(x - last) <= 1e-6 * max(abs(last), 1e-12)):
            break
        run += 1
    return run


def grad_norm_growth(norms: list[float]) -> float | None:
    """The largest gradient norm over the first step's, taken before any update (an explosion can start at
    the second step: AdamW at lr 1000 went from 1.5 to 3e11); None without a reference."""
    if len(norms) < 2 or norms[0] <= 0:
        return None
    return max(norms[1:]) / norms[0]


def _label(run: ScaleRun, baseline: bool) -> str:
    return f"baseline x{run.world_size}" if baseline else f"{run.strategy} x{run.world_size}"


def _scale_flags(result: PilotResult) -> list[Flag]:
    """The baseline's flags have the subject "none" whatever its strategy (a sharded baseline may share
    its strategy with a run)."""
    out, s = [], result.scaling
    for run in (s.baseline, *s.runs):
        baseline = run is s.baseline
        subject = "none" if baseline else run.strategy
        if run.step.n >= 2 and run.step.cv > STEP_CV_LIMIT:
            out.append(
                Flag(
                    "step_cv",
                    subject,
                    _capped(run.step.cv),
                    STEP_CV_LIMIT,
                    False,
                    f"{_label(run, baseline)}: not trustworthy: step-time CV {run.step.cv:.1%} is above "
                    f"{STEP_CV_LIMIT:.0%}, so its throughput is noise; rerun on an idle machine with more --steps",
                )
            )
        if not baseline and run.efficiency > EFFICIENCY_LIMIT:
            out.append(
                Flag(
                    "efficiency_above_one",
                    subject,
                    _capped(run.efficiency),
                    EFFICIENCY_LIMIT,
                    False,
                    f"{_label(run, baseline)}: not trustworthy: efficiency {run.efficiency:.0%} is above 100%, which no "
                    "real speed-up gives; the baseline ran slower than it should (another load "
                    "on the machine, or other threads)",
                )
            )
    return out


def evaluate(result: PilotResult) -> list[Flag]:
    """Every flag the result's figures raise (for a partial result, of what it measured)."""
    return _scale_flags(result) if result.scaling is not None else _run_flags(result)


def untrusted(result: PilotResult, strategy: str) -> list[Flag]:
    """The flags that make a scaling configuration's figures unusable: its own, or its baseline's."""
    return [f for f in result.flags if not f.trustworthy and f.subject in (strategy, "none")]
