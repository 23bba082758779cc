"""What the model option names, read before torch is imported: its configuration checked, its family,
the hash of its configuration's contents and, for a local directory, of its weights.

The configuration goes through the calculators' config.json reader (as in `hf_model.hf_config`, the
page and the CLI), so an unsupported family or a broken file is one line naming the file, before
the seconds of importing torch and transformers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from .config import ModelConfig, runnable_presets
from .progress import Progress

# Files transformers loads weights from; hashed whole, in name order.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack", ".gguf")
HASH_CHUNK = 8 << 20
PROGRESS_FROM_BYTES = 256 << 20  # a progress bar for weights larger than this


class ModelSourceError(ValueError):
    """A model whose configuration the pilot cannot run; the message names the file."""


def refused(source: str, e: dict) -> ModelSourceError:
    """One line for the first field error of the calculators' config reader."""
    from guidekit.calc import ERROR_CODES

    if e["code"] == "unsupported_model_type":
        detail = f"model type {e['got']!r} is not supported (supported: {', '.join(e['choices'])})"
    elif e["code"] == "config_shape":  # a rule of the shape, named by the key the file sets
        detail = f"{e['key']}: {e['why']}"
    else:
        detail = ERROR_CODES[e["code"]].format(**e)
    return ModelSourceError(f"model {source}: {detail}")


def _config_path(model: ModelConfig) -> Path | None:
    if model.config_file:
        return Path(model.config_file)
    if model.source != "builtin" and Path(model.source).is_dir():
        return Path(model.source) / "config.json"
    return None


def read_config(model: ModelConfig, any_family: bool = False) -> dict | None:
    """The config.json the option names (a file, or a directory's), checked; None for a preset or builtin.
    `any_family` (a trace): any model_type passes here; transformers decides once imported."""
    from calculators import hf_config as reader

    path = _config_path(model)
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            data, errors = reader.parse(fh.read(reader.MAX_BYTES + 1))
    except OSError as exc:
        raise ModelSourceError(f"model {path}: cannot be read ({exc.strerror or exc})") from exc
    if not errors and "model_type" not in data:
        raise ModelSourceError(f"model {path}: no model_type, so not a Hugging Face config.json")
    if not errors:
        errors = _shape_errors(data, any_family)
    if errors:
        raise refused(str(path), errors[0])
    return data


# The memory calculator's fields, as the config.json keys that fill them (for a line naming the key).
_KEYS = {
    "layers": "num_hidden_layers",
    "hidden": "hidden_size",
    "heads": "num_attention_heads",
    "kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "intermediate": "intermediate_size",
    "vocab": "vocab_size",
    "experts": "num_experts",
    "experts_per_token": "num_experts_per_tok",
}


def _shape_errors(data: dict, any_family: bool) -> list[dict]:
    """The calculators' checks of a config.json of a family they read, before torch: its keys (hf_config)
    and the shape's rules (the memory calculator's: heads that divide the hidden size, ...), so a bad
    file costs a second and one line, not transformers' import and a multi-line error. A trace of another
    family (a multimodal wrapper such as Gemma 3's included) passes here: transformers decides, and its
    refusal is one line too (hf_model.hf_config)."""
    import calculators
    from calculators import hf_config as reader

    if any_family and data.get("model_type") not in reader.MODEL_TYPES:
        return []
    inputs, errors = reader.inputs_from_config(data)
    if any_family and errors and errors[0]["code"] == "config_missing_key":
        return []  # transformers has a default for it, and a trace builds what transformers builds
    if errors:
        return errors
    checked = calculators.compute("memory", inputs)
    return [
        {
            **e,
            "code": "config_shape",
            "key": _KEYS.get(e["field"], e["field"]),
            "why": calculators.ERROR_CODES[e["code"]].format(**e),
        }
        for e in checked.get("errors", [])
    ]


def _canonical_sha256(data) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _preset(name: str) -> dict | None:
    return next((p for p in runnable_presets() if p["id"] == name), None)


@dataclasses.dataclass
class Identity:
    family: str
    config_sha256: str
    weights_sha256: str | None = None
    weights_bytes: int | None = None


def weight_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in WEIGHT_SUFFIXES)


def hash_weights(folder: Path, show: bool = False) -> tuple[str, int] | None:
    """sha256 over (name, sha256) of each weight file, streamed; None when the folder has none."""
    files = weight_files(folder)
    if not files:
        return None
    total = sum(p.stat().st_size for p in files)
    bar = Progress(-(-total // HASH_CHUNK), "hashing weights", show and total >= PROGRESS_FROM_BYTES, unit="chunk")
    outer = hashlib.sha256()
    try:
        for path in files:
            inner = hashlib.sha256()
            with open(path, "rb") as fh:
                while chunk := fh.read(HASH_CHUNK):
                    inner.update(chunk)
                    bar.update(file=path.name)
            outer.update(f"{path.name}\0{inner.hexdigest()}\n".encode("utf-8"))
    finally:
        bar.close()
    return outer.hexdigest(), total


def identity(model: ModelConfig, show: bool = False, any_family: bool = False) -> Identity:
    """The model's family and the hashes that let a result be traced to it."""
    data = read_config(model, any_family)
    if data is not None:
        ident = Identity(str(data["model_type"]), _canonical_sha256(data))
        if not model.config_file:
            hashed = hash_weights(Path(model.source), show)
            if hashed is not None:
                ident.weights_sha256, ident.weights_bytes = hashed
        return ident
    preset = _preset(model.source)
    if preset is not None:
        return Identity(preset["model_type"], _canonical_sha256(preset))
    return Identity("builtin", _canonical_sha256(dataclasses.asdict(model)))
