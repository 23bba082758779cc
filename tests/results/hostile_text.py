"""Texts built to make a reader slow: the shapes that turn a backtracking or retrying scan quadratic
(escaped quotes, runs of backslashes, unterminated strings, many quotes) and those that make a
recursive reader deep. Standard library only: the Pyodide run imports this module too."""

from __future__ import annotations


def _fill(size: int, head: str, unit: str, tail: str = "") -> str:
    return head + unit * max(0, (size - len(head) - len(tail)) // len(unit)) + tail


# name -> (head, repeated unit, tail): a text of about `size` bytes is head + unit * k + tail.
SHAPES = {
    "escaped-quotes": ('"', '\\"', ""),  # the finding: an unterminated string of \"
    "escaped-quotes-closed": ('"', '\\"', '"'),
    "escaped-quotes-in-object": ('{"schema_version": "1", "label": "', '\\"', ""),
    "backslashes-odd": ('"', "\\", "\\"),
    "backslashes-even": ('["', "\\\\", '"]'),
    "backslash-quote-runs": ('["', '\\\\\\"', ""),
    "unterminated-string": ('{"label": "', "a", ""),
    "brackets-in-unterminated-string": ('{"label": "', "[{", ""),
    "many-quotes": ("", '"', ""),
    "many-empty-strings": ("[", '"",', '""]'),
    "quote-backslash-pairs": ("", '"\\', ""),
    "deep-arrays": ("", "[", ""),
    "deep-objects": ("", '{"a":', ""),
    "brackets-in-a-string": ('["', "[", '"]'),
    # Valid JSON with a problem in every item (attack finding 5: 15-28 s in Pyodide, every problem built,
    # encoded and sorted before the list was cut to 50).
    "string-losses": ('{"schema_version": "1", "losses": [', '"x",', '"x"]}'),
    "infinite-losses": ('{"schema_version": "1", "losses": [', "1e999,", "1e999]}"),
    "surrogate-strings": ("[", '"\\ud800",', '"x"]'),
}


def shapes(size: int) -> dict[str, str]:
    """Each shape as a text of `size` bytes or a little less (every unit is ASCII)."""
    out = {name: _fill(size, *parts) for name, parts in SHAPES.items()}
    half = size // 2
    out["deep-arrays-closed"] = "[" * half + "]" * half
    return out


def config_shapes(size: int) -> dict[str, str]:
    """The same shapes inside and as a config.json (a JSON object naming a model_type)."""
    head = '{"model_type": "llama", "num_hidden_layers": 2, "x": '
    out = {f"config-{name}": text for name, text in shapes(size).items()}
    out.update({f"config-nested-{name}": _fill(size, head + h, u, t + "}") for name, (h, u, t) in SHAPES.items()})
    out["config-long-integer"] = _fill(size, '{"model_type": "llama", "num_hidden_layers": ', "9", "}")
    out["config-long-exponent"] = _fill(size, '{"model_type": "llama", "num_hidden_layers": 1e', "9", "}")
    return out


# Values a URL query or a form field can carry: each is refused as a number (not_a_number).
BAD_NUMBERS = [
    "1_6",
    "١٢",
    "٨",
    "８",
    "nan",
    "NaN",
    "-inf",
    "inf",
    "Infinity",
    "1e309",
    "-1e999",
    "1e99999999999",
    "0x10",
    "1__0",
    "_16",
    "16_",
    "1.5_0",
    "½",
    "²",
    "1e",
    "e5",
    ".",
    "+",
    "-",
    "--1",
    "+-1",
    "1e+",
    "1.2.3",
    "1,5",
    "1 0",
    "\u00a016",
    "16\u3000",
    "９" * 40,
]


def url_values(size: int) -> dict[str, str]:
    """Long hostile values for one number field (what a crafted address can hold)."""
    return {
        "digits": "1" * size,
        "digits-then-letter": "1" * size + "x",
        "underscores": "1_" * (size // 2),
        "exponent": "1e" + "9" * size,
        "fraction": "0." + "1" * size,
        "spaces": " " * size + "1_6",
        "arabic-digits": "١" * size,
        "signs": "+" * size + "1",
    }


# Addresses of the cost page (attack findings 6 and 13): tiny shares, prices and intervals that tied the
# worker up for seconds or ended in a traceback, and the largest jobs still accepted at the floors.
_GPUS = ("a100-sxm-80gb", "h100-sxm-80gb", "h200-141gb", "mi300x-192gb", "rtx-4090-24gb", "rtx-6000-ada-48gb")
_BIG = {"tokens": "1e15", "epochs": "1000", "runs": "1000", "any_count": "true"}


def _hourly(price: str) -> dict[str, str]:
    return {f"price_{gpu}_hourly": price for gpu in _GPUS}


COST_LINKS_REFUSED = {  # name -> (inputs, the field refused)
    "utilization 1e-12 and a price": ({"utilization": "1e-12", "price_a100-sxm-80gb_hourly": "1e-12"}, "utilization"),
    "six prices 1e-12, the largest job": ({**_hourly("1e-12"), **_BIG}, "price_a100-sxm-80gb_hourly"),
    "utilization 1e-300": ({"utilization": "1e-300", **_BIG}, "utilization"),
    "utilization 5e-324": ({"utilization": "5e-324", "bandwidth_share": "0.01"}, "utilization"),
    "scaling 1e-300 on 64 cards": ({"scaling_efficiency": "1e-300", "cards": "64"}, "scaling_efficiency"),
    "checkpoints every 1e-300 h": ({"checkpoint_interval_hours": "1e-300"}, "checkpoint_interval_hours"),
    "measured 1e-300": ({"throughput_per_gpu": "1e-300"}, "throughput_per_gpu"),
}
COST_LINKS_ANSWERED = {
    "the largest job": _BIG,
    "the largest job at 1 % of peak": {**_BIG, "utilization": "0.01"},
    "the largest job, six prices at the floor": {**_BIG, **_hourly("0.01")},
    "the largest job, six prices below every term": {**_BIG, **_hourly("0.5")},
    "the largest job on 1,024 cards at 1 % scaling": {**_BIG, "cards": "1024", "scaling_efficiency": "0.01"},
    "the largest job, checkpoints at the floor": {
        **_BIG,
        "checkpoint_interval_hours": "0.01",
        "failures_per_100h": "100",
    },
    "the largest job at the slowest measured speed": {**_BIG, "throughput_per_gpu": "0.01"},
}
