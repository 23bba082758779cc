"""A scaling rank's checkpoint, saved and loaded as a sharded job saves one: torch.distributed.checkpoint
(DCP), each rank writing its own shard of the weights and optimizer state in parallel. Its times are what
an interruption costs a job on this many processes, unlike the run's single-process torch.save.

The load is checked, not only timed: every rank zeroes its weights before loading, and the weights it
loads back must be the ones it saved, to the bit.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import torch

from .report import ShardedCheckpoint
from .scale_config import FULLY_SHARDED


def _local_weights(trainer) -> list[torch.Tensor]:
    return [p.to_local() if hasattr(p, "to_local") else p for p in trainer.module.parameters()]


def _timed(fn, reduce) -> float:
    """Seconds from the first rank's start to the last rank's end (barriers on both sides)."""
    import torch.distributed as dist

    dist.barrier()
    t0 = time.perf_counter()
    fn()
    dist.barrier()
    return reduce(time.perf_counter() - t0)


def save_and_load(trainer, folder: Path) -> ShardedCheckpoint:
    """The training state saved to `folder` and loaded back on every rank, timed; a write that fails (a
    full disk) is recorded with its reason, and training figures are kept."""
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    if trainer.strategy == "zero1":
        return ShardedCheckpoint(
            None,
            None,
            None,
            trainer.world,
            False,
            None,
            "not measured: ZeroRedundancyOptimizer saves its state through one rank (consolidate_state_dict), "
            "not as a distributed checkpoint",
        )
    world, rank = dist.get_world_size(), dist.get_rank()
    sharded = trainer.strategy in FULLY_SHARDED
    if int(os.environ.get("LOCAL_WORLD_SIZE", world)) != world:
        # Each node has its own temporary folder, and DCP's metadata goes to the first node's only.
        return ShardedCheckpoint(
            None,
            None,
            None,
            world,
            sharded,
            None,
            "not measured: across nodes, a distributed checkpoint needs a folder every node shares",
        )

    def slowest(seconds: float) -> float:
        t = torch.tensor([seconds], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t.item())

    model, optim = get_state_dict(trainer.model, trainer.optimizer)
    saved = [w.detach().clone() for w in _local_weights(trainer)]
    try:
        write_s = _timed(lambda: dcp.save({"model": model, "optim": optim}, checkpoint_id=str(folder)), slowest)
    except Exception as exc:  # noqa: BLE001 - DCP gathers every rank's failure (a full disk) into one
        first = (str(getattr(exc, "strerror", None) or exc).strip().splitlines() or [type(exc).__name__])[0]
        return ShardedCheckpoint(None, None, None, world, sharded, None, f"not written: {first[:300]}")
    # Each rank's own shard file, and the metadata once: right on a shared or a per-node disk alike.
    own = sum(f.stat().st_size for f in folder.glob(f"__{rank}_*.distcp"))
    if rank == 0:
        own += sum(f.stat().st_size for f in folder.glob(".metadata"))
    size = torch.tensor([own], dtype=torch.float64)
    dist.all_reduce(size)
    with torch.no_grad():
        for w in _local_weights(trainer):
            w.zero_()

    def load() -> None:
        fresh_model, fresh_optim = get_state_dict(trainer.model, trainer.optimizer)
        dcp.load({"model": fresh_model, "optim": fresh_optim}, checkpoint_id=str(folder))
        set_state_dict(trainer.model, trainer.optimizer, model_state_dict=fresh_model, optim_state_dict=fresh_optim)

    load_s = _timed(load, slowest)
    same = torch.tensor([all(torch.equal(a, b) for a, b in zip(saved, _local_weights(trainer)))], dtype=torch.int32)
    dist.all_reduce(same, op=dist.ReduceOp.MIN)
    return ShardedCheckpoint(write_s, load_s, int(size.item()), world, sharded, bool(same.item()), None)
