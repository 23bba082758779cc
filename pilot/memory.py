"""Memory measurement: live tensor storage on the CPU, allocator and whole-device figures on GPUs.

On a CPU build `torch.cuda.max_memory_allocated()` is always 0 and RSS counts the interpreter and
libraries, so the pilot tracks the storage of every tensor an operator touches or creates, and the
moment each storage is freed, through a TorchDispatchMode. It is exact and agrees with
torch.distributed._tools.mem_tracker.MemTracker to the byte, but costs time per operator, so the
runner uses it only over the warm-up steps.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.weak import WeakIdKeyDictionary


class LiveTensorTracker(TorchDispatchMode):
    """Peak bytes of live tensor storage; raises torch.OutOfMemoryError above `limit_bytes` (0: none)."""

    def __init__(self, limit_bytes: int = 0):
        super().__init__()
        self.limit_bytes = limit_bytes
        self.live = 0
        self.peak = 0
        self._sizes: WeakIdKeyDictionary = WeakIdKeyDictionary()
        self._orig_resize = torch.UntypedStorage.resize_

    def track(self, *objects) -> None:
        """Count tensors created before the mode was entered (weights, optimizer state, data)."""
        for leaf in tree_leaves(objects):
            if isinstance(leaf, torch.Tensor):
                self._add(leaf)

    def ignore(self, *tensors: torch.Tensor) -> None:
        """Never count these storages (host-side data that is not training memory)."""
        for tensor in tensors:
            self._sizes[tensor.untyped_storage()] = 0

    def _add(self, tensor: torch.Tensor) -> None:
        if tensor.device.type == "meta":
            return
        storage = tensor.untyped_storage()
        if storage in self._sizes:
            return
        size = storage.nbytes()
        self._sizes[storage] = size
        weakref.finalize(storage, self._free, size)
        self._grow(size)

    def _grow(self, size: int) -> None:
        self.live += size
        if self.live > self.peak:
            self.peak = self.live
        if self.limit_bytes and self.live > self.limit_bytes:
            raise torch.OutOfMemoryError(
                f"pilot memory limit: {self.live} bytes of live tensors exceed the limit of {self.limit_bytes}"
            )

    def _free(self, size: int) -> None:
        self.live -= size

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if any(t.__name__ == "DTensor" for t in types):
            return NotImplemented  # let DTensor unwrap into local-shard ops, which are counted
        out = func(*args, **(kwargs or {}))
        for leaf in tree_leaves((args, kwargs, out)):
            if isinstance(leaf, torch.Tensor):
                self._add(leaf)
        return out

    def __enter__(self):
        tracker = self

        # Storage.resize_ bypasses the dispatcher, so it is followed here.
        def resize_(storage, size):
            tracker._orig_resize(storage, size)
            old = tracker._sizes.get(storage)
            if old and old != storage.nbytes():
                tracker._sizes[storage] = storage.nbytes()
                tracker.live -= old
                tracker._grow(storage.nbytes())

        torch.UntypedStorage.resize_ = resize_
        return super().__enter__()

    def __exit__(self, *exc):
        torch.UntypedStorage.resize_ = self._orig_resize
        return super().__exit__(*exc)


def process_rss_bytes() -> tuple[int, int]:
    """(current RSS, peak RSS) of this process, from /proc when present."""
    current = peak = 0
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    current = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return current, peak


@dataclass
class DeviceSampler:
    """Highest whole-device use seen at step boundaries (NVML's view, which includes other libraries)."""

    device: torch.device
    peak_used: int = 0
    total: int = 0

    def sample(self) -> None:
        if self.device.type == "cuda":
            free, self.total = torch.cuda.mem_get_info(self.device)
            self.peak_used = max(self.peak_used, self.total - free)


def cpu_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
