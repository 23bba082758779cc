"""The package must run in Pyodide with nothing but the standard library and the generator's browser layers."""

import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import importlib, pkgutil, sys
sys.path.insert(0, "generator/src")
import calculators
mods = ["calculators"] + [f"calculators.{m.name}" for m in pkgutil.iter_modules(calculators.__path__)]
for name in mods:
    if name != "calculators.__main__":
        importlib.import_module(name)
for name in calculators.names():  # running them must not import anything lazily either
    calculators.compute(name, {})
generator = ("guidekit", "guidekit.calc", "guidekit.l10n")
outside = sorted(n for n in sys.modules
                 if n.split(".")[0] not in sys.stdlib_module_names | {"calculators", "__main__"}
                 and not any(n == g or n.startswith(g + ".") for g in generator[1:]) and n != generator[0])
print(len(mods))
print("\n".join(outside))
"""


def test_imports_only_the_standard_library():
    # "-S": no site hooks (editable finders, .pth files); "-c" puts this checkout first on sys.path.
    proc = subprocess.run([sys.executable, "-S", "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    count, *outside = proc.stdout.split("\n")
    assert int(count) == 1 + len(list(pkgutil.iter_modules([str(ROOT / "calculators")])))
    assert [n for n in outside if n] == []
