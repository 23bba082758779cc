"""A training step traced at full width without a GPU or the memory: the pilot's own model, optimizer
and loop built and run under PyTorch's FakeTensorMode, where every tensor has its shape, dtype and
storage size but no data, while the pilot's storage tracker (memory.LiveTensorTracker) counts what
is alive. The peak and its breakdown are those of a CPU run of the same configuration (the memory
model's reference); nothing is allocated, so an 8B model traces in a few hundred MB of RSS.

torch is imported inside the functions: the CLI stays torch-free until a command needs it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Iterator
from typing import Callable

from .config import PilotConfig


@dataclasses.dataclass
class Trace:
    """Bytes of live tensor storage at the peak of two optimizer steps, and what they were then."""

    peak_bytes: int
    parameters: int  # weights and buffers (frozen and trainable)
    gradients: int  # .grad of the trainable parameters alive at the peak
    optimizer_state: int  # the optimizer's state tensors alive at the peak
    other: int  # activations and temporaries
    peak_step: int  # 1 or 2: the step during which the peak was reached

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _tracker_class():
    from .memory import LiveTensorTracker

    class BreakdownTracker(LiveTensorTracker):
        """The pilot's tracker, also taking the breakdown at each new peak (by storage identity, as it counts)."""

        def __init__(self, params, buffers, optimizer):
            super().__init__()
            self.params, self.buffers, self.optimizer = params, buffers, optimizer
            self.step = 0
            self.breakdown: dict = {}

        def _bytes(self, tensors) -> int:
            seen, total = set(), 0
            for t in tensors:
                s = t.untyped_storage()
                key = id(s)
                if key not in seen and s in self._sizes:
                    seen.add(key)
                    total += self._sizes[s]
            return total

        def _grow(self, size: int) -> None:
            was = self.peak
            super()._grow(size)
            if self.peak > was:
                weights = self._bytes(list(self.params) + list(self.buffers))
                grads = self._bytes(p.grad for p in self.params if p.grad is not None)
                state = self._bytes(
                    v for s in self.optimizer.state.values() for v in s.values() if hasattr(v, "untyped_storage")
                )
                self.breakdown = {
                    "parameters": weights,
                    "gradients": grads,
                    "optimizer_state": state,
                    "other": self.live - weights - grads - state,
                    "peak_step": self.step,
                }

    return BreakdownTracker


@contextlib.contextmanager
def _rebinding_module_moves():
    """peft moves each new adapter to its base layer's device and dtype with ``Module.to``, which swaps a
    fake parameter in place, and torch refuses the swap while the fake mode holds a weakref to it. While
    the model is built, a move that changes nothing keeps the parameter (tied weights stay tied) and one
    that changes it rebinds a new parameter, as ``Module.to`` does for real tensors by default."""
    import torch
    from torch import nn

    def rebind(module, fn, recurse=True):
        if recurse:
            for child in module.children():
                rebind(child, fn)
        with torch.no_grad():
            for key, p in module._parameters.items():
                moved = fn(p) if p is not None else p
                if moved is not p:
                    module._parameters[key] = nn.Parameter(moved, requires_grad=p.requires_grad)
            for key, b in module._buffers.items():
                if b is not None:
                    module._buffers[key] = fn(b)
        return module

    apply, nn.Module._apply = nn.Module._apply, rebind
    try:
        yield
    finally:
        nn.Module._apply = apply


@contextlib.contextmanager
def _whole_sequences():
    """transformers takes a fake tensor for a compiler's trace: unable to read the position ids to rule
    out packed sequences, it builds an explicit causal mask, and with a mask its SDPA path repeats the
    grouped K/V heads (extra copies, a larger backward). The pilot's batches are whole unpadded
    sequences, as the real run finds by reading them; saying so gives the trace the real run's path."""
    from unittest import mock

    try:
        from transformers import masking_utils
    except ImportError:  # the built-in model: no masks to build
        yield
        return
    with mock.patch.object(masking_utils, "find_packed_sequence_indices", lambda position_ids: None):
        yield


@contextlib.contextmanager
def _fake_safe_init(cfg: PilotConfig) -> Iterator[None]:
    """A truncated normal reads a value back, which a fake tensor cannot give: SigLIP's initializer (Gemma 3's
    vision tower) stopped the trace of that config.json (exit 70). A traced weight's values never matter, so
    the truncated normal draws a plain normal there; every other initializer runs as it would."""
    if not cfg.model.is_transformers:
        yield
        return
    from unittest import mock

    import torch
    from transformers.initialization import TORCH_INIT_FUNCTIONS

    def normal_instead(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
        return tensor.normal_(mean, std, generator=generator)

    with (
        mock.patch.dict(TORCH_INIT_FUNCTIONS, {"trunc_normal_": normal_instead}),
        mock.patch.object(torch.nn.init, "trunc_normal_", normal_instead),
    ):
        yield


def trace_step(cfg: PilotConfig, seen: Callable | None = None) -> Trace:
    """Two optimizer steps of ``cfg`` (the second with the optimizer state) traced under fake tensors;
    ``seen``, if given, is called with the model built (to count its parameters) before the steps."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    from .trainer import Trainer, resolved

    cfg = resolved(dataclasses.replace(cfg, device="cpu", memory_limit_gb=0.0, threads=0))
    if cfg.model.experts and cfg.model.dtype == "fp32":
        # transformers runs routed experts through torch._grouped_mm, whose fake kernel takes bf16 only: an
        # fp32 Mixtral stopped the trace with "Expected inputs of BF16 type" (exit 70) after building it.
        from .hf_model import PilotSetupError

        raise PilotSetupError(
            "a mixture of experts is traced with bf16 weights (PyTorch's fake kernel for transformers' "
            "grouped experts takes bf16 only): use --dtype bf16; a run on the GPU or the CPU takes fp32"
        )
    t = cfg.train
    # The data never enter the trace (the pilot's tracker ignores them too): a tiny real set for the
    # Trainer's constructor, and each batch made fake, of the shape BatchSource yields.
    # One real row, seen as micro_batch rows (a stride-0 view): the trace allocates nothing real of the
    # micro-batch x sequence size it traces (1,024 x 1M tokens was 8.5 GB).
    tokens = torch.zeros((1, t.seq_len + 1), dtype=torch.long).expand(t.micro_batch, -1)
    # allow_non_fake_inputs: the few real tensors the libraries create at import (constants, RoPE
    # tables built before the mode) take part without being counted twice.
    # The moves peft makes for its adapters, and the built-in model's move to its device.
    with FakeTensorMode(allow_non_fake_inputs=True), _whole_sequences():
        with _rebinding_module_moves(), _fake_safe_init(cfg):
            trainer = Trainer(cfg, torch.device("cpu"), tokens=tokens)
        model, module = trainer.model, trainer.module
        if seen is not None:
            seen(module)
        params = [p for p in module.parameters()]
        tracker = _tracker_class()(params, list(module.buffers()), trainer.optimizer)
        tracker.track(params, list(module.buffers()))
        # A tensor held only by a reference cycle dies when the collector runs: start with none pending.
        gc.collect()
        with tracker:
            for step in (1, 2):
                tracker.step = step
                model.train()
                for _ in range(trainer.grad_accum):
                    batch = torch.randint(0, cfg.model.vocab, (t.micro_batch, t.seq_len + 1))
                    with trainer.autocast() if t.precision == "bf16" else contextlib.nullcontext():
                        loss = model(batch)
                    (loss / trainer.grad_accum).backward()
                    del loss, batch
                trainer.optimizer.step()
                trainer.scheduler.step()
                trainer.optimizer.zero_grad(set_to_none=True)
    b = tracker.breakdown
    return Trace(tracker.peak, b["parameters"], b["gradients"], b["optimizer_state"], b["other"], b["peak_step"])
