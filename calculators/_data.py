"""Read the package data files (GPU catalog, model presets) with importlib.resources.

Both files are the single source of these numbers for Python, the build and the
browser (Pyodide reads the same files from the installed package).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ._i18n import N_

# Labels of the shipped terms and options, marked here so Babel extracts them;
# labels a site owner adds later are shown as written.
_CATALOG_MSGIDS = (N_("1 day"), N_("1 week"), N_("1 month"), N_("3 months"),
                   N_("Persistent checkpoint storage"), N_("Extra local NVMe scratch"),
                   N_("Data egress"), N_("Priority support"))


def _load(name: str) -> dict:
    return json.loads(resources.files(__package__).joinpath("data").joinpath(name).read_text("utf-8"))


@lru_cache(maxsize=None)
def catalog() -> dict:
    """The GPU catalog: ``{"gpus": [...], "pricing": {...}}`` (see data/catalog.json)."""
    return _load("catalog.json")


@lru_cache(maxsize=None)
def models() -> dict:
    """Model presets: ``{"models": [...]}`` (see data/models.json)."""
    return _load("models.json")


def gpus() -> list[dict]:
    return catalog()["gpus"]


def gpu(gpu_id: str) -> dict:
    return next(g for g in gpus() if g["id"] == gpu_id)


def presets() -> dict[str, dict]:
    return {m["id"]: m for m in models()["models"]}


def terms() -> list[dict]:
    """Rental terms, shortest first."""
    return sorted(catalog()["pricing"]["terms"], key=lambda t: t["hours"])
