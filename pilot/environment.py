"""Revisions recorded with every result, so a figure can be traced to the software that produced it."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

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


DISTRIBUTION = "gpu-finetune-guide"  # pyproject's name: the package pip installed the pilot from
# The optional packages whose versions change what a run measures (None in the file: not installed).
PACKAGES = {
    "transformers": "transformers",
    "peft": "peft",
    "accelerate": "accelerate",
    "bitsandbytes": "bitsandbytes",
    "liger_kernel": "liger-kernel",
}


def _revision_in(folder: Path) -> str | None:
    if not (folder / ".git").exists():
        return None
    revision = _quiet(["git", "rev-parse", "HEAD"], cwd=folder)
    return revision if revision and len(revision) == 40 else None


def git_revision() -> str | None:
    """The pilot's commit: the checkout it runs from (an editable install), else the one pip installed
    it from, as pip's direct_url.json records it (a VCS URL's commit, or a local folder's checkout)."""
    here = _revision_in(Path(__file__).resolve().parent.parent)
    if here:
        return here
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        origin = json.loads(text) if text else {}
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    commit = (origin.get("vcs_info") or {}).get("commit_id")
    if isinstance(commit, str) and len(commit) == 40:
        return commit.lower()
    url = urlparse(str(origin.get("url", "")))
    return _revision_in(Path(unquote(url.path))) if url.scheme == "file" else None


def package_versions() -> dict[str, str | None]:
    """Installed versions, read from the packages' metadata without importing them."""
    out: dict[str, str | None] = {}
    for key, name in PACKAGES.items():
        try:
            out[key] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[key] = None
    return out


def cpu_model() -> str | None:
    """The CPU's marketing name: /proc/cpuinfo on Linux, sysctl on macOS, the platform's word elsewhere."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "cpu model", "Hardware") and value.strip():
                return value.strip()[:200]
    except OSError:
        pass
    if sys.platform == "darwin":
        name = _quiet(["sysctl", "-n", "machdep.cpu.brand_string"])
        if name:
            return name[:200]
    return (platform.processor() or None) and platform.processor()[:200]


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
    cpu = cpu_model()
    return Environment(
        python=sys.version.split()[0],
        platform=platform.platform(),
        torch=torch.__version__,
        cuda=torch.version.cuda,
        hip=torch.version.hip,
        driver=driver_version() if on_gpu else None,
        device_type=device.type,
        device_name=torch.cuda.get_device_name(device) if on_gpu else (cpu or platform.machine() or "cpu"),
        device_count=torch.cuda.device_count() if on_gpu else 1,
        cpu_threads=cpu_threads(),
        torch_threads=torch.get_num_threads(),
        pilot_version=__version__,
        git_revision=git_revision(),
        cpu_model=cpu,
        packages=package_versions(),
    )
