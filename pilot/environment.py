"""Revisions recorded with every result, so a figure can be traced to the software that produced it."""
from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import torch

from . import __version__
from .memory import cpu_threads
from .report import Environment


def _quiet(cmd: list[str], cwd: Path | None = None) -> str | None:
    try:
        out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def git_revision() -> str | None:
    """The checkout's commit when the package runs from one (a wheel install has none)."""
    here = Path(__file__).resolve().parent
    if not (here.parent / ".git").exists():
        return None
    return _quiet(["git", "rev-parse", "HEAD"], cwd=here.parent)


def driver_version() -> str | None:
    if torch.version.hip:
        return _quiet(["rocm-smi", "--showdriverversion", "--csv"])
    if torch.cuda.is_available():
        try:
            import pynvml  # optional; nvidia-smi gives the same answer

            pynvml.nvmlInit()
            version = pynvml.nvmlSystemGetDriverVersion()
            return version.decode() if isinstance(version, bytes) else version
        except Exception:  # noqa: BLE001 - any NVML failure falls back to the command line
            return _quiet(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    return None


def collect(device: torch.device) -> Environment:
    on_gpu = device.type == "cuda"
    return Environment(
        python=sys.version.split()[0],
        platform=platform.platform(),
        torch=torch.__version__,
        cuda=torch.version.cuda,
        hip=torch.version.hip,
        driver=driver_version() if on_gpu else None,
        device_type=device.type,
        device_name=torch.cuda.get_device_name(device) if on_gpu else (platform.processor() or platform.machine() or "cpu"),
        device_count=torch.cuda.device_count() if on_gpu else 1,
        cpu_threads=cpu_threads(),
        torch_threads=torch.get_num_threads(),
        pilot_version=__version__,
        git_revision=git_revision(),
    )
