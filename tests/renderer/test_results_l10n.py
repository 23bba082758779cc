"""The results page in the reader's language: restore findings worded from the file's data, never
from its English sentences, and timestamps in the locale's CLDR format (Babel is the reference)."""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timezone

import pytest
from babel import Locale
from babel.dates import format_date, format_time

from gpuguide import results
from gpuguide.results import _restore
from guidekit.l10n import Translator
from guidekit.l10n._dates import format_timestamp, parse_timestamp, timestamp_html
from guidekit.l10n._numbers import NumberFormat
from guidekit.render._figures import num
from guidekit.site.locale_pack import date_data
from tests.conftest import ROOT, locale_packs

PACKS = locale_packs()
SAMPLE = json.loads((ROOT / "results" / "sample-cpu.json").read_text(encoding="utf-8"))
LEGACY = ROOT / "tests" / "results" / "good" / "gpu-lora.json"
INSTANTS = [
    datetime(2026, 11, 30, 10, 36, 14, tzinfo=timezone.utc),
    datetime(2026, 1, 5, 0, 7, tzinfo=timezone.utc),
    datetime(2025, 7, 9, 12, 0, tzinfo=timezone.utc),
    datetime(2024, 2, 29, 23, 59, 59, tzinfo=timezone.utc),
]


def _page(data: dict, locale: str) -> str:
    parsed, problems = results.parse(json.dumps(data))
    assert problems == []
    return results.results_page([("run.json", parsed)], PACKS[locale])


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


# -- timestamps --------------------------------------------------------------------------------


@pytest.mark.parametrize("when", INSTANTS)
@pytest.mark.parametrize("locale", ("es", "ja", "ar", "en", "de", "fr", "hi"))
def test_timestamp_matches_babel(locale, when):
    """Medium date and short time joined by the locale's own pattern, as Babel writes them."""
    glue = str(Locale.parse(locale).datetime_formats["medium"])
    expected = glue.replace("{1}", format_date(when, "medium", locale=locale)).replace(
        "{0}", format_time(when, "short", tzinfo=timezone.utc, locale=locale)
    )
    assert format_timestamp(when, date_data(locale)) == expected


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("2026-11-30T10:36:14+00:00", "2026-11-30T10:36:14Z"),
        ("2026-11-30t23:30:00.123456789-02:00", "2026-12-01T01:30:00Z"),  # another offset, a long fraction
        ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59Z"),  # a leap second
    ],
)
def test_timestamps_are_read_as_rfc3339_and_shown_in_utc(text, utc):
    assert parse_timestamp(text).strftime("%Y-%m-%dT%H:%M:%SZ") == utc
    html = timestamp_html(text, PACKS["es"], Translator(PACKS["es"]))
    assert html.startswith(f'<time datetime="{utc}">')


def test_arabic_timestamp_is_isolated_right_to_left_in_arabic_order():
    """The page used to show the raw ISO text, which Arabic's bidi turned into "30T10:36:14+00:00-11-2026"."""
    html = timestamp_html("2026-11-30T10:36:14+00:00", PACKS["ar"], Translator(PACKS["ar"]))
    m = re.fullmatch(r'<time datetime="2026-11-30T10:36:14Z"><bdi class="guide-date" dir="rtl">(.*)</bdi></time>', html)
    assert m, html
    assert m.group(1).startswith("30\u200f/11\u200f/2026") and "ص" in m.group(1) and "+00:00" not in m.group(1)


@pytest.mark.parametrize("pack", [PACKS["ja"], {k: v for k, v in PACKS["ja"].items() if k != "dates"}])
def test_an_unreadable_timestamp_or_a_pack_without_dates_shows_the_text_left_to_right(pack):
    html = timestamp_html(
        "2026-11-30T10:36:14+00:00\u202e" if "dates" not in pack else "yesterday", pack, Translator(pack)
    )
    assert html in (
        '<time><bdi dir="ltr">2026-11-30T10:36:14+00:00</bdi></time>',
        '<time><bdi dir="ltr">yesterday</bdi></time>',
    )


@pytest.mark.parametrize("locale", PACKS)
def test_results_page_shows_the_localized_date(locale):
    html = _page(SAMPLE, locale)
    assert SAMPLE["created"] not in _text(html)
    assert SAMPLE["created"].endswith("+00:00")  # the pilot writes UTC: the attribute is the same instant
    utc = SAMPLE["created"].removesuffix("+00:00") + "Z"
    assert f'<time datetime="{utc}">' in html


# -- restore findings --------------------------------------------------------------------------


@pytest.mark.parametrize("locale", PACKS)
def test_restore_lines_come_from_the_structured_checks_not_the_sentences(locale):
    html = _page(SAMPLE, locale)
    text = _text(html)
    for sentence in SAMPLE["restore"]["verified"]:
        assert sentence not in text
    items = re.search(r'<ul class="guide-results__verified">(.*?)</ul>', html).group(1)
    assert items.count("<li>") == len(SAMPLE["restore"]["checks"]) == 10
    t = Translator(PACKS[locale])
    assert t(_restore.COMPONENTS["optimizer"]) in items and t(_restore.COMPONENTS["rng.torch_cpu"]) in items
    if locale != "es":
        assert not re.search(r"identical|entries|restore|tensors", text)


def _failing(checks: list[dict]) -> dict:
    data = copy.deepcopy(SAMPLE)
    data["restore"].update(
        passed=False, mode="tolerance", rtol=0.01, atol=0.001, verified=[], failures=["English"], checks=checks
    )
    return data


FAILURES = [
    {
        "check": "state",
        "passed": False,
        "component": "optimizer",
        "problem": "differ",
        "count": 2,
        "total": 129,
        "first": "state.<script>x</script>.exp_avg",
        "expected": "tensor torch.float32 (4,) sha256:aa",
        "got": 3,
    },
    {
        "check": "state",
        "passed": False,
        "component": "rng.future\u202e",
        "problem": "missing",
        "count": 1,
        "total": 1,
        "first": "state",
    },
    {"check": "losses", "passed": False, "step": 17, "expected": 9.123456, "got": None},
    {"check": "parameters", "passed": False, "count": 3, "total": 39, "first": "model.layers.0.mlp.up_proj.weight"},
    {"check": "resume", "passed": False, "exit_code": 1, "message": "RuntimeError: CUDA out of memory"},
]


@pytest.mark.parametrize("locale", PACKS)
def test_each_failure_is_one_localized_line_with_the_file_values_isolated(locale):
    html = _page(_failing(FAILURES), locale)
    items = re.findall(r"<li>(.*?)</li>", re.search(r'<ul class="guide-results__failures">(.*?)</ul>', html).group(1))
    assert len(items) == len(FAILURES)
    assert "<script>" not in html and "<bdi>state.&lt;script&gt;x&lt;/script&gt;.exp_avg</bdi>" in items[0]
    assert "<bdi>rng.future</bdi>" in items[1]  # an unknown component: its code, stripped and isolated
    assert "<bdi>RuntimeError: CUDA out of memory</bdi>" in items[4]
    fmt = NumberFormat(PACKS[locale])
    assert num(fmt.number(9.123456, 6)) in items[2]
    assert "English" not in _text(html)
    # The table's answer counts the structured failures.
    t = Translator(PACKS[locale])
    assert t({"msgid": "No: {count} check failed", "plural": "No: {count} checks failed"}, n=5, count="5") in _text(
        html
    )


@pytest.mark.parametrize("locale", PACKS)
def test_a_file_without_structured_checks_gets_a_localized_count_not_its_sentences(locale):
    data = json.loads(LEGACY.read_text(encoding="utf-8"))
    assert "checks" not in data["restore"] and data["restore"]["verified"]
    html = _page(data, locale)
    for sentence in data["restore"]["verified"]:
        assert sentence not in _text(html)
    count = len(data["restore"]["verified"])
    t = Translator(PACKS[locale])
    line = t.html(_restore.LEGACY[True], n=count, count=num(str(count)))
    assert f"<li>{line}</li>" in html


def test_the_schema_refuses_an_unknown_check_and_a_finding_without_its_fields():
    for bad in (
        {"check": "weather", "passed": True},
        {"check": "state", "passed": True},
        {"check": "resume", "passed": False, "exit_code": 1},
    ):
        data = copy.deepcopy(SAMPLE)
        data["restore"]["checks"] = [bad]
        assert results.parse(json.dumps(data))[1], bad
