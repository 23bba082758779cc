"""`gpu-pilot scale` for a job one process cannot hold: the baseline becomes the smallest sharded
configuration that fits, each strategy that runs out of memory is recorded as not fitting, and the
calculators take the figures as measured on that many cards."""

import dataclasses

import pytest

from calculators import compute, cost, pilot_inputs
from pilot import scale, summary
from pilot.errors import EXIT_MEMORY, DoesNotFit, PartialRun, describe
from pilot.scale import ScaleConfig, run_scale
from pilot.scale_config import baseline_sizes, strategy_config

from .conftest import tiny

# Peak live tensors of tiny(grad_accum=2), measured: one process 882 KB, DDP x2 882 KB, FSDP x2 542 KB,
# FSDP with checkpointing x2 495 KB. 700 KB holds the sharded ones only, each with a margin of 20 %.
LIMIT_GB = 0.0007


@pytest.mark.slow  # three torchrun launches of two processes each (tests/pilot/test_trial.py: fsdp_ckpt)
def test_a_job_one_process_cannot_hold_is_scaled_from_fsdp_on_two(validate):
    """Before: the one-process baseline ran out of memory and `scale` exited 6 without measuring FSDP."""
    cfg = tiny(train={"grad_accum": 2}, memory_limit_gb=LIMIT_GB)
    result = run_scale(cfg, ScaleConfig(strategies=("ddp", "fsdp"), rdzv_id="t"), show_progress=False)
    data = validate(result)
    s = data["scaling"]
    assert (s["baseline"]["strategy"], s["baseline"]["world_size"]) == ("fsdp", 2)
    assert s["baseline"]["peak_tensor_bytes"] <= LIMIT_GB * 1e9 and s["baseline"]["efficiency"] == 1.0
    assert "one process ran out of memory (pilot memory limit:" in s["baseline_reason"]
    assert s["baseline_reason"].endswith("fsdp on 2 processes is the smallest sharded configuration that fits")
    assert [(r["strategy"], r["world_size"]) for r in s["runs"]] == [("fsdp", 2)]
    for run in s["runs"]:
        assert run["efficiency"] == pytest.approx(run["tokens_per_s"] / s["baseline"]["tokens_per_s"])
    (ddp,) = s["did_not_fit"]
    assert ddp["strategy"] == "ddp" and ddp["world_size"] == 2
    assert ddp["message"].startswith("rank ") and "OutOfMemoryError: pilot memory limit" in ddp["message"]
    assert data["model"]["parameters"] > 0  # counted although no single process held the model
    text = summary.render(result)
    assert "baseline" in text and "on 2 processes with fsdp" in text
    assert "efficiencies are relative to it, not to one process" in text
    assert "  ddp       x2: does not fit: rank " in text
    assert "  fsdp      x2:" in text
    # Each configuration's checkpoint, saved and loaded back through torch.distributed.checkpoint
    for run in (s["baseline"], *s["runs"]):
        ck = run["checkpoint"]
        assert (ck["processes"], ck["sharded"], ck["restored"], ck["error"]) == (2, True, True, None)
        assert ck["write_s"] > 0 and ck["load_s"] > 0 and ck["size_bytes"] > 0
    assert "(sharded) written by 2 processes in " in text and ", loaded back in " in text


def test_zero1_says_why_its_checkpoint_is_not_measured():
    from types import SimpleNamespace

    from pilot.sharded_checkpoint import save_and_load

    got = save_and_load(SimpleNamespace(strategy="zero1", world=4), None)
    assert (got.processes, got.write_s, got.restored) == (4, None, None)
    assert got.error.startswith("not measured: ZeroRedundancyOptimizer saves its state through one rank")
    assert summary._sharded_checkpoint(got) == f"checkpoint {got.error}"


def _runs(world: int, fitting: set[tuple[str, int]]):
    """A stand-in for torchrun where only `fitting` (strategy, processes) pairs fit."""
    tried = []

    def torchrun(cfg_file, strategy, out, scale_config, threads):
        tried.append((strategy, scale_config.world))
        if (strategy, scale_config.world) not in fitting:
            raise DoesNotFit(f"{strategy} on {scale_config.world} processes: rank 0: OutOfMemoryError: x", "x")
        return {"times": [0.01, 0.011], "peak": 1000, "world": scale_config.world, "parameters": [7, 7]}

    return torchrun, tried


def _out_of_memory(monkeypatch):
    def measure(trainer, cfg, show=False):
        import torch

        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(scale, "measure_times", measure)


def test_the_smallest_sharded_baseline_is_searched_fewest_processes_first(monkeypatch, validate):
    _out_of_memory(monkeypatch)
    torchrun, tried = _runs(8, {("fsdp_ckpt", 4), ("fsdp", 8)})
    monkeypatch.setattr(scale, "run_torchrun", torchrun)
    cfg = tiny(train={"grad_accum": 8})
    result = run_scale(cfg, ScaleConfig(strategies=("ddp", "fsdp"), nproc_per_node=8, rdzv_id="t"), False)
    assert tried == [("fsdp", 2), ("fsdp_ckpt", 2), ("fsdp", 4), ("fsdp_ckpt", 4), ("ddp", 8), ("fsdp", 8)]
    s = validate(result)["scaling"]
    assert (s["baseline"]["strategy"], s["baseline"]["world_size"], s["baseline"]["grad_accum"]) == ("fsdp_ckpt", 4, 2)
    assert s["baseline_reason"] == (
        "one process ran out of memory (CUDA out of memory. Tried to allocate 2.00 GiB), and so did fsdp on 2 "
        "and fsdp_ckpt on 2 and fsdp on 4 processes; fsdp_ckpt on 4 processes is the smallest sharded "
        "configuration that fits"
    )
    # 8 processes at the same step time as 4: half the efficiency of the baseline's processes
    assert s["runs"][0]["efficiency"] == pytest.approx(0.5)


def test_a_job_that_fits_no_baseline_exits_6_naming_what_was_tried(monkeypatch):
    _out_of_memory(monkeypatch)
    torchrun, _ = _runs(2, set())
    monkeypatch.setattr(scale, "run_torchrun", torchrun)
    with pytest.raises(PartialRun) as caught:
        run_scale(tiny(train={"grad_accum": 2}), ScaleConfig(strategies=("fsdp",), rdzv_id="t"), False)
    message, code = describe(caught.value.cause)
    assert code == EXIT_MEMORY
    assert message == (
        "no baseline fits: one process ran out of memory (CUDA out of memory. Tried to allocate 2.00 GiB), "
        "and so did fsdp on 2, fsdp_ckpt on 2 processes"
    )
    assert caught.value.result.outcome.partial.stage == "training"


def test_baseline_sizes_split_the_batch():
    assert baseline_sizes(tiny(train={"grad_accum": 8}), 8) == [2, 4, 8]
    assert baseline_sizes(tiny(train={"grad_accum": 3, "micro_batch": 1}), 8) == []
    assert baseline_sizes(tiny(train={"grad_accum": 6, "micro_batch": 1}), 8) == [2]


def test_fsdp_ckpt_turns_gradient_checkpointing_on_and_maps_to_the_calculator():
    cfg = tiny()
    assert strategy_config(cfg, "fsdp_ckpt").train.grad_checkpointing
    assert not strategy_config(cfg, "fsdp").train.grad_checkpointing
    inputs = pilot_inputs.memory_inputs(cfg.to_dict(), "cpu", "fsdp_ckpt", 2)
    assert (inputs["parallelism"], inputs["gradient_checkpointing"]) == ("fsdp", True)
    assert pilot_inputs.memory_inputs(cfg.to_dict(), "cpu", "zero2", 2)["parallelism"] == "zero2"


def _gpu_file(baseline_world: int) -> dict:
    stats = {"n": 2, "mean": 1.0, "median": 1.0, "p10": 1.0, "p90": 1.0, "std": 0.0, "cv": 0.0}
    base = {"strategy": "fsdp" if baseline_world > 1 else "none", "world_size": baseline_world, "tokens_per_s": 4000.0}
    run = {"strategy": "fsdp", "world_size": 8, "tokens_per_s": 12000.0, "efficiency": 0.75, "micro_batch": 1}
    return {
        "environment": {"device_type": "cuda", "device_name": "NVIDIA H100 80GB HBM3"},
        "flags": [],
        "scaling": {"baseline": {**base, "step": stats}, "runs": [{**run, "step": stats, "peak_tensor_bytes": 9}]},
    }


def test_a_sharded_baseline_is_imported_as_each_cards_share_on_its_cards():
    """A sharded baseline's speed is not one card's: the import takes each card's share of the 8-card run,
    measured on 8 cards, and no efficiency (it is relative to the baseline, not to one card)."""
    field = cost.measured_field("h100-sxm-80gb")
    sharded = pilot_inputs.measured_inputs(_gpu_file(2))
    assert (sharded[field], sharded["measurement_cards"]) == (1500.0, 8) and "scaling_efficiency" not in sharded
    alone = pilot_inputs.measured_inputs(_gpu_file(1))
    assert (alone[field], alone["measurement_cards"], alone["scaling_efficiency"]) == (4000.0, 1, 0.75)
    # On the 8 cards it was measured on, the calculator gives exactly the measured rate.
    r = compute("cost", {"gpu": "h100-sxm-80gb", "cards": 8, **sharded})["result"]
    assert r["tokens_per_s_per_gpu"] == pytest.approx(1500.0)


def test_every_strategy_name_reaches_the_results_page():
    from gpuguide.results import _estimate

    assert set(_estimate.STRATEGIES) >= {"none", *scale.ScaleConfig().strategies}
    assert dataclasses.fields(scale.ScaleConfig)[0].default == ("ddp", "zero1", "zero2", "fsdp", "fsdp_ckpt")
