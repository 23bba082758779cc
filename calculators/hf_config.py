"""A Hugging Face ``config.json`` as the memory calculator's model inputs.

One reader for the three places that take a model's configuration: the calculator in the
browser (a dropped or pasted file, read in the worker), ``python -m calculators --model-config``
and ``gpu-pilot --model-config``. Only families whose layout the memory model describes are
accepted: a Llama-style decoder with separate q/k/v/o and gate/up/down projections.
Standard library only: it runs in Pyodide.
"""

from __future__ import annotations

import json

from ._errors import error

# model_type -> (has q/k/v biases: the config key, or a constant for families that always do)
FAMILIES = {"llama": "attention_bias", "mistral": False, "qwen2": True}
MAX_BYTES = 1 << 20  # a config.json is a few kB; anything past this is not one
_DIMENSIONS = {  # calculator input -> config.json key
    "layers": "num_hidden_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
    "intermediate": "intermediate_size", "vocab": "vocab_size",
}
DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def parse(text: str | bytes | bytearray | memoryview) -> tuple[dict | None, list[dict]]:
    """(config dict, []) or (None, [field error]) for the text of a config.json."""
    if isinstance(text, (bytearray, memoryview)):  # what the browser worker hands over
        text = bytes(text)
    if len(text) > MAX_BYTES:
        return None, [error("model_config", "config_too_large", limit=MAX_BYTES)]
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return None, [error("model_config", "config_not_json")]
    if not isinstance(data, dict):
        return None, [error("model_config", "config_not_json")]
    return data, []


def inputs_from_config(config: dict) -> tuple[dict, list[dict]]:
    """Memory-calculator inputs (a custom model) from a parsed config.json, or field errors."""
    family = config.get("model_type")
    if family not in FAMILIES:
        return {}, [error("model_config", "unsupported_model_type", got=str(family)[:60],
                          choices=sorted(FAMILIES))]
    out: dict = {"model": "custom", "params": 0}
    for name, key in _DIMENSIONS.items():
        value = config.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return {}, [error("model_config", "config_missing_key", key=key)]
        out[name] = value
    kv = config.get("num_key_value_heads") or out["heads"]
    head_dim = config.get("head_dim") or 0
    if isinstance(kv, bool) or not isinstance(kv, int) or isinstance(head_dim, bool) or not isinstance(head_dim, int):
        return {}, [error("model_config", "config_missing_key", key="num_key_value_heads")]
    bias = FAMILIES[family]
    out.update(kv_heads=kv, head_dim=head_dim if head_dim != out["hidden"] // out["heads"] else 0,
               tied_embeddings=bool(config.get("tie_word_embeddings", False)),
               qkv_bias=bool(config.get(bias, False)) if isinstance(bias, str) else bias)
    return out, []


def weights_dtype(config: dict) -> str | None:
    """The dtype the checkpoint is stored in (what transformers loads by default), if it says."""
    return DTYPES.get(config.get("dtype") or config.get("torch_dtype"))


def read(text: str | bytes) -> tuple[dict, list[dict]]:
    """Inputs from the text of a config.json: parse, then map (the one call the callers make)."""
    config, errors = parse(text)
    if errors:
        return {}, errors
    return inputs_from_config(config)
