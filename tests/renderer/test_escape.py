"""guidekit.l10n's own HTML escaping against the standard library's, and the import it exists to avoid."""

import html
import subprocess
import sys

import pytest

from guidekit.l10n._escape import escape

SAMPLES = [
    "",
    "plain",
    "a & b",
    "<script>alert('x')</script>",
    'say "hi"',
    "&amp; already",
    "«US$» 1 000 < 2 000 > 3",
    "ذاكرة <b>",
    "メモリ & 'GPU'",
    "&<>\"'" * 3,
    "'\"&lt;",
]


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("quote", [True, False])
def test_escape_matches_the_standard_library(text, quote):
    assert escape(text, quote=quote) == html.escape(text, quote=quote)


def test_the_worker_starts_without_the_html_package():
    # `html` imports html.entities, which took 85 ms of the browser worker's start in Pyodide.
    code = (
        "import sys, guidekit.render.worker, calculators.memory, calculators.cost; "
        "print(sorted(m for m in sys.modules if m == 'html' or m.startswith('html.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
