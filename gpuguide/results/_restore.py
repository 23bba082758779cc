"""The restore check's findings in the reader's language, worded from the file's `restore.checks` data.

The pilot also stores each finding as an English sentence (`verified`, `failures`) for its terminal
summary; the page never shows those. A file written before `checks` existed gets one localized line
that says how many checks passed or failed instead.
"""

from __future__ import annotations

from guidekit.l10n import N_, NN_, Localizer, NumberFormat, escape, isolate
from guidekit.render import num

from ._messages import safe_number

# The parts of the training state the pilot fingerprints (pilot.checkpoint.fingerprints).
COMPONENTS = {
    "model": N_("Model weights"),
    "optimizer": N_("Optimizer state"),
    "scheduler": N_("Learning-rate schedule"),
    "data_position": N_("Position in the data"),
    "step": N_("Step counter"),
    "rng.python": N_("Python random generator"),
    "rng.numpy": N_("NumPy random generator"),
    "rng.torch_cpu": N_("PyTorch CPU random generator"),
    "rng.torch_cuda": N_("PyTorch GPU random generators"),
}
STATE_OK = NN_(
    "{component}: {count} entry identical after the restore at step {step}",
    "{component}: {count} entries identical after the restore at step {step}",
)
STATE_PROBLEMS = {
    # TRANSLATORS: a part of the training state came back incomplete from the checkpoint; {first} is an entry's name.
    "missing": N_("{component} not restored: entries missing: {count} of {total} (first: {first})"),
    "unexpected": N_("{component} not restored: unexpected entries: {count} (first: {first})"),
    # TRANSLATORS: {expected} and {got} are short fingerprints of the entry (a type, a shape and a hash, or a value).
    "differ": N_(
        "{component} not restored: entries that differ: {count} of {total} (first: {first}: expected {expected}, found {got})"
    ),
}
LOSSES_OK = {
    "bitwise": NN_(
        "Losses of the {count} continued step: identical bit for bit",
        "Losses of the {count} continued steps: identical bit for bit",
    ),
    "tolerance": NN_(
        "Losses of the {count} continued step: within a relative tolerance of {rtol}",
        "Losses of the {count} continued steps: within a relative tolerance of {rtol}",
    ),
}
# TRANSLATORS: the run resumed from the checkpoint computed another loss than the run that never stopped.
LOSSES_FAILED = N_(
    "The continued losses depart from the uninterrupted run at step {step}: expected {expected}, found {got}"
)
PARAMETERS_OK = {
    "bitwise": NN_(
        "Final trainable parameters ({count} tensor): identical bit for bit",
        "Final trainable parameters ({count} tensors): identical bit for bit",
    ),
    "tolerance": NN_(
        "Final trainable parameters ({count} tensor): within a relative tolerance of {rtol}",
        "Final trainable parameters ({count} tensors): within a relative tolerance of {rtol}",
    ),
}
PARAMETERS_FAILED = NN_(
    "Final trainable parameters differ from the uninterrupted run: {count} of {total} tensor (first: {first})",
    "Final trainable parameters differ from the uninterrupted run: {count} of {total} tensors (first: {first})",
    n="total",
)
# TRANSLATORS: {message} is the last line the failed process printed, shown as it is (usually English).
RESUME_FAILED = N_("The fresh process could not resume from the checkpoint (exit code {code}): {message}")
LEGACY = {
    True: NN_(
        "{count} check passed. This file comes from an older pilot that wrote its checks only as English "
        "sentences, so they are not listed here.",
        "{count} checks passed. This file comes from an older pilot that wrote its checks only as English "
        "sentences, so they are not listed here.",
    ),
    False: NN_(
        "{count} check failed. This file comes from an older pilot that wrote its checks only as English "
        "sentences, so they are not listed here.",
        "{count} checks failed. This file comes from an older pilot that wrote its checks only as English "
        "sentences, so they are not listed here.",
    ),
}


def counts(restore: dict) -> tuple[int, int]:
    """(checks passed, checks failed), from the structured findings when the file has them."""
    if "checks" in restore:
        passed = sum(1 for c in restore["checks"] if c["passed"])
        return passed, len(restore["checks"]) - passed
    return len(restore.get("verified", [])), len(restore.get("failures", []))


def _count(value: int, fmt: NumberFormat) -> str:
    return num(fmt.number(value, 0))


def _value(value, fmt: NumberFormat) -> str:
    """A loss (a number) or a fingerprint (text from the file), as HTML."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return isolate(value)
    return num(safe_number(value, fmt, max_frac=6))


def line(check: dict, restore: dict, loc: Localizer) -> str:
    """One finding as HTML: the template translated and escaped, every value from the file isolated."""
    t, fmt = loc.t, loc.fmt
    kind, mode = check["check"], restore["mode"]
    rtol = num(safe_number(restore["rtol"], fmt, max_frac=6))
    if kind == "state":
        name = COMPONENTS.get(check["component"])
        component = escape(t(name)) if name else isolate(check["component"])
        if check["passed"]:
            return t.html(
                STATE_OK,
                n=check["count"],
                component=component,
                count=_count(check["count"], fmt),
                step=_count(check.get("step", 0), fmt),
            )
        return t.html(
            STATE_PROBLEMS[check.get("problem", "differ")],
            component=component,
            count=_count(check["count"], fmt),
            total=_count(check.get("total", 0), fmt),
            first=isolate(check.get("first", "")),
            expected=_value(check.get("expected"), fmt),
            got=_value(check.get("got"), fmt),
        )
    if kind == "losses":
        if check["passed"]:
            return t.html(LOSSES_OK[mode], n=check["count"], count=_count(check["count"], fmt), rtol=rtol)
        return t.html(
            LOSSES_FAILED,
            step=_count(check.get("step", 0), fmt),
            expected=_value(check.get("expected"), fmt),
            got=_value(check.get("got"), fmt),
        )
    if kind == "parameters":
        if check["passed"]:
            return t.html(PARAMETERS_OK[mode], n=check["count"], count=_count(check["count"], fmt), rtol=rtol)
        total = check.get("total", check["count"])
        return t.html(
            PARAMETERS_FAILED,
            n=total,
            count=_count(check["count"], fmt),
            total=_count(total, fmt),
            first=isolate(check.get("first", "")),
        )
    return t.html(RESUME_FAILED, code=num(str(check["exit_code"])), message=isolate(check["message"]))


def lines(restore: dict, passed: bool, loc: Localizer) -> list[str]:
    """The findings that passed (or failed) as HTML lines; one summary line for an older file."""
    t, fmt = loc.t, loc.fmt
    if "checks" in restore:
        return [line(c, restore, loc) for c in restore["checks"] if c["passed"] is passed]
    count = counts(restore)[0 if passed else 1]
    return [t.html(LEGACY[passed], n=count, count=_count(count, fmt))] if count else []
