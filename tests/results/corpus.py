"""Seeded mutations of valid result files: the differential test's corpus (deterministic)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOOD = [ROOT / "results" / "sample-cpu.json", *sorted((Path(__file__).parent / "good").glob("*.json"))]

# Values of every JSON type, in and out of the schema's ranges and enums.
PALETTE = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2,
    1.5,
    -1e-9,
    0.5,
    2.0,
    1e16,
    10**19,
    10**6,
    "",
    "x",
    "1",
    "2",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "a" * 3000,
    "f" * 64,
    "0" * 40,
    "F" * 64,
    "2026-11-30T10:11:29Z",
    "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00+00:00",
    "2026-11-30 10:11:29",
    "run",
    "scale",
    "cpu",
    "cuda",
    "completed",
    "does_not_fit",
    "bitwise",
    "tolerance",
    "s",
    "bytes",
    "ddp",
    "fsdp",
    "none",
    "nccl",
    "lora",
    "q",
    [],
    [1],
    ["q"],
    ["q", "q"],
    ["q", "k", "v", "o", "gate", "up", "down", "q"],
    {},
    {"a": 1},
    {"n": 1},
    [[1]],
    {"x": {"y": [None]}},
]


def load_good() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in GOOD]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            yield from _paths(v, path + (i,))


def _get(doc, path):
    for part in path:
        doc = doc[part]
    return doc


def mutate(doc: dict, rng: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        paths = [p for p in _paths(doc) if p]
        path = rng.choice(paths)
        parent, key = _get(doc, path[:-1]), path[-1]
        op = rng.random()
        if op < 0.15 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.22 and isinstance(parent, dict):
            parent["unexpected_" + str(rng.randrange(3))] = rng.choice(PALETTE)
        elif op < 0.42 and isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
            value = parent[key]
            parent[key] = rng.choice([-value, value + 1, value * 1e6, value - 1, 0, float(value)])
        elif op < 0.5 and isinstance(parent[key], list) and parent[key]:
            parent[key].append(copy.deepcopy(parent[key][0]))
        else:
            parent[key] = copy.deepcopy(rng.choice(PALETTE))
    return doc


def corpus(count: int = 600, seed: int = 20261130) -> list[dict]:
    rng, good = random.Random(seed), load_good()
    return [mutate(good[i % len(good)], rng) for i in range(count)]
