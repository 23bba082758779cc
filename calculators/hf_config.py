"""A Hugging Face ``config.json`` as the memory calculator's model inputs.

One reader for the three places that take a model's configuration: the calculator in the
browser (a dropped or pasted file, read in the worker), ``python -m calculators --model-config``
and ``gpu-pilot --model-config``. Only families whose layout the memory model describes are
accepted: a Llama-style decoder with q/k/v/o and gate/up/down projections, separate or, as in
Phi-3, fused into qkv and gate_up.
Standard library only: it runs in Pyodide.
"""

from __future__ import annotations

import json

from . import jsontext
from ._errors import error

# model_type -> (has q/k/v biases: the config key, or a constant; fused qkv and gate_up projections)
FAMILIES = {"llama": ("attention_bias", False), "mistral": (False, False), "qwen2": (True, False),
            "phi3": (False, True)}
MAX_BYTES = 1 << 20  # a config.json is a few kB; anything past this is not one
MAX_DEPTH = 32       # one nests 3 or 4 levels; deeper is refused before json (and the browser's small stack) sees it
_DIMENSIONS = {  # calculator input -> config.json key: required, a whole number of 1 or more
    "layers": "num_hidden_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
    "intermediate": "intermediate_size", "vocab": "vocab_size",
}
DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


class _Huge:
    """Stands in for a number beyond a double (json would read inf, or refuse past 4,300 digits)."""

    def __init__(self, literal: str):
        self.literal = literal


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(value) -> str:
    """A value of the file as its JSON text, short and on one line, for a message (the CLI prints it)."""
    return _short(value.literal if isinstance(value, _Huge) else json.dumps(value, ensure_ascii=False, default=str))


def _huge_number(data: dict) -> dict:
    """The field error naming where the first stand-in sits, as dotted keys (iterative: small stack)."""
    stack = [(str(key), value) for key, value in reversed(data.items())]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _Huge):
            key = _short(json.dumps(where, ensure_ascii=False)[1:-1], 60)
            return error("model_config", "config_huge_number", key=key, got=_shown(value))
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        stack.extend((f"{where}.{key}", item) for key, item in reversed(list(items)))
    raise AssertionError("a stand-in was made but not found")


def parse(text: str | bytes | bytearray | memoryview) -> tuple[dict | None, list[dict]]:
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


def _count(config: dict, key: str, default):
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


def _flag(config: dict, key: str):
    """(a JSON boolean, None) or (None, field error); absent or null is false."""
    value = config.get(key)
    if value is None or isinstance(value, bool):
        return bool(value), None
    return None, error("model_config", "config_not_boolean", key=key, got=_shown(value))


def inputs_from_config(config: dict) -> tuple[dict, list[dict]]:
    """Memory-calculator inputs (a custom model) from a parsed config.json, or its first field error.

    Optional keys, absent or null as transformers reads them: num_key_value_heads is
    num_attention_heads, head_dim is hidden_size / num_attention_heads (0 tells the calculator to
    derive it), tie_word_embeddings and attention_bias are false."""
    family = config.get("model_type")
    if not isinstance(family, str) or family not in FAMILIES:
        return {}, [error("model_config", "unsupported_model_type", got=str(family)[:60],
                          choices=sorted(FAMILIES))]
    out: dict = {"model": "custom", "params": 0}
    for name, key in _DIMENSIONS.items():
        out[name], err = _count(config, key, None)
        if err:
            return {}, [err]
    bias, fused = FAMILIES[family]
    taken = {"kv_heads": _count(config, "num_key_value_heads", out["heads"]),
             "head_dim": _count(config, "head_dim", 0),
             "tied_embeddings": _flag(config, "tie_word_embeddings"),
             "qkv_bias": _flag(config, bias) if isinstance(bias, str) else (bias, None)}
    errors = [err for _, err in taken.values() if err]
    if errors:
        return {}, errors[:1]
    out.update({name: value for name, (value, _) in taken.items()}, fused_projections=fused)
    if out["head_dim"] == out["hidden"] // out["heads"]:
        out["head_dim"] = 0
    return out, []


def weights_dtype(config: dict) -> str | None:
    """The dtype the checkpoint is stored in (what transformers loads by default), if it says."""
    dtype = config.get("dtype") or config.get("torch_dtype")
    return DTYPES.get(dtype) if isinstance(dtype, str) else None


def read(text: str | bytes) -> tuple[dict, list[dict]]:
    """Inputs from the text of a config.json: parse, then map (the one call the callers make)."""
    config, errors = parse(text)
    if errors:
        return {}, errors
    return inputs_from_config(config)
