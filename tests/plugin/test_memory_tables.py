"""`<!-- memory-accuracy -->` and `<!-- memory-traced -->`: the memory page's two tables, rendered from their
JSON at build time through the page's partial in every locale (plugin events called directly, no build)."""

from __future__ import annotations

import json
import re

import pytest
from jinja2 import Environment, FileSystemLoader
from mkdocs.exceptions import PluginError

from calculators import models
from gpuguide import site
from guidekit.l10n import NumberFormat
from guidekit.site import markers
from guidekit.site.locale_pack import locale_pack
from guidekit.site.partials_env import partials_env
from tests.conftest import ROOT, THEME_DIRS

LOCALES = ("es", "ja", "ar")
RESULTS = ROOT / "benchmarks" / "results"
NAMES = {m["id"]: m["name"] for m in models()["models"]}


def _row(preset: str, traced: int | None, estimated: int | None, ckpt: bool = True, method: str = "full") -> dict:
    error = None if traced is None or estimated is None else (estimated - traced) / traced
    return {
        "name": preset,
        "preset": preset,
        "method": method,
        "dtype": "bf16",
        "autocast": True,
        "ckpt": ckpt,
        "micro_batch": 1,
        "seq_len": 2048,
        "traced_bytes": traced,
        "estimated_bytes": estimated,
        "relative_error": error,
        "reason": None if error is not None else "trace failed: RuntimeError: x",
    }


TRACED = {
    "goal": 0.03,
    "traced_with": {"torch": "9.9.9", "transformers": "8.8.8", "peft": "7.7.7", "date": "2031-01-02"},
    "rows": [
        _row("llama-3.1-8b", 80_300_000_000, 80_000_000_000),
        _row("mixtral-8x7b", 101_600_000_000, 105_800_000_000, ckpt=False, method="lora"),
        _row("qwen3-8b", None, None),
    ],
}


def _embed(locale: str, html: str, traced_file) -> str:
    theme = Environment(loader=FileSystemLoader(THEME_DIRS), extensions=["jinja2.ext.i18n"])
    pack = locale_pack(locale, ROOT / "locales")
    ctx = markers.PageContext(
        env=partials_env(theme, pack),
        pack=pack,
        page="memory.md",
        extensions={
            "gpuguide.site": site.State(
                runs=[], accuracy_file=RESULTS / "memory_accuracy.json", traced_file=traced_file
            )
        },
    )
    return markers.embed(html, ctx)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_traced_table_shows_each_row_its_worst_difference_and_its_versions(tmp_path, locale):
    (tmp_path / "traced.json").write_text(json.dumps(TRACED), encoding="utf-8")
    html = _embed(locale, "<p>x</p>\n<!-- memory-traced -->\n", tmp_path / "traced.json")
    fmt = NumberFormat(locale_pack(locale, ROOT / "locales"))
    assert "<!--" not in html
    rows = re.findall(r'<tr>\s*<th scope="row"><bdi>([^<]*)</bdi></th>(.*?)</tr>', html, re.S)
    assert [name for name, _ in rows] == [f"{NAMES[r['preset']]} · 2048 × 1" for r in TRACED["rows"]]
    cells = [re.findall(r'<bdi class="guide-num">([^<]*)</bdi>', body) for _, body in rows]
    assert cells[0] == [fmt.number(80.3, 2, 2), fmt.number(80.0, 2, 2), "−" + fmt.percent_of(0.3 / 80.3)]
    assert cells[1][2] == "+" + fmt.percent_of(4.2 / 101.6)
    assert cells[2] == ["—", "—", "—"]  # a failed trace is a row, not a figure
    caption = re.search(r"<caption>(.*?)</caption>", html, re.S)[1]
    for figure in (fmt.number(3, 0), fmt.percent_of(4.2 / 101.6), fmt.percent_of(0.03, 0)):
        assert figure in caption, (figure, caption)
    for version in ("9.9.9", "8.8.8", "7.7.7", "2031-01-02"):
        assert version in html
    assert "FakeTensorMode" in html


@pytest.mark.parametrize("locale", LOCALES)
def test_the_two_tables_have_their_own_headers(tmp_path, locale):
    """One partial for both: the measured table in MB, the traced one in GB, each named for what it compares."""
    (tmp_path / "traced.json").write_text(json.dumps(TRACED), encoding="utf-8")
    measured = _embed(locale, "<!-- memory-accuracy -->\n", tmp_path / "traced.json")
    traced = _embed(locale, "<!-- memory-traced -->\n", tmp_path / "traced.json")
    head = lambda html: re.findall(r'<th scope="col">([^<]*)</th>', html)  # noqa: E731
    assert head(measured)[:2] == head(traced)[:2] and head(measured)[4] == head(traced)[4]
    assert "MB" in head(measured)[2] and "GB" in head(traced)[2] and head(measured)[2] != head(traced)[2]
    label = lambda html: re.search(r'aria-label="([^"]*)"', html)[1]  # noqa: E731
    assert label(measured) != label(traced)


def test_the_published_traced_file_covers_every_preset():
    """What the page shows: every preset of the calculator traced at its published size, within the goal or listed."""
    data = json.loads((RESULTS / "memory_traced.json").read_text(encoding="utf-8"))
    assert {r["preset"] for r in data["rows"]} == set(NAMES)
    assert all(r["traced_bytes"] for r in data["rows"]), [r["reason"] for r in data["rows"] if not r["traced_bytes"]]


def test_a_traced_file_that_cannot_be_read_names_the_command_that_writes_it(tmp_path):
    (tmp_path / "traced.json").write_text('{"rows": []}', encoding="utf-8")
    with pytest.raises(PluginError, match=r"traced\.json: .*run python -m benchmarks\.memory_accuracy --traced"):
        _embed("es", "<!-- memory-traced -->\n", tmp_path / "traced.json")
