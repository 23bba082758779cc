"""The run a memory estimate is for: its inputs as the memory model reads them (``Run``), with the bytes of each
dtype and the constants of the quantized and sharded layouts. ``_memory_passes`` (what the passes save) and
``_memory_model`` (the states, the temporaries and the peak) both read it."""

from __future__ import annotations

from dataclasses import dataclass

from .architecture import Architecture, Tensor

BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
DTYPES = tuple(BYTES)
CUDA_MASK_BYTES = 1  # a CUDA dropout mask is a bool tensor (a CPU one has the input's dtype)
NF4_BLOCK = 64  # QLoRA (Dettmers et al. 2023): one absmax per 64 weights
DQ_BLOCK = 256  # double quantization: absmaxes quantized to 8 bits, blocks of 256
ADAM8_BLOCK = 2048  # bitsandbytes 8-bit optimizers: block-wise quantization, 2048 values
ADAM8_MIN_SIZE = 4096  # bitsandbytes keeps fp32 state for tensors smaller than this
SHARDS = {  # component -> parallelism modes that divide it over N ranks (ZeRO stages)
    "weights": {"fsdp"},
    "gradients": {"zero2", "fsdp"},
    "optimizer": {"zero1", "zero2", "fsdp"},
}
SHARDED_MODES = frozenset().union(*SHARDS.values())  # the modes that shard anything: more cards, less per card
OPTIMIZER_IMPLS = ("foreach", "fused", "single_tensor")
COMPONENTS = ("weights", "gradients", "optimizer", "activations", "logits", "temporary", "framework")


@dataclass(frozen=True)
class Run:
    """Everything the memory model needs, already validated."""

    arch: Architecture
    params: int  # total parameters (>= the architecture's own count)
    method: str  # full | lora | qlora
    lora_rank: int
    lora_targets: tuple[str, ...]
    lora_dropout: bool  # peft's lora_dropout > 0: a dropout output and mask per adapted linear
    adapter_dtype: str  # fp32 | weights
    quant: str  # nf4 | int8 (QLoRA base weights)
    double_quant: bool
    weights_dtype: str  # fp32 | bf16 | fp16: the parameters as loaded
    autocast: str  # off | bf16 | fp16: torch.autocast around the forward pass
    master_weights: bool
    optimizer: str  # adamw | adamw_8bit | sgd_momentum | adafactor
    optimizer_impl: str  # foreach | fused | single_tensor (PyTorch AdamW code path)
    grad_accumulation: bool  # gradients stay allocated across micro-batches
    seq_len: int
    micro_batch: int
    checkpointing: bool
    attention: str  # fused | eager
    loss: str  # standard | fused
    offload: str  # none | optimizer | optimizer_params (host RAM)
    parallelism: str  # single | ddp | zero1 | zero2 | fsdp
    framework_bytes: float
    fragmentation: float
    extra_temp_bytes: float
    # A CPU dropout mask has the input's dtype, a CUDA one is bool; the calculator models CUDA,
    # the pilot's CPU comparison sets this (calculators.pilot_inputs.tensor_peak).
    cpu_masks: bool = False
    # Mixture of experts with output_router_logits: every layer's router logits kept for the
    # load-balancing loss (Fedus et al. 2022, "Switch Transformers", equations 4 to 6).
    router_aux_loss: bool = False

    @property
    def p(self) -> int:
        """Bytes of a stored weight (and of the residual stream, which keeps the weights' dtype)."""
        return BYTES[self.weights_dtype]

    @property
    def compute_dtype(self) -> str:
        """The dtype matmuls run in and return: autocast's, else the weights'."""
        return self.weights_dtype if self.autocast == "off" else self.autocast

    @property
    def pc(self) -> int:
        return BYTES[self.compute_dtype]

    @property
    def train_dtype(self) -> str:
        """The dtype of the trainable parameters (and so of their gradients)."""
        if self.method != "full" and self.adapter_dtype == "fp32":
            return "fp32"
        return self.weights_dtype

    @property
    def pt(self) -> int:
        return BYTES[self.train_dtype]

    @property
    def has_master(self) -> bool:
        return self.master_weights and self.train_dtype != "fp32"

    def casts(self, dtype: str) -> bool:
        """Whether autocast makes a copy of a tensor of this dtype for a matmul."""
        return self.autocast != "off" and dtype != self.autocast

    def base(self) -> list[Tensor]:
        return self.arch.base_tensors(max(0, self.params - self.arch.derived_params()))

    def trainable(self) -> list[Tensor]:
        if self.method == "full":
            return self.base()
        return self.arch.lora_tensors(self.lora_rank, self.lora_targets)
