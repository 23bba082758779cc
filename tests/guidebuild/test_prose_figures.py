"""`<!-- figure: NAME -->`: computed figures in sentences, localized; an unknown name stops the build."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from mkdocs.exceptions import PluginError

import calculators
from guidebuild import markers
from guidebuild.i18n.structure import differences, parse
from guidebuild.locale_pack import locale_pack
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def packs():
    return {loc: locale_pack(loc, ROOT / "locales") for loc in ("es", "ja", "ar")}


def embed(html: str, pack: dict, page: str) -> str:
    """What the plugin does to a page that carries only figures."""
    return markers.embed(html, markers.PageContext(env=None, pack=pack, page=page, runs=[], accuracy_file=ROOT))


def test_figure_is_written_in_the_sentence_localized(packs):
    html = "<p>Unos <!-- figure: memory.llama8b_full --> en total.</p>"
    es = embed(html, packs["es"], "memory.md")
    assert es == '<p>Unos <bdi class="guide-num" data-figure="memory.llama8b_full" dir="ltr">178\u00a0GB</bdi> en total.</p>' \
        or re.search(r'data-figure="memory.llama8b_full" dir="ltr">178\sGB</bdi>', es)
    ar = embed(html, packs["ar"], "memory.md")
    assert "<!--" not in ar and 'class="guide-num"' in ar


def test_figure_follows_the_model(packs, monkeypatch):
    """The sentence takes whatever the calculator computes: change the model, the prose changes."""
    monkeypatch.setitem(calculators._registry._FIGURES, "test.answer", (lambda: 0.25, "percent"))
    assert "25" in embed("<!-- figure: test.answer -->", packs["es"], "x.md")
    monkeypatch.setitem(calculators._registry._FIGURES, "test.answer", (lambda: 0.5, "percent"))
    assert "50" in embed("<!-- figure: test.answer -->", packs["es"], "x.md")


def test_unknown_figure_names_the_page_and_the_figure(packs):
    with pytest.raises(PluginError, match=r"cost\.md: unknown figure 'cost\.nothing'"):
        embed("<p><!-- figure: cost.nothing --></p>", packs["es"], "cost.md")


def test_every_figure_computes():
    for name in calculators.figure_names():
        found = calculators.figure(name)
        assert found["value"] is not None and found["unit"], name


def test_translation_must_quote_the_same_figures_in_any_order():
    source = parse("---\ntitle: a\n---\nA <!-- figure: x.one --> y <!-- figure: x.two -->\n")
    reordered = parse("---\ntitle: a\n---\nB <!-- figure: x.two --> z <!-- figure: x.one -->\n")
    dropped = parse("---\ntitle: a\n---\nB <!-- figure: x.two -->\n")
    assert not [p for p in differences(source, reordered, "es") if "figures" in p]
    assert [p for p in differences(source, dropped, "es") if "figures" in p]


def test_build_fails_on_an_unknown_figure(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "fixtures" / "toysite", site)
    config = (site / "mkdocs.yml").read_text(encoding="utf-8")
    # Only the small fixture package is packed for the browser: this build never reaches that far.
    config = config.replace('"../../..", ', "").replace("../../../", str(ROOT) + "/").replace("../toycalc", str(ROOT / "tests/fixtures/toycalc"))
    config = re.sub(r"\n\s*calculator_modules:.*", "", config)
    (site / "mkdocs.yml").write_text(config, encoding="utf-8")
    for locale in ("es", "ja", "ar"):
        page = site / "docs" / locale / "index.md"
        page.write_text(page.read_text(encoding="utf-8").replace("<!-- calculator: toy -->", "About <!-- figure: toy.missing -->."),
                        encoding="utf-8")
    (site / "docs" / "es" / "untranslated.md").unlink()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "out")],
                           cwd=site, env=env, capture_output=True, text=True)
    assert build.returncode != 0
    assert "index.md: unknown figure 'toy.missing'" in build.stdout + build.stderr
