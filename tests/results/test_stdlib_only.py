"""calcui.results runs in Pyodide: it imports nothing outside the standard library and the project."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import sys
from calcui import results
text = open("results/sample-cpu.json", "rb").read()
data, problems = results.parse(text)
assert problems == []
pack = {"locale": "es", "numbers": {"decimal": ",", "group": ".", "minus": "-", "grouping": [3, 3],
        "percent": {"prefix": "", "suffix": " %"}, "currency": {"prefix": "", "suffix": " US$",
        "neg_prefix": "-", "neg_suffix": " US$"}}, "units": {"gb": "{0} GB", "hour": "{0} h", "day": "{0} d"}}
results.results_page([("sample-cpu.json", data)], pack)
assert results.import_result("cost", text, pack)["ok"]
own = {"calcui", "calculators", "pilot", "__main__"}
foreign = sorted({m.split(".")[0] for m in sys.modules} - set(sys.stdlib_module_names) - own)
print(",".join(foreign))
"""


def test_only_the_standard_library_and_the_project_are_imported():
    out = subprocess.run([sys.executable, "-I", "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True)
    assert [m for m in out.stdout.strip().split(",") if m and not m.startswith("_")] == []
