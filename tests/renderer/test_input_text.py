"""Number fields in the locale's form: guidekit.l10n's `input_text` (the build's defaults) and
calculator-numbers.js (`localize` for what the page fills in, `delocalize` for what it reads back)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from guidekit.l10n import NumberFormat
from guidekit.site.locale_pack import number_data
from tests.conftest import THEME

MODULE = THEME / "assets" / "javascripts" / "calculator-numbers.js"
VALUES = [0, 0.0, 3.0, 0.1, 0.2, 1.25, 1000, 65536, 200000000.0, 8030261248, 1e-07, 2.5e-05, 1e15, 12.345]


def _fmt(locale: str) -> NumberFormat:
    return NumberFormat({"numbers": number_data(locale), "units": {}})


@pytest.mark.parametrize(
    ("locale", "value", "shown"),
    [
        ("es", 200000000.0, "200.000.000"),
        ("es", 3.0, "3"),
        ("es", 0.1, "0,1"),
        ("es", 0.0, "0"),
        ("es", 1e-07, "0,0000001"),
        ("ja", 200000000.0, "200,000,000"),
        ("ja", 0.1, "0.1"),
        ("ar", 1234.5, "1,234.5"),
        ("es", None, ""),
    ],
)
def test_input_text_is_the_locales_form_without_a_trailing_zero(locale, value, shown):
    assert _fmt(locale).input_text(value) == shown


def _node(script: str):
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed")
    run = subprocess.run(
        [node, "--input-type=module", "-e", f"import * as n from {json.dumps(MODULE.as_uri())};\n{script}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _symbols(locale: str) -> dict:
    data = number_data(locale)
    return {
        "decimal": data["decimal"],
        "group": data["group"],
        "primary": data["grouping"][0],
        "secondary": data["grouping"][1],
    }


@pytest.mark.parametrize("locale", ["es", "ja", "ar"])
def test_the_page_shows_what_the_build_shows_and_reads_it_back(locale):
    """localize(value) == input_text(value), and delocalize gives back the same number."""
    got = _node(
        f"const s = {json.dumps(_symbols(locale))}; const v = {json.dumps([repr(v) for v in VALUES])};"
        "console.log(JSON.stringify(v.map((x) => { const shown = n.localize(x, s); return [shown, n.delocalize(shown, s)]; })));"
    )
    fmt = _fmt(locale)
    for value, (shown, back) in zip(VALUES, got):
        assert shown == fmt.input_text(value), value
        assert float(back) == value and back.isascii(), (value, shown, back)


# Typed text -> what the calculators get. Spanish "." followed by exactly three digits groups,
# otherwise it is the decimal point; what fits no rule stays as typed, for Python to refuse.
TYPED = {
    "es": {
        "0,2": "0.2",
        "0.2": "0.2",
        "200.000.000": "200000000",
        "1.500": "1500",
        "1.234,5": "1234.5",
        "1,5e3": "1.5e3",
        " 7 ": "7",
        "1.2.3": "1.2.3",
        "1,2,3": "1,2,3",
        "abc": "abc",
        "+8": "+8",
        "1.25": "1.25",
        # Another script's digits and signs, read by the locale's rules: Arabic's decimal sign is the
        # decimal point, a full-width full stop is a "." (so groups before three digits).
        "١٫٩٩": "1.99",
        "１．５００": "1500",
        "－３": "-3",
        # Ambiguous or foreign, left for Python to refuse: a no-break space, an underscore.
        "1\u00a0000": "1\u00a0000",
        "1_6": "1_6",
    },
    "ja": {
        "0.2": "0.2",
        "200,000,000": "200000000",
        "1,234.5": "1234.5",
        "0,2": "0.2",
        "1.2.3": "1.2.3",
        "４０９６": "4096",
        "１，０２４．５": "1024.5",
        "０．２": "0.2",
        "１ｅ３": "1e3",
    },
    "ar": {
        "0.2": "0.2",
        "1,000": "1000",
        "١٢": "12",
        "٨": "8",
        "١٫٩٩": "1.99",
        "١٬٠٠٠": "1000",
        "۴۰۹۶": "4096",  # Eastern Arabic-Indic (Persian, Urdu keyboards)
        "\u061c-٥": "-5",  # the Arabic letter mark a keyboard puts before a minus
        "١٢abc": "12abc",
    },
}


@pytest.mark.parametrize("locale", TYPED)
def test_delocalize_reads_the_locales_typing(locale):
    cases = TYPED[locale]
    got = _node(
        f"const s = {json.dumps(_symbols(locale))};"
        f"console.log(JSON.stringify({json.dumps(list(cases))}.map((t) => n.delocalize(t, s))));"
    )
    assert dict(zip(cases, got)) == cases
