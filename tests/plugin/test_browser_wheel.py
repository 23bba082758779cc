"""The site's wheel carries what the browser runs, and nothing else (guidekit.runtime.assets.browser_only)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile

import pytest

from gpuguide import results
from guidekit.runtime import assets
from guidekit.site.locale_pack import locale_pack
from tests.conftest import ROOT

# As the plugin asks for it for this site, whose worker imports the calculators package at start.

# Run with only the wheels on the path (-I -S: no site-packages, no editable install, no working
# folder), as the worker imports them: every module they ship imports, and the worker answers and
# checks a pilot result against the schema.
SCRIPT = """
import importlib, json, sys, zipfile
generator, wheel, pack, result = sys.argv[1:]
sys.path[:0] = [generator, wheel]
names = [n[:-3].replace("/", ".").removesuffix(".__init__") for w in (generator, wheel) for n in zipfile.ZipFile(w).namelist()
         if n.endswith(".py") and not n.endswith("__main__.py")]
for name in names:
    importlib.import_module(name)
from guidekit.render import worker
assert worker.__file__.startswith(generator), worker.__file__
worker.start("calculators", open(pack, encoding="utf-8").read())
assert json.loads(worker.render("cost", "{}"))["ok"]
assert json.loads(worker.import_result("cost", open(result, "rb").read()))["ok"]
print(len(names), sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("guidekit", "gpuguide", "calculators", "pilot")}))
"""


@pytest.fixture(scope="module")
def wheel(project_wheel, tmp_path_factory):
    built = tmp_path_factory.mktemp("wheel") / project_wheel.name
    shutil.copy(project_wheel, built)  # browser_only rewrites it; the session's wheel stays as pip built it
    with zipfile.ZipFile(built) as z:
        before = z.namelist()
    dropped = assets.browser_only(built, assets.browser_files(["calculators"], results.BROWSER_FILES))
    return built, before, dropped


def _record(z: zipfile.ZipFile) -> set[str]:
    name = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    return {line.split(",", 1)[0] for line in z.read(name).decode().splitlines()}


def test_the_build_and_the_pilot_are_left_out_and_record_lists_what_is_left(wheel):
    path, before, dropped = wheel
    with zipfile.ZipFile(path) as z:
        after = z.namelist()
        assert _record(z) == set(after)
    assert dropped == len(before) - len(after) > 0
    assert not [
        n for n in after if n.startswith(("guidekit/site/", "guidekit/i18n/", "guidekit/runtime/", "gpuguide/markers/"))
    ]
    assert [n for n in after if n.startswith("pilot/")] == sorted(
        n for n in before if n == "pilot/__init__.py" or n.startswith("pilot/result/")
    )
    # Every calculator and import panel file the project has is still there (the generator's are in its own wheel).
    for prefix in ("calculators/", *results.BROWSER_FILES):
        assert [n for n in after if n.startswith(prefix)] == [n for n in before if n.startswith(prefix)] != []


def test_the_worker_runs_from_the_wheels_alone(wheel, generator_wheel, tmp_path):
    path = wheel[0]
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(locale_pack("es", ROOT / "locales")), encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            SCRIPT,
            str(generator_wheel),
            str(path),
            str(pack),
            str(ROOT / "results" / "sample-cpu.json"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    count, packages = run.stdout.split(" ", 1)
    assert int(count) > 40
    assert packages.strip() == "['calculators', 'gpuguide', 'guidekit', 'pilot']"
