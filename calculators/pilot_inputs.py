"""The calculator inputs a pilot run implies: the one home of this mapping.

The pilot (estimate vs measured on the machine) and the site (a result file imported in the
build or the browser) both call ``memory_inputs`` with the configuration the pilot records;
``result_inputs`` adds what a result file measured (``MEASURED``, one extractor per input), and
``to_inputs`` keeps of those what one calculator declares and accepts, so any calculator can take a
result (``importable``: whether a result has anything for it).
The pilot measures tensors only: a comparison adds ``TENSORS_ONLY``, which zeroes the
non-tensor allowances. Result files written
before ``model.dtype`` existed meant: bf16 LoRA casts the frozen base to bf16, everything
else keeps fp32 weights (bf16 then meaning autocast).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from guidekit.calc import active, compute, describe, get, normalize

from . import memory as memory_calculator
from ._data import catalog, presets
from .cost import measured_field

GB = 1e9
OPTIMIZERS = {"adamw": "adamw", "sgd": "sgd_momentum"}
# The pilot's strategies as the memory calculator's parallelism (fsdp_ckpt: FSDP with checkpointing on).
PARALLELISM = {"none": "single", "ddp": "ddp", "zero1": "zero1", "zero2": "zero2", "fsdp": "fsdp", "fsdp_ckpt": "fsdp"}
ATTENTION = {"sdpa": "fused", "eager": "eager"}
TENSORS_ONLY = {"framework_gb": 0.0, "fragmentation": 0.0, "extra_temp_gb": 0.0}
EXPERT_FIELDS = ("experts", "experts_per_token", "shared_expert_intermediate")
_MEMORY_DEFAULTS = {i.name: i.default for i in memory_calculator.INPUTS}


def relative_error(estimated: float | None, measured: float | None) -> float | None:
    """(estimate - measured) / measured: how every comparison of the memory model with a run is stated."""
    if estimated is None or not measured:
        return None
    return (estimated - measured) / measured


def default_adamw_impl(device_type: str) -> str:
    """The code path torch.optim.AdamW takes by default: foreach on a GPU, one tensor at a time
    on the CPU (the pilot's ``train.optimizer_impl = "default"``)."""
    return "foreach" if device_type == "cuda" else "single_tensor"


def weights_dtype(model: dict[str, Any], train: dict[str, Any]) -> str:
    dtype = model.get("dtype")
    if isinstance(dtype, str) and dtype in ("fp32", "bf16", "fp16"):
        return dtype
    return "bf16" if (train["method"] == "lora" and train["precision"] == "bf16") else "fp32"


def memory_inputs(
    config: dict[str, Any], device_type: str, strategy: str = "none", world: int = 1, micro_batch: int | None = None
) -> dict[str, Any]:
    """Inputs for ``calculators.compute("memory", ...)`` from a pilot ``config`` dict."""
    m, t = config["model"], config["train"]
    impl = t.get("optimizer_impl", "default")
    inputs = {
        "model": "custom",
        "params": 0,
        "layers": m["layers"],
        "hidden": m["hidden"],
        "heads": m["heads"],
        "kv_heads": m["kv_heads"],
        "head_dim": m.get("head_dim") or m["hidden"] // m["heads"],
        "intermediate": m["intermediate"],
        "vocab": m["vocab"],
        "tied_embeddings": m["tie_embeddings"],
        "qkv_bias": bool(m.get("qkv_bias", False)),
        "fused_projections": bool(m.get("fused_projections", False)),
        # the family and a mixture of experts' shape (a dense model's: the inputs' defaults, which it ignores);
        # files written before families were recorded are Llama-style
        "family": m.get("family", "llama"),
        "router_aux_loss": bool(m.get("router_aux_loss", False)),
        **{name: m.get(name) or _MEMORY_DEFAULTS[name] for name in EXPERT_FIELDS},
        "method": t["method"],
        "weights_dtype": weights_dtype(m, t),
        "autocast": "bf16" if t["precision"] == "bf16" else "off",
        # The pilot keeps no separate master copy: its trainable weights are the optimizer's.
        "master_weights": False,
        "adapter_dtype": t.get("adapter_dtype", "fp32"),
        "optimizer": OPTIMIZERS.get(t["optimizer"], t["optimizer"]),
        "optimizer_impl": default_adamw_impl(device_type) if impl == "default" else impl,
        "grad_accumulation": t["grad_accum"] > 1,
        "seq_len": t["seq_len"],
        "micro_batch": micro_batch or t["micro_batch"],
        "gradient_checkpointing": t["grad_checkpointing"] or strategy == "fsdp_ckpt",
        "attention": ATTENTION.get(m.get("attention", "sdpa"), "fused"),
        "loss": t.get("loss", "standard"),
        "parallelism": PARALLELISM.get(strategy, "single"),
        "gpus": world,
    }
    if t["method"] != "full":
        inputs.update(
            lora_rank=t["lora_rank"], lora_targets=list(t["lora_targets"]), lora_dropout=t.get("lora_dropout", 0.0)
        )
    return inputs


def tensor_peak(
    config: dict[str, Any], device_type: str, strategy: str = "none", world: int = 1, micro_batch: int | None = None
) -> dict[str, Any]:
    """The estimate a pilot run is compared with: the memory model's peak of live tensors (no
    context or fragmentation allowance), with dropout masks stored as the device stores them.

    Returns ``{"ok": True, "inputs", "components", "estimated_bytes"}`` or the boundary's errors.
    """
    import dataclasses

    from . import memory
    from ._memory_model import unsharded

    inputs = {**memory_inputs(config, device_type, strategy, world, micro_batch), **TENSORS_ONLY}
    answer = compute("memory", inputs)
    if not answer["ok"]:
        return {"ok": False, "inputs": inputs, "errors": answer["errors"]}
    run = dataclasses.replace(memory.build_run(answer["inputs"]), cpu_masks=device_type != "cuda")
    here = unsharded(run).per_gpu(world)
    return {
        "ok": True,
        "inputs": answer["inputs"],
        "estimated_bytes": int(here["total"]),
        "components": {k: int(v) for k, v in here["parts"].items() if k != "framework"},
    }


def untrusted(data: dict[str, Any], run: dict[str, Any]) -> list[dict[str, Any]]:
    """Why a scaling run's figures must not be used: the file's flags against it or its baseline
    (`pilot.flags`), and, in files written before flags, an efficiency above 100 %, which no real
    speed-up gives. Empty when they can be used."""
    found = [f for f in data.get("flags") or [] if not f["trustworthy"] and f["subject"] in (run["strategy"], "none")]
    if run["efficiency"] > 1.0 and not any(f["code"] == "efficiency_above_one" for f in found):
        found.append(
            {
                "code": "efficiency_above_one",
                "subject": run["strategy"],
                "value": run["efficiency"],
                "limit": 1.0,
                "trustworthy": False,
                "message": "scaling efficiency above 100 %",
            }
        )
    return found


def chosen_scale_run(data: dict[str, Any]) -> dict[str, Any] | None:
    """The scaling run a calculator takes from a result: the most processes, then a trustworthy one,
    then the best efficiency."""
    scaling = data.get("scaling")
    if not scaling or not scaling.get("runs"):
        return None
    runs: list[dict[str, Any]] = scaling["runs"]
    return max(runs, key=lambda r: (r["world_size"], not untrusted(data, r), r["efficiency"]))


def catalog_gpu(device_name: str) -> str | None:
    """The catalog GPU a device name names ("NVIDIA H200" -> "h200-141gb"), by its model token."""
    name = device_name.lower()
    for gpu in catalog()["gpus"]:
        gpu_id: str = gpu["id"]
        token = next((part for part in gpu_id.split("-") if any(c.isdigit() for c in part)), None)
        if token and token in name:
            return gpu_id
    return None


def gpu_run(data: dict[str, Any]) -> bool:
    """Whether the file measured a training run on a GPU: a CPU sample's or a trace's figures say
    nothing about any card's speed, memory in use or checkpoint times, so none of them is taken."""
    return data["environment"]["device_type"] == "cuda" and data.get("kind") != "trace"


def measured_gpu(data: dict[str, Any]) -> str | None:
    """The catalog GPU whose speed the file measured, or None (a CPU, a trace, a card not in the catalog)."""
    return catalog_gpu(data["environment"]["device_name"]) if gpu_run(data) else None


def _sharded_baseline(data: dict[str, Any]) -> bool:
    """Whether the scaling baseline ran on several processes (one could not hold the job): its speed is
    then not one card's, and efficiencies are relative to it, not to one card."""
    return bool(data.get("scaling")) and data["scaling"]["baseline"]["world_size"] > 1


def _throughput(data: dict[str, Any], run: dict[str, Any] | None) -> float | None:
    # A scaling run's one-process baseline is the one-card speed; the efficiency says what scaling keeps.
    # Past a sharded baseline, no one-card speed exists: each card's share of the chosen run's speed is
    # taken, as measured on that many cards (`_measurement_cards`).
    if run is not None:
        if _sharded_baseline(data):
            share: float = run["tokens_per_s"] / run["world_size"]
            return round(share, 2)
        baseline: float = data["scaling"]["baseline"]["tokens_per_s"]
        return round(baseline, 2)
    timing = data.get("timing")
    return round(timing["tokens_per_s"], 2) if timing and timing["tokens_per_s"] > 0 else None


def _efficiency(data: dict[str, Any], run: dict[str, Any] | None) -> float | None:
    # An untrustworthy efficiency (above 100 %, or flagged by the pilot) is not taken, not clamped:
    # the import panel shows why, and the calculator keeps the reader's value. One relative to a sharded
    # baseline is not one card's efficiency, which the calculator's field means.
    if run is None or untrusted(data, run) or _sharded_baseline(data):
        return None
    efficiency: float = run["efficiency"]
    return round(max(efficiency, 0.01), 4)


def _memory_per_gpu(data: dict[str, Any], run: dict[str, Any] | None) -> float | None:
    if run is not None:
        run_peak: float = run["peak_tensor_bytes"]
        return round(run_peak / GB, 4)
    memory = data.get("memory")
    if not memory:
        return None
    # What the card must hold: the whole device's peak when known, else the allocator's.
    peak: float = next(
        v
        for v in (memory["device_used_peak_bytes"], memory["reserved_bytes"], memory["peak_tensor_bytes"])
        if v is not None
    )
    return round(peak / GB, 4)


# Checkpoint write and restore times set the cost of an interruption (restore: a fresh process
# loading the checkpoint and continuing a few steps, so an upper bound on the restore itself).
def _checkpoint_write(data: dict[str, Any], run: dict[str, Any] | None) -> float | None:
    # A scaling file's is the chosen configuration's own (sharded) checkpoint, what a job on that many
    # cards pays; its load time is not taken as the restore, which also starts processes and builds the model.
    if run is not None:
        saved = run.get("checkpoint") or {}
        written: float | None = saved.get("write_s")
        return round(written, 3) if written is not None else None
    return round(data["checkpoint"]["write_s"], 3) if data.get("checkpoint") else None


def _restore(data: dict[str, Any], run: dict[str, Any] | None) -> float | None:
    restore = data.get("restore")
    return round(restore["duration_s"], 3) if restore and restore["performed"] else None


def _gpu(data: dict[str, Any], run: dict[str, Any] | None) -> str | None:
    return measured_gpu(data)


# What a result measured for one input (None: not measured), from the result and its chosen scaling run.
Extract = Callable[[dict[str, Any], dict[str, Any] | None], object]


def _throughput_on(gpu_id: str) -> Extract:
    """The throughput a result measured, for the cost calculator's field of its own card only: a
    measurement never moves to another card, whichever GPU the form then chooses."""

    def extract(data: dict[str, Any], run: dict[str, Any] | None) -> float | None:
        return _throughput(data, run) if measured_gpu(data) == gpu_id else None

    return extract


def _measurement_cards(data: dict[str, Any], run: dict[str, Any] | None) -> int | None:
    # The throughput taken is one process's (a run, or a scaling run's one-process baseline): one card's,
    # to be scaled; past a sharded baseline it is a card's share of the chosen run, on its cards.
    if not measured_gpu(data) or _throughput(data, run) is None:
        return None
    return run["world_size"] if run is not None and _sharded_baseline(data) else 1


# Input name -> what a result measured for it (None: not measured).
MEASURED: dict[str, Extract] = {
    "scaling_efficiency": _efficiency,
    "measurement_cards": _measurement_cards,
    "memory_per_gpu_gb": _memory_per_gpu,
    "checkpoint_write_s": _checkpoint_write,
    "restore_s": _restore,
    "gpu": _gpu,
    **{measured_field(gpu["id"]): _throughput_on(gpu["id"]) for gpu in catalog()["gpus"]},
}


def measured_inputs(data: dict[str, Any]) -> dict[str, Any]:
    """Throughput on its card, scaling efficiency, memory per GPU, checkpoint times and the GPU a
    training run measured on a GPU; nothing from a CPU sample or a trace."""
    if not gpu_run(data):
        return {}
    run = chosen_scale_run(data)
    return {name: value for name, extract in MEASURED.items() if (value := extract(data, run)) is not None}


def _head_dim(inputs: dict[str, Any]) -> int:
    head_dim: int = inputs["head_dim"] or inputs["hidden"] // inputs["heads"]
    return head_dim


def named_model(data: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    """The model as the file names it: its preset when the file was built from one and its dimensions
    are the preset's, else custom dimensions with the parameter count the pilot counted (never 0)."""
    source = data["config"]["model"].get("source")
    preset = memory_calculator.prepare({**_MEMORY_DEFAULTS, **inputs, "model": source})
    same = all(
        (_head_dim(preset) == _head_dim(inputs)) if f == "head_dim" else preset[f] == inputs[f]
        for f in memory_calculator.ARCH_FIELDS
        if f != "params"
    )
    if source in presets() and same:
        return {"model": source}
    counted = (data.get("model") or {}).get("parameters")
    return {"model": "custom", "params": counted} if isinstance(counted, int) and counted > 0 else {}


def result_inputs(data: dict[str, Any]) -> dict[str, Any]:
    """Every calculator input a valid result file implies: its configuration (on the scaling run a
    calculator takes, if any), the model it names, and what it measured on a GPU."""
    device, run = data["environment"]["device_type"], chosen_scale_run(data)
    if run is None:
        config = memory_inputs(data["config"], device)
    else:
        config = memory_inputs(data["config"], device, run["strategy"], run["world_size"], run["micro_batch"])
    return {**config, **named_model(data, config), **measured_inputs(data)}


def _mapped() -> frozenset[str]:
    """Every input name ``memory_inputs`` can fill: the mapping run on a LoRA configuration (the
    method that fills the most)."""
    model = {
        "layers": 1,
        "hidden": 2,
        "heads": 1,
        "kv_heads": 1,
        "intermediate": 1,
        "vocab": 1,
        "tie_embeddings": False,
    }
    train = {
        "method": "lora",
        "precision": "fp32",
        "optimizer": "adamw",
        "grad_accum": 1,
        "seq_len": 2,
        "micro_batch": 1,
        "grad_checkpointing": False,
        "lora_rank": 1,
        "lora_targets": ["q"],
    }
    return frozenset(memory_inputs({"model": model, "train": train}, "cuda"))


# Every input name ``result_inputs`` can fill (a calculator with none of them takes no result file).
FILLED = _mapped() | frozenset(MEASURED)


def declared(name: str) -> set[str]:
    """The input names calculator `name` declares (none for a name no calculator has)."""
    return {i["name"] for i in describe(name).get("inputs", [])}


# Measurements of one job that must not outlive it: a file brings a whole job, so what it did not
# measure goes back to the estimate (0) rather than keep an earlier file's figure for another model.
# Input name -> the value that means "not measured" (the estimate).
RESET_UNMEASURED: dict[str, float | int] = {
    "memory_per_gpu_gb": 0.0,
    "measurement_cards": 1,
    **{measured_field(gpu["id"]): 0.0 for gpu in catalog()["gpus"]},
}


def to_inputs(data: dict[str, Any], name: str) -> dict[str, Any]:
    """Inputs for calculator `name` from a valid result; values it would refuse are left out."""
    names = declared(name)
    inputs = {k: v for k, v in result_inputs(data).items() if k in names}
    inputs |= {k: v for k, v in RESET_UNMEASURED.items() if k in names and k not in inputs}
    while inputs:
        response = compute(name, inputs)
        refused = {e.get("field") for e in response.get("errors", [])} & set(inputs)
        if response["ok"] or not refused:
            break
        for field in refused:
            del inputs[field]
    return inputs


def importable(name: str) -> bool:
    """Whether a result file has anything for calculator `name` (the page shows a picker if so)."""
    return bool(declared(name) & FILLED)


def changes(name: str, proposed: dict[str, Any], current: object) -> list[tuple[str, object, object]]:
    """(input, the form's value, the file's) for each input of `proposed` that the file would change
    in the reader's `current` form (as the page sends it; what cannot be read counts as the default)
    and that applies under the proposed values, in the form's order."""
    declared = get(name).INPUTS
    by_name = {i.name: i for i in declared}
    now, _ = normalize(declared, current if isinstance(current, dict) else {})
    after = {**now, **proposed}
    return [
        (i.name, now.get(i.name), proposed[i.name])
        for i in declared
        if i.name in proposed and active(i, after, by_name) and not _same(now.get(i.name), proposed[i.name])
    ]


def _same(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    return a == b
