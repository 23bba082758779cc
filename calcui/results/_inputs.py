"""The calculator inputs a pilot result implies, from its recorded configuration and measurements.

The configuration mapping lives in `calculators.pilot_inputs`, which the pilot uses too. Only
inputs the calculator declares are returned, and only values it accepts, so any calculator can
take a result.
"""

from __future__ import annotations

import calculators
from calculators import pilot_inputs

GB = 1e9


def chosen_scale_run(data: dict) -> dict | None:
    """The scaling run a calculator takes: the most processes, then the best efficiency."""
    scaling = data.get("scaling")
    if not scaling or not scaling.get("runs"):
        return None
    return max(scaling["runs"], key=lambda r: (r["world_size"], r["efficiency"]))


def memory_inputs(data: dict, strategy: str = "none", world: int = 1, micro_batch: int | None = None) -> dict:
    """The memory calculator's inputs for this run (on `world` processes with `strategy`)."""
    return pilot_inputs.memory_inputs(data["config"], data["environment"]["device_type"], strategy, world,
                                      micro_batch)


def catalog_gpu(device_name: str) -> str | None:
    """The catalog GPU a device name names ("NVIDIA H200" -> "h200-141gb"), by its model token."""
    name = device_name.lower()
    for gpu in calculators.catalog()["gpus"]:
        token = next((part for part in gpu["id"].split("-") if any(c.isdigit() for c in part)), None)
        if token and token in name:
            return gpu["id"]
    return None


def measured_inputs(data: dict) -> dict:
    """Throughput per GPU, scaling efficiency and memory per GPU that the run measured."""
    out: dict = {}
    run, env = chosen_scale_run(data), data["environment"]
    if run is not None:
        out["throughput_per_gpu"] = round(data["scaling"]["baseline"]["tokens_per_s"], 2)
        out["scaling_efficiency"] = round(min(max(run["efficiency"], 0.01), 1.0), 4)
        out["memory_per_gpu_gb"] = round(run["peak_tensor_bytes"] / GB, 4)
    else:
        timing, memory = data.get("timing"), data.get("memory")
        if timing and timing["tokens_per_s"] > 0:
            out["throughput_per_gpu"] = round(timing["tokens_per_s"], 2)
        if memory:
            # What the card must hold: the whole device's peak when known, else the allocator's.
            peak = next(v for v in (memory["device_used_peak_bytes"], memory["reserved_bytes"],
                                    memory["peak_tensor_bytes"]) if v is not None)
            out["memory_per_gpu_gb"] = round(peak / GB, 4)
    # Checkpoint write and restore times set the cost of an interruption (restore: a fresh process
    # loading the checkpoint and continuing a few steps, so an upper bound on the restore itself).
    if data.get("checkpoint"):
        out["checkpoint_write_s"] = round(data["checkpoint"]["write_s"], 3)
    if data.get("restore") and data["restore"]["performed"]:
        out["restore_s"] = round(data["restore"]["duration_s"], 3)
    if env["device_type"] == "cuda" and catalog_gpu(env["device_name"]):
        out["gpu"] = catalog_gpu(env["device_name"])
    return out


def declared(name: str) -> set[str]:
    return {i["name"] for i in calculators.describe(name).get("inputs", [])}


def candidates(data: dict) -> dict:
    run = chosen_scale_run(data)
    if run is None:
        config = memory_inputs(data)
    else:
        config = memory_inputs(data, run["strategy"], run["world_size"], run["micro_batch"])
    return {**config, **measured_inputs(data)}


def to_inputs(data: dict, name: str) -> dict:
    """Inputs for calculator `name` from a valid result; values it would refuse are left out."""
    names = declared(name)
    inputs = {k: v for k, v in candidates(data).items() if k in names}
    while inputs:
        response = calculators.compute(name, inputs)
        refused = {e.get("field") for e in response.get("errors", [])} & set(inputs)
        if response["ok"] or not refused:
            break
        for field in refused:
            del inputs[field]
    return inputs


# Every key `candidates()` can produce, derived from a full-featured result (a test checks it).
def _filled() -> frozenset:
    config = {"model": {"layers": 1, "hidden": 2, "heads": 1, "kv_heads": 1, "intermediate": 1, "vocab": 1,
                        "tie_embeddings": False},
              "train": {"method": "lora", "precision": "fp32", "optimizer": "adamw", "grad_accum": 1, "seq_len": 2,
                        "micro_batch": 1, "grad_checkpointing": False, "lora_rank": 1, "lora_targets": ["q"]}}
    measured = {"throughput_per_gpu", "scaling_efficiency", "memory_per_gpu_gb", "gpu", "checkpoint_write_s",
                "restore_s"}
    return frozenset(pilot_inputs.memory_inputs(config, "cuda")) | measured


FILLED = _filled()


def importable(name: str) -> bool:
    """Whether a result file has anything for calculator `name` (the page shows a picker if so)."""
    return bool(declared(name) & FILLED)
