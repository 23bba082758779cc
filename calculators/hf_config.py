"""A Hugging Face ``config.json`` as the memory calculator's model inputs.

One reader for the three places that take a model's configuration: the calculator in the
browser (a dropped or pasted file, read in the worker), ``python -m calculators --model-config``
and ``gpu-pilot --model-config``. Only families whose layout the memory model describes are
accepted (``MODEL_TYPES``): Llama-style decoders with q/k/v/o and gate/up/down projections,
separate or, as in Phi-3, fused into qkv and gate_up; Qwen3 and Gemma 2 and 3 (text); and the
mixture-of-experts Mixtral, Qwen2-MoE, Qwen3-MoE and OLMoE. A key a file leaves out takes the default
transformers gives it for that model type (Gemma ties its embeddings and has 256-wide heads).
Standard library only: it runs in Pyodide.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from guidekit.calc import error, jsontext

from . import _error_codes  # noqa: F401  (declares the codes its checks return)


@dataclass(frozen=True)
class ModelType:
    """How a config.json of one model_type reads: its name, its family (``architecture.FAMILIES``), the
    key for q/k/v biases (or a constant), fused projections, where a mixture of experts keeps its dimensions
    (their keys; the expert width is a key of its own in the Qwen MoEs), and transformers' defaults for
    the optional keys whose default is not the Llama one."""

    name: str
    family: str
    bias: str | bool = False
    fused: bool = False
    experts: str = ""  # the key of the routed experts' count
    expert_width: str = ""  # the key of each expert's width
    shared_width: str = ""  # the key of the shared expert's width
    defaults: dict[str, Any] = field(default_factory=dict)
    # key -> the only value the memory model describes (a layout it does not cover otherwise)
    fixed: dict[str, Any] = field(default_factory=dict)


EXPERT_COUNT_KEYS = ("num_local_experts", "num_experts")
CAPPED = object()  # in ModelType.fixed: a positive number (soft-capping on, whatever its scale)
_MOE_FIXED = {"decoder_sparse_step": 1, "mlp_only_layers": []}  # every layer routes: no dense MLP layers
MODEL_TYPES = {
    "llama": ModelType("Llama", "llama", "attention_bias"),
    "mistral": ModelType("Mistral", "llama"),
    "qwen2": ModelType("Qwen2", "llama", True),
    "phi3": ModelType("Phi-3", "llama", fused=True),
    "qwen3": ModelType("Qwen3", "qwen3", "attention_bias", defaults={"head_dim": 128}),
    "gemma2": ModelType(
        "Gemma 2",
        "gemma2",
        "attention_bias",
        defaults={"head_dim": 256, "tie_word_embeddings": True},
        fixed={"final_logit_softcapping": CAPPED, "attn_logit_softcapping": CAPPED},
    ),
    "gemma3_text": ModelType(
        "Gemma 3",
        "gemma3",
        "attention_bias",
        defaults={"head_dim": 256, "tie_word_embeddings": True},
        fixed={"final_logit_softcapping": None, "attn_logit_softcapping": None},
    ),
    "mixtral": ModelType(
        "Mixtral",
        "mixtral",
        experts="num_local_experts",
        expert_width="intermediate_size",
        defaults={"num_local_experts": 8, "num_experts_per_tok": 2},
    ),
    "qwen2_moe": ModelType(
        "Qwen2-MoE",
        "qwen2_moe",
        "qkv_bias",
        experts="num_experts",
        expert_width="moe_intermediate_size",
        shared_width="shared_expert_intermediate_size",
        defaults={
            "qkv_bias": True,
            "num_experts": 60,
            "num_experts_per_tok": 4,
            "moe_intermediate_size": 1408,
            "shared_expert_intermediate_size": 5632,
        },
        fixed=_MOE_FIXED,
    ),
    "qwen3_moe": ModelType(
        "Qwen3-MoE",
        "qwen3_moe",
        "attention_bias",
        experts="num_experts",
        expert_width="moe_intermediate_size",
        defaults={"num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768},
        fixed=_MOE_FIXED,
    ),
    "olmoe": ModelType(
        "OLMoE",
        "olmoe",
        "attention_bias",
        experts="num_experts",
        expert_width="intermediate_size",
        defaults={"num_experts": 64, "num_experts_per_tok": 8},
    ),
}
# What an unsupported model_type's message lists: each supported one by its name and its model_type.
SUPPORTED = tuple(f"{t.name} ({key})" for key, t in MODEL_TYPES.items())
MAX_BYTES = 1 << 20  # a config.json is a few kB; anything past this is not one
MAX_DEPTH = 32  # one nests 3 or 4 levels; deeper is refused before json (and the browser's small stack) sees it
_DIMENSIONS = {  # calculator input -> config.json key: required, a whole number of 1 or more
    "layers": "num_hidden_layers",
    "hidden": "hidden_size",
    "heads": "num_attention_heads",
    "intermediate": "intermediate_size",
    "vocab": "vocab_size",
}
DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


class _Huge:
    """Stands in for a number beyond a double (json would read inf, or refuse past 4,300 digits)."""

    def __init__(self, literal: str) -> None:
        self.literal = literal


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(value: object) -> str:
    """A value of the file as its JSON text, short and on one line, for a message (the CLI prints it)."""
    return _short(value.literal if isinstance(value, _Huge) else json.dumps(value, ensure_ascii=False, default=str))


def _huge_number(data: dict[str, Any]) -> dict[str, Any]:
    """The field error naming where the first stand-in sits, as dotted keys. A stack of iterators, one
    per open container, with their keys: the walk allocates nothing per value, and its stack is the
    file's depth, not Python's."""
    path: list[str] = []  # the keys of the open containers below the top level
    walks: list[Iterator[tuple[object, object]]] = [iter(data.items())]
    while walks:
        for key, value in walks[-1]:
            if isinstance(value, _Huge):
                where = _short(json.dumps(".".join([*path, str(key)]), ensure_ascii=False)[1:-1], 60)
                return error("model_config", "config_huge_number", key=where, got=_shown(value))
            if isinstance(value, (dict, list)):
                path.append(str(key))
                walks.append(iter(value.items()) if isinstance(value, dict) else enumerate(value))
                break
        else:
            walks.pop()
            if walks:
                path.pop()
    raise AssertionError("a stand-in was made but not found")


def parse(text: str | bytes | bytearray | memoryview) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(config dict, []) or (None, [field error]) for the text of a config.json."""
    if isinstance(text, (bytearray, memoryview)):  # what the browser worker hands over
        text = bytes(text)
    if len(text) > MAX_BYTES:
        return None, [error("model_config", "config_too_large", limit=MAX_BYTES)]
    try:
        if isinstance(text, bytes):  # decoded as json.loads would, so the scan sees the text json reads
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        if jsontext.nesting_exceeds(text, MAX_DEPTH):
            return None, [error("model_config", "config_too_deep", limit=MAX_DEPTH)]
        data, huge = jsontext.loads(text, _Huge)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None, [error("model_config", "config_not_json")]
    if not isinstance(data, dict):
        return None, [error("model_config", "config_not_json")]
    if huge:
        return None, [_huge_number(data)]
    return data, []


# (value, None) or (None, field error): what reading one key gives.
Read = tuple[object, dict[str, Any] | None]


def _count(config: dict[str, Any], key: str, default: int | None) -> Read:
    """(a whole number of 1 or more, None) or (None, field error); absent or null gives `default`
    (None: the key is required). JSON's 2.0 and true are not counts."""
    value = config.get(key)
    if value is None:
        if default is None:
            return None, error("model_config", "config_missing_key", key=key)
        return default, None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None, error("model_config", "config_not_count", key=key, got=_shown(value))
    return value, None


def _flag(config: dict[str, Any], key: str) -> Read:
    """(a JSON boolean, None) or (None, field error); absent or null is false."""
    value = config.get(key)
    if value is None or isinstance(value, bool):
        return bool(value), None
    return None, error("model_config", "config_not_boolean", key=key, got=_shown(value))


def _fixed(config: dict[str, Any], spec: ModelType) -> dict[str, Any] | None:
    """The field error for the first key holding a layout the memory model does not describe, or None.
    An absent key takes transformers' default, which is the described one; null is a value here (a
    soft-capping of null turns it off)."""
    for key, wanted in spec.fixed.items():
        if key not in config:
            continue
        value = config[key]
        if wanted is CAPPED:
            described = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
        else:
            described = value == wanted and type(value) is type(wanted)
        if not described:
            return error("model_config", "config_unsupported_value", key=key, got=_shown(value))
    return None


def _bounds() -> dict[str, tuple[float | None, float | None]]:
    """(min, max) of the memory calculator's whole-number fields, which a config.json fills."""
    from ._memory_inputs import INPUTS  # here: the CLI's config check imports this module alone

    return {i.name: (i.min, i.max) for i in INPUTS if i.kind == "int"}


def inputs_from_config(config: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Memory-calculator inputs (a custom model) from a parsed config.json, or its first field error.

    Optional keys, absent or null as transformers reads them for that model type: num_key_value_heads
    is num_attention_heads, head_dim is hidden_size / num_attention_heads (0 tells the calculator to
    derive it) or the type's own default, tie_word_embeddings and the bias key are false unless the type
    says otherwise, and a mixture of experts takes the type's expert counts and widths."""
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or model_type not in MODEL_TYPES:
        return {}, [error("model_config", "unsupported_model_type", got=str(model_type)[:60], choices=list(SUPPORTED))]
    spec = MODEL_TYPES[model_type]
    fixed = _fixed(config, spec)
    # transformers reads the experts' count under either name (attribute_map) and writes its own back
    experts_key = next((key for key in EXPERT_COUNT_KEYS if config.get(key) is not None), spec.experts)
    config = {**spec.defaults, **{k: v for k, v in config.items() if v is not None}}
    out: dict[str, Any] = {"model": "custom", "params": 0, "family": spec.family}
    for name, key in _DIMENSIONS.items():
        out[name], err = _count(
            config, spec.expert_width if name == "intermediate" and spec.expert_width else key, None
        )
        if err:
            return {}, [err]
    taken = {
        "kv_heads": _count(config, "num_key_value_heads", out["heads"]),
        "head_dim": _count(config, "head_dim", 0),
        "tied_embeddings": _flag(config, "tie_word_embeddings"),
        "qkv_bias": _flag(config, spec.bias) if isinstance(spec.bias, str) else (spec.bias, None),
    }
    if spec.experts:
        taken |= {
            "experts": _count(config, experts_key, None),
            "experts_per_token": _count(config, "num_experts_per_tok", None),
            "router_aux_loss": _flag(config, "output_router_logits"),
        }
    if spec.shared_width:
        taken["shared_expert_intermediate"] = _count(config, spec.shared_width, None)
    errors = [err for _, err in taken.values() if err] + ([fixed] if fixed else [])
    if errors:
        return {}, errors[:1]
    out.update({name: value for name, (value, _) in taken.items()}, fused_projections=spec.fused)
    # Beyond what the calculator's fields take (hidden_size 10^30 fits a double): named by its key, not
    # left to fail later as "the file could not be read".
    keys = {**_DIMENSIONS, "kv_heads": "num_key_value_heads", "head_dim": "head_dim", "experts": experts_key}
    keys |= {"experts_per_token": "num_experts_per_tok", "shared_expert_intermediate": spec.shared_width or ""}
    for name, key in keys.items():
        low, high = _bounds().get(name, (None, None))
        value = out.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and high is not None and value > high:
            return {}, [error("model_config", "config_unsupported_value", key=key, got=_shown(value))]
        if isinstance(value, int) and low is not None and value < low and not (name == "head_dim" and value == 0):
            return {}, [error("model_config", "config_unsupported_value", key=key, got=_shown(value))]
    if out["head_dim"] == out["hidden"] // out["heads"]:
        out["head_dim"] = 0
    return out, []


def config_keys(model_type: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """The config.json keys that give a model of this type the dimensions in ``inputs`` (the memory
    calculator's fields, as a preset names them): what ``inputs_from_config`` reads, written back, so
    the pilot builds a preset as transformers would read its file."""
    spec = MODEL_TYPES[model_type]
    out = {
        "num_hidden_layers": inputs["layers"],
        "hidden_size": inputs["hidden"],
        "num_attention_heads": inputs["heads"],
        "num_key_value_heads": inputs["kv_heads"],
        "head_dim": inputs["head_dim"] or inputs["hidden"] // inputs["heads"],
        "vocab_size": inputs["vocab"],
        "tie_word_embeddings": bool(inputs["tied_embeddings"]),
        spec.expert_width or "intermediate_size": inputs["intermediate"],
    }
    if isinstance(spec.bias, str):
        out[spec.bias] = bool(inputs.get("qkv_bias", False))
    if spec.experts:
        out |= {
            spec.experts: inputs["experts"],
            "num_experts_per_tok": inputs["experts_per_token"],
            "output_router_logits": bool(inputs.get("router_aux_loss", False)),
        }
    if spec.shared_width:
        out[spec.shared_width] = inputs["shared_expert_intermediate"]
    return out


def weights_dtype(config: dict[str, Any]) -> str | None:
    """The dtype the checkpoint is stored in (what transformers loads by default), if it says."""
    dtype = config.get("dtype") or config.get("torch_dtype")
    return DTYPES.get(dtype) if isinstance(dtype, str) else None


def read(text: str | bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Inputs from the text of a config.json: parse, then map (the one call the callers make)."""
    config, errors = parse(text)
    if config is None:  # parse gives a config or errors
        return {}, errors
    return inputs_from_config(config)
