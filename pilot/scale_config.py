"""`gpu-pilot scale`'s own options, checked without torch: the CLI refuses a bad one before the imports
(pilot.scale, which runs the strategies, imports torch and re-exports these names)."""

from __future__ import annotations

import dataclasses

from .config import PilotConfig

# What each strategy shards over the ranks (ZeRO's stages), from the least memory saved to the most. zero1 is
# DDP with torch's ZeroRedundancyOptimizer; zero2 is FSDP2 keeping the weights whole from the forward to
# the backward (SHARD_GRAD_OP); fsdp (ZeRO-3) reshards them after the forward; fsdp_ckpt adds gradient
# checkpointing to it, trading recompute for activations.
STRATEGIES = ("ddp", "zero1", "zero2", "fsdp", "fsdp_ckpt")
SHARDS = {
    "ddp": "nothing",
    "zero1": "the optimizer state",
    "zero2": "the optimizer state and gradients",
    "fsdp": "the optimizer state, gradients and weights",
    "fsdp_ckpt": "the optimizer state, gradients and weights, with gradient checkpointing",
}
FULLY_SHARDED = ("zero2", "fsdp", "fsdp_ckpt")  # through FSDP2's fully_shard
# The baseline when one process cannot hold the job: the first of these that fits, on the fewest processes.
SHARDED_BASELINES = ("fsdp", "fsdp_ckpt")


def strategy_config(cfg: PilotConfig, strategy: str) -> PilotConfig:
    """The configuration a strategy trains: fsdp_ckpt turns gradient checkpointing on."""
    if strategy != "fsdp_ckpt" or cfg.train.grad_checkpointing:
        return cfg
    return dataclasses.replace(cfg, train=dataclasses.replace(cfg.train, grad_checkpointing=True))


def baseline_sizes(cfg: PilotConfig, nproc_per_node: int) -> list[int]:
    """Process counts a sharded baseline may take on one node, fewest first: 2, 4, 8 ... up to the node's
    processes, each one the effective batch splits over."""
    sizes, n = [], 2
    while n <= nproc_per_node:
        try:
            split_batch(cfg, n)
            sizes.append(n)
        except ValueError:
            pass
        n *= 2
    return sizes


def split_batch(cfg: PilotConfig, world: int) -> tuple[int, int]:
    """(micro-batch, accumulation) per rank that keeps micro_batch * grad_accum of the baseline."""
    t = cfg.train
    if t.grad_accum % world == 0:
        return t.micro_batch, t.grad_accum // world
    if t.micro_batch % world == 0:
        return t.micro_batch // world, t.grad_accum
    raise ValueError(
        f"train.grad_accum ({t.grad_accum}) or train.micro_batch ({t.micro_batch}) must be divisible "
        f"by the {world} processes to keep the effective batch size"
    )


@dataclasses.dataclass(frozen=True)
class ScaleConfig:
    """What `gpu-pilot scale` adds to the pilot's configuration (its command-line options), checked on
    creation, before any work; errors name the option as the command line spells it."""

    strategies: tuple[str, ...] = STRATEGIES
    nproc_per_node: int = 2
    nnodes: str = "1"  # as torchrun takes it: a number of nodes, or a fixed range such as 2:2
    node_rank: int = 0
    rdzv_endpoint: str = ""  # host:port of the rendezvous (multi-node)
    rdzv_backend: str = "c10d"
    rdzv_id: str = "gpu-pilot"
    # Seconds each node waits at a strategy's rendezvous for the others (torchrun's join_timeout,
    # whose default is the same): a node whose peer has failed gives up instead of waiting for ever.
    rdzv_timeout: int = 600

    def __post_init__(self):
        for s in self.strategies:
            if s not in STRATEGIES:
                raise ValueError(f"--strategies must name some of {','.join(STRATEGIES)} (got {s!r})")
        if not self.strategies:
            raise ValueError(f"--strategies must name some of {','.join(STRATEGIES)} (got none)")
        if self.nproc_per_node < 1:
            raise ValueError(f"--nproc-per-node must be >= 1 (got {self.nproc_per_node})")
        parts = str(self.nnodes).split(":")
        if len(parts) > 2 or not all(p.isdigit() and int(p) >= 1 for p in parts):
            raise ValueError(
                f"--nnodes must be a number of nodes such as 2, or a range such as 1:4 (got {self.nnodes!r})"
            )
        if len(parts) == 2 and int(parts[0]) != int(parts[1]):
            raise ValueError(
                f"--nnodes must be a fixed number here, since the effective batch depends on it (got {self.nnodes!r})"
            )
        if self.rdzv_timeout < 1:
            raise ValueError(f"--rdzv-timeout must be >= 1 second (got {self.rdzv_timeout})")
        if self.node_rank < 0 or self.node_rank >= self.nodes:
            raise ValueError(f"--node-rank must be between 0 and {self.nodes - 1} (got {self.node_rank})")
        if self.nodes > 1:
            host, _, port = str(self.rdzv_endpoint).rpartition(":")
            if not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(
                    f"--rdzv-endpoint must be host:port with --nnodes {self.nodes} (got {self.rdzv_endpoint!r})"
                )

    @classmethod
    def from_args(cls, args) -> "ScaleConfig":
        return cls(
            tuple(s for s in args.strategies.split(",") if s),
            args.nproc_per_node,
            args.nnodes,
            args.node_rank,
            args.rdzv_endpoint,
            args.rdzv_backend,
            args.rdzv_id,
            args.rdzv_timeout,
        )

    @property
    def nodes(self) -> int:
        return int(str(self.nnodes).split(":")[-1])

    @property
    def world(self) -> int:
        return self.nproc_per_node * self.nodes
