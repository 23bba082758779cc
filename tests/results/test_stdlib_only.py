"""gpuguide.results runs in Pyodide: it imports nothing outside the standard library and the project.

The check runs in an interpreter without site-packages (`-S`), whose path holds only the project, so
any other import fails there instead of being listed and filtered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + '/generator/src']
from gpuguide import results
text = open("results/sample-cpu.json", "rb").read()
data, problems = results.parse(text)
assert problems == []
pack = {"locale": "es", "numbers": {"decimal": ",", "group": ".", "minus": "-", "grouping": [3, 3],
        "percent": {"prefix": "", "suffix": " %"}, "currency": {"prefix": "", "suffix": " US$",
        "neg_prefix": "-", "neg_suffix": " US$"}}, "units": {"gb": {"other": "{0} GB"}, "hour": {"other": "{0} h"}, "day": {"other": "{0} d"}}}
results.results_page([("sample-cpu.json", data)], pack)
assert results.import_result("cost", text, pack)["ok"]
print(sorted({m.split(".")[0] for m in sys.modules if m.startswith(("guidekit", "gpuguide", "calculators", "pilot"))}))
"""


def test_only_the_standard_library_and_the_project_are_imported():
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", SCRIPT, str(ROOT)], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["['calculators',", "'gpuguide',", "'guidekit',", "'pilot']"]
