"""Read the package data files (GPU catalog, model presets) beside this module.

Both files are the single source of these numbers for Python, the build and the
browser (Pyodide reads the same files from the site's wheel). They are read through the module's own
loader, which reads them from the package's folder when it is installed as files (pip), or from the
archive when it is imported from a zip (the browser puts the wheel itself on sys.path). Not through
importlib.resources, which would import typing, tempfile, zipfile and lzma on every start of the
browser's calculators (and pathlib, urllib and ipaddress).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any

from guidekit.l10n import N_

# Labels of the shipped terms and options, marked here so Babel extracts them;
# labels a site owner adds later are shown as written.
_CATALOG_MSGIDS = (
    N_("1 day"),
    N_("1 week"),
    N_("1 month"),
    N_("3 months"),
    N_("Persistent checkpoint storage"),
    N_("Extra local NVMe scratch"),
    N_("Data egress"),
    N_("Priority support"),
)


def _load(name: str) -> dict[str, Any]:
    # A file loader or zipimport's: both have get_data, which the Loader base class does not declare.
    loader: Any = __spec__.loader
    try:
        data = json.loads(loader.get_data(os.path.join(os.path.dirname(__file__), "data", name)))
    except json.JSONDecodeError as exc:  # the site owner's edit: name the file and the place
        raise ValueError(f"calculators/data/{name} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"calculators/data/{name} must hold a JSON object")
    return data


@lru_cache(maxsize=None)
def catalog() -> dict[str, Any]:
    """The GPU catalog: ``{"gpus": [...], "pricing": {...}}`` (see data/catalog.json)."""
    return _load("catalog.json")


@lru_cache(maxsize=None)
def models() -> dict[str, Any]:
    """Model presets: ``{"models": [...]}`` (see data/models.json)."""
    return _load("models.json")


@lru_cache(maxsize=None)
def throughput_measurements() -> dict[str, Any]:
    """Published throughput measurements and how the speed model reads them (see data/throughput_measurements.json)."""
    return _load("throughput_measurements.json")


def gpus() -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = catalog()["gpus"]
    return listed


def gpu(gpu_id: str) -> dict[str, Any]:
    return next(g for g in gpus() if g["id"] == gpu_id)


def presets() -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in models()["models"]}


def terms() -> list[dict[str, Any]]:
    """Rental terms, shortest first."""
    return sorted(catalog()["pricing"]["terms"], key=lambda t: t["hours"])


def hourly_price(gpu_id: str) -> float | None:
    """One card-hour of a GPU at the catalog's on-demand price (the cost page's default), or None where the
    catalog sells it by the term only: what the memory page ranks the cards that fit by."""
    price: float | None = catalog()["pricing"].get("on_demand_usd_per_card_hour", {}).get(gpu_id)
    return price
