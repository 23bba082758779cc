"""CPython and Pyodide give byte-identical JSON from `compute`, on random inputs: 500 per calculator (CI), 150 in `make test`.

The inputs are decoded as in the property tests (valid values following each declaration; every
other set has one invalid field), then run in Node through Pyodide against the wheel the site ships.
A float sum whose rounding differs between Python versions (the built-in `sum()` changed in 3.12;
the browser runs 3.14) shows up here as a differing last digit.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from test_properties import cost_shape, decode, memory_shape

from calculators import compute, cost, memory

ROOT = Path(__file__).resolve().parents[2]
SETS = int(os.environ.get("GUIDE_PARITY_SETS", 500))  # `make test` draws 150, CI the full 500
CALCULATORS = {"memory": (memory.INPUTS, memory_shape), "cost": (cost.INPUTS, cost_shape)}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None or not (ROOT / "node_modules" / "pyodide").is_dir(),
        reason="needs Node and node_modules/pyodide (make setup)",
    ),
]


def cases() -> list[dict]:
    rng = random.Random(15)
    out = []
    for name, (decl, shape) in CALCULATORS.items():
        for k in range(SETS):
            data = bytes(rng.randrange(256) for _ in range(8 * len(decl)))
            # Odd sets carry one invalid field (decode injects one when the first byte is 9 mod 10).
            data = bytes([9 if k % 2 else rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8])]) + data[1:]
            inputs, _ = decode(data, decl, shape)
            out.append({"name": name, "inputs": json.loads(json.dumps(inputs))})
    return out


def test_pyodide_json_is_byte_identical(tmp_path, project_wheel, generator_wheel):
    sets = cases()
    (tmp_path / "cases.json").write_text(json.dumps(sets), encoding="utf-8")
    run = subprocess.run(
        [
            "node",
            str(Path(__file__).with_name("pyodide_compute.mjs")),
            str(tmp_path / "cases.json"),
            str(generator_wheel),
            str(project_wheel),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    version, *browser = run.stdout.rstrip("\n").split("\n")
    assert version.startswith("3.14"), version
    assert len(browser) == len(sets)
    answers = [compute(case["name"], case["inputs"]) for case in sets]
    for name in CALCULATORS:
        ok = [a["ok"] for case, a in zip(sets, answers) if case["name"] == name]
        assert ok.count(True) >= SETS // 5 and ok.count(False) >= SETS // 5, (name, ok.count(True))
    differing = [(case, line) for case, answer, line in zip(sets, answers, browser) if json.dumps(answer) != line]
    assert not differing, f"{len(differing)} of {len(sets)} differ; first: {differing[0][0]}"
