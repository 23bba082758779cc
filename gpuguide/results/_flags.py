"""The pilot's flags (a result's `flags`) in the reader's language, worded from each flag's code, value
and limit; the file's English `message` is the terminal's. A scaling configuration the flags make
untrustworthy (`calculators.pilot_inputs.untrusted`) shows the reason instead of its efficiency.
"""

from __future__ import annotations

from calculators.pilot_inputs import untrusted
from guidekit.l10n import N_, NN_, Localizer, Translator

from ._estimate import Comparison
from ._html import strategy_label
from ._messages import safe_number

# Short names, for the row of the runs table.
LABELS = {
    "step_cv": N_("step-time variation"),
    "loss_growth": N_("loss growth"),
    "data_wait": N_("waiting for data"),
    "data_pipeline": N_("data pipeline slower than training"),
    "validation_share": N_("validation time"),
    "checkpoint_share": N_("checkpoint write time"),
    "efficiency_above_one": N_("efficiency above 100 %"),
    "loss_plateau": N_("loss stopped changing"),
    "grad_norm_growth": N_("gradient norm growth"),
}
# What a flag on the run means and what to do; {value} and {limit} are percentages, except for the loss.
RUN = {
    # TRANSLATORS: the coefficient of variation (CV) of the step time: its standard deviation over its mean.
    "step_cv": N_(
        "The step time varies by {value} (coefficient of variation), above {limit}: look for another load "
        "on the machine, clock throttling or uneven batches before you trust the throughput."
    ),
    # TRANSLATORS: {value} and {limit} are plain numbers: the highest loss of the run divided by the first.
    "loss_growth": N_(
        "The loss grew {value}-fold over the run, more than {limit}-fold: training is diverging; "
        "lower the learning rate."
    ),
    "data_wait": N_(
        "Waiting for data takes {value} of the step time, above {limit}: the data loader holds the device back."
    ),
    # TRANSLATORS: {value} and {limit} are percentages: how fast one process reads and tokenizes the reader's
    # data file, as a share of the tokens per second that training consumed.
    "data_pipeline": N_(
        "Read and tokenized by one process, your data arrives at {value} of the rate training consumes, below "
        "{limit}: a loader that tokenizes while it trains would hold the device back; tokenize ahead of time, "
        "or in more loader workers."
    ),
    # TRANSLATORS: {count} is a number of training steps (at least 5); the loss was exactly the same in each.
    "loss_plateau": NN_(
        "The loss stayed the same for the last {count} step: the model stopped learning, often after a "
        "divergence; lower the learning rate or the weight decay.",
        "The loss stayed the same for the last {count} steps: the model stopped learning, often after a "
        "divergence; lower the learning rate or the weight decay.",
    ),
    # TRANSLATORS: {value} and {limit} are plain numbers: the largest gradient norm of the run divided by the
    # first step's. Clipping the gradients: capping their norm (e.g. max_grad_norm in Hugging Face's Trainer).
    "grad_norm_growth": N_(
        "The gradient norm grew {value}-fold over the first step's, more than {limit}-fold: training is "
        "becoming unstable; lower the learning rate or clip the gradients."
    ),
    "validation_share": NN_(
        "One validation takes {value} of the time of {count} training step, above {limit}: "
        "validate less often or on fewer batches.",
        "One validation takes {value} of the time of {count} training steps, above {limit}: "
        "validate less often or on fewer batches.",
    ),
    "checkpoint_share": NN_(
        "One checkpoint write takes {value} of the time of {count} training step, above {limit}: "
        "save less often or to a faster disk.",
        "One checkpoint write takes {value} of the time of {count} training steps, above {limit}: "
        "save less often or to a faster disk.",
    ),
}
# Why a scaling configuration ({name}, e.g. "DDP × 2") must not be used.
SCALE = {
    "step_cv": N_(
        "{name}: not trustworthy: its step time varies by {value} (coefficient of variation), above "
        "{limit}, so its throughput is noise."
    ),
    "efficiency_above_one": N_(
        "{name}: not trustworthy: a scaling efficiency of {value} is above {limit}, which no "
        "real speed-up gives; the baseline ran slower than it should."
    ),
}
# TRANSLATORS: a scaling configuration ({name}, e.g. "DDP × 2") whose figures the pilot flagged as unusable.
UNTRUSTED = N_("{name}: not trustworthy")


def _world(data: dict, strategy: str) -> int:
    runs = (data.get("scaling") or {}).get("runs") or []
    return next((r["world_size"] for r in runs if r["strategy"] == strategy), 1)


def subject_name(data: dict, strategy: str, t: Translator) -> str:
    return strategy_label(Comparison(strategy, 1 if strategy == "none" else _world(data, strategy), None), t)


def sentence(flag: dict, data: dict, loc: Localizer) -> str:
    """One flag as a plain-text sentence in the reader's language."""
    t, fmt = loc.t, loc.fmt
    if flag["code"] in ("loss_growth", "grad_norm_growth"):
        value, limit = safe_number(flag["value"], fmt, 1), safe_number(flag["limit"], fmt, 1)
    elif flag["code"] == "loss_plateau":  # a count of steps, said by the message's plural
        value = limit = ""
    else:
        value, limit = fmt.percent_of(flag["value"]), fmt.percent_of(flag["limit"])
    if flag["subject"] != "run":
        msg = SCALE.get(flag["code"])
        if msg is None:
            return flag["message"]
        return t(msg, name=subject_name(data, flag["subject"], t), value=value, limit=limit)
    msg = RUN.get(flag["code"])
    if msg is None:
        return flag["message"]
    count = int(flag["value"]) if flag["code"] == "loss_plateau" else flag.get("budget_steps") or 0
    return t(msg, n=count, count=fmt.number(count, 0), value=value, limit=limit)


def all_flags(data: dict) -> list[dict]:
    """The file's flags, plus, for a file written before flags, any efficiency above 100 %."""
    found = list(data.get("flags") or [])
    for run in (data.get("scaling") or {}).get("runs") or []:
        found += [f for f in untrusted(data, run) if f not in found]
    return found


def labels(data: dict, loc: Localizer) -> str | None:
    """The flags' short names in the locale's list form; None when there are none."""
    t, fmt = loc.t, loc.fmt
    names = list(dict.fromkeys(t(LABELS[f["code"]]) for f in all_flags(data) if f["code"] in LABELS))
    return fmt.join(names) if names else None


def untrusted_reasons(data: dict, run: dict, loc: Localizer) -> list[str]:
    return [sentence(f, data, loc) for f in untrusted(data, run)]
