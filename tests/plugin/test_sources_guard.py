"""Only the project's own files are published, front matter reaches <head> as text, and a broken
translation stops the build with one line: builds of a copy of the toy fixture site."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from guidekit.site import sources_guard
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def toy_copy(folder: Path, own_locales: bool = False) -> Path:
    """The toy site copied into `folder`, its paths made absolute; `own_locales` copies the catalogs too."""
    site = folder / "toy"
    shutil.copytree(FIXTURES / "toysite" / "docs", site / "docs")
    config = (FIXTURES / "toysite" / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("../toycalc", str(FIXTURES / "toycalc")).replace("../../..", str(ROOT))
    # This guide's extension, with results of its own inside the copy (empty: no runs), where a test can
    # plant a link: its folder is guarded as the generator's own are.
    config += (
        "      extensions:\n        gpuguide.site:\n          results_dir: results\n"
        f"          accuracy_file: {ROOT}/benchmarks/results/memory_accuracy.json\n"
        f"          traced_file: {ROOT}/benchmarks/results/memory_traced.json\n"
    )
    (site / "results").mkdir()
    if own_locales:
        shutil.copytree(ROOT / "locales", site / "locales", ignore=shutil.ignore_patterns("sources"))
    (site / "mkdocs.yml").write_text(config, encoding="utf-8")
    return site


def build(site: Path) -> tuple[subprocess.CompletedProcess, Path]:
    out = site.parent / "out"
    path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(FIXTURES / "toycalc")]))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=path)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
    )
    return result, out


def error_lines(result: subprocess.CompletedProcess) -> list[str]:
    """MkDocs' ERROR lines, without the level."""
    return [line.split("-  ", 1)[1] for line in result.stderr.splitlines() if line.startswith("ERROR")]


# -- 1. links out of the source folders ----------------------------------------------------------------


@pytest.fixture
def symlink():
    """Makes links (and their folders) that are removed after the test, whatever happened."""
    made = []

    def make(path: Path, target: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        path.symlink_to(target)
        made.append(path)
        return path

    yield make
    for path in made:
        path.unlink(missing_ok=True)


def test_outside_links_are_found_at_any_depth_and_inside_ones_kept(tmp_path, symlink):
    docs = tmp_path / "docs"
    (docs / "es" / "img").mkdir(parents=True)
    symlink(docs / "es" / "deep" / "er" / "environ.txt", "/proc/self/environ")
    symlink(docs / "es" / "etc", "/etc")
    symlink(docs / "es" / "up", "../..")  # leaves docs/ by a relative path
    symlink(docs / "ja" / "img", "../es/img")  # stays inside: allowed
    lines = sources_guard.outside_links(docs, tmp_path)
    assert [line.split(" is a symbolic link")[0] for line in lines] == [
        "docs/es/etc",
        "docs/es/up",
        "docs/es/deep/er/environ.txt",
    ]
    assert lines[2] == (
        "docs/es/deep/er/environ.txt is a symbolic link to /proc/self/environ, outside docs/: only "
        "files inside docs/ are published or read. Replace the link with a copy of what it points "
        "at, or remove it"
    )
    assert sources_guard.outside_links(tmp_path / "missing", tmp_path) == []


def test_a_guarded_folder_that_is_a_link_or_under_one_is_refused(tmp_path, symlink):
    """Issue 53 item 3: the folder itself, or a folder between it and the project root, being a link
    publishes its whole target; so does `results -> /`, which also walked the filesystem."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "docs" / "es").mkdir(parents=True)
    (elsewhere / "docs" / "es" / "secret-leak.txt").write_text("private", encoding="utf-8")
    root = tmp_path / "project"
    root.mkdir()
    symlink(root / "docs", str(elsewhere / "docs"))
    [line] = sources_guard.outside_links(root / "docs", root)
    assert line == (
        f"docs is a symbolic link to {elsewhere / 'docs'}: the build reads and publishes only the project's own "
        "folders. Replace the link with the folder itself"
    )
    symlink(root / "results", "/")
    [line] = sources_guard.outside_links(root / "results", root)  # one line, no walk of the filesystem
    assert line.startswith("results is a symbolic link to /:")
    symlink(root / "theme", str(elsewhere))  # a parent of the guarded folder
    [line] = sources_guard.outside_links(root / "theme" / "docs", root)
    assert line.startswith("theme is a symbolic link to ")
    assert sources_guard.linked_folder(root / "locales", root) is None  # missing and not a link: nothing to say


def test_a_loop_or_a_dangling_link_is_refused_in_one_line(tmp_path, symlink):
    docs = tmp_path / "docs"
    (docs / "es").mkdir(parents=True)
    symlink(docs / "es" / "a", "b")
    symlink(docs / "es" / "b", "a")
    symlink(docs / "es" / "gone.png", "missing.png")  # inside the folder, but nothing there
    lines = sources_guard.outside_links(docs, tmp_path)
    assert lines == [
        "docs/es/a is a symbolic link to b, which leads nowhere (a loop or a missing file): remove it",
        "docs/es/b is a symbolic link to a, which leads nowhere (a loop or a missing file): remove it",
        "docs/es/gone.png is a symbolic link to missing.png, which leads nowhere (a loop or a missing file): remove it",
    ]


@pytest.mark.build  # builds the toy site
@pytest.mark.parametrize("folder", ["docs", "results"])
def test_the_build_refuses_a_source_folder_that_is_a_link(tmp_path, folder):
    site = toy_copy(tmp_path)
    outside = tmp_path / "outside"
    shutil.move(site / folder, outside)
    (outside / "secret-leak.txt").write_text("private", encoding="utf-8")
    (site / folder).symlink_to(outside)
    result, out = build(site)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert error_lines(result) == [
        ("extension 'gpuguide.site': " if folder == "results" else "")
        + f"{folder} is a symbolic link to {outside}: the build reads and publishes only the project's own folders. "
        "Replace the link with the folder itself"
    ], result.stderr
    assert not out.exists() or not any(out.rglob("secret-leak.txt"))


def test_a_link_name_cannot_forge_a_log_line(tmp_path, symlink):
    symlink(tmp_path / "docs" / "a\nINFO    -  fine", "/etc/passwd")
    [line] = sources_guard.outside_links(tmp_path / "docs", tmp_path)
    assert "\n" not in line and line.startswith("docs/a\\nINFO")


@pytest.mark.build  # builds the toy site
@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("docs/es/environ.txt", "/proc/self/environ"),  # the finding: the environment published, .br and .gz too
        ("docs/ja/host", "/etc"),  # a folder: MkDocs follows it and publishes every file in it
        ("results/run.json", "/proc/self/environ"),
        ("locales/es/LC_MESSAGES/messages.po", "/proc/self/environ"),
    ],
)
def test_the_build_refuses_a_link_out_of_its_folder_before_writing_anything(tmp_path, symlink, link, target):
    site = toy_copy(tmp_path, own_locales=link.startswith("locales/"))
    symlink(site / link, target)
    result, out = build(site)
    assert result.returncode != 0
    assert error_lines(result) == [
        ("extension 'gpuguide.site': " if link.startswith("results/") else "")
        + f"{link} is a symbolic link to {target}, outside {link.split('/')[0]}/: only "
        f"files inside {link.split('/')[0]}/ are published or read. Replace the link with "
        "a copy of what it points at, or remove it"
    ], result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_front_matter_the_theme_prints_becomes_html_text_once():
    meta = {
        "title": 'Q&A "<b>"',
        "description": "a'b",
        "status": "new",
        "subtitle": 2024,
        "hide": ["toc"],
        "template": "main.html",
    }
    assert sources_guard.front_matter_as_html(meta) == []
    assert meta == {
        "title": "Q&amp;A &quot;&lt;b&gt;&quot;",
        "description": "a&#x27;b",
        "status": "new",
        "subtitle": "2024",
        "hide": ["toc"],
        "template": "main.html",
    }


def test_front_matter_that_is_not_text_is_refused():
    assert sources_guard.front_matter_as_html({"title": ["a", "b"], "author": {"x": 1}}) == [
        "front matter 'title' must be text, not a list",
        "front matter 'author' must be text, not a dict",
    ]


# -- 2 and 3. front matter in <head>, `%` in translations: one build that must succeed -------------------

# Every field the theme prints, with the finding's payload; the title also carries & " < as plain text.
HOSTILE_TITLE = 'R&D "GPU" <8> "><meta http-equiv="refresh" content="4;url=https://evil.example/">'
HOSTILE_FRONT_MATTER = {
    "title": HOSTILE_TITLE,
    "description": '"><meta http-equiv="refresh" content="4;url=https://evil.example/">',
    "author": '"><meta name="referrer" content="unsafe-url">',
    "subtitle": "<b>x</b>",
    "status": 'new"><meta http-equiv="refresh" content="0">',
}


def _set_msgstr(po: Path, msgid: str, msgstr: str) -> None:
    """Translates `msgid` in the project's catalog; a generator string ("Result") the catalog lacks is
    added, as an author overrides the generator's own wording."""
    text = po.read_text(encoding="utf-8")
    entry = re.compile(rf'(\nmsgid "{re.escape(msgid)}"\nmsgstr )"[^\n]*"')
    if not entry.search(text):
        text += f'\nmsgid "{msgid}"\nmsgstr ""\n'
    po.write_text(entry.sub(lambda m: m[1] + json.dumps(msgstr, ensure_ascii=False), text, count=1), encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_toy(tmp_path_factory):
    site = toy_copy(tmp_path_factory.mktemp("hostile"), own_locales=True)
    page = site / "docs" / "es" / "untranslated.md"
    # No "# heading": the title then comes from the front matter alone (the <h1>, the search index too).
    body = page.read_text(encoding="utf-8").split("---\n", 2)[2].split("\n", 1)[1]
    page.write_text(
        "---\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in HOSTILE_FRONT_MATTER.items()) + "---\n" + body,
        encoding="utf-8",
    )
    # Percent signs as text: Jinja's gettext read "% s" as a directive and "%." as a broken one.
    _set_msgstr(site / "locales" / "es" / "LC_MESSAGES" / "messages.po", "Result", "Resultado: el 50 % sí")
    _set_msgstr(site / "locales" / "ja" / "LC_MESSAGES" / "messages.po", "Updating…", "更新中 50 %.")
    result, out = build(site)
    assert result.returncode == 0, result.stderr
    return out


def _policy_meta(html: str) -> list[dict]:
    """Every <meta> tag that sets behaviour (http-equiv or a referrer policy), as the browser parses it."""

    class Metas(HTMLParser):
        found: list[dict] = []

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "meta" and ("http-equiv" in attrs or attrs.get("name") == "referrer"):
                self.found.append(attrs)

    parser = Metas()
    parser.found = []
    parser.feed(html)
    return parser.found


@pytest.mark.slow
@pytest.mark.parametrize("path", ["untranslated/index.html", "ja/untranslated/index.html"])
def test_front_matter_reaches_the_head_as_text(hostile_toy, path):
    html = (hostile_toy / path).read_text(encoding="utf-8")
    head = html.split("</head>")[0]
    # The build's own two <meta> policies and nothing else that sets behaviour.
    assert [m.get("http-equiv") or m["name"] for m in _policy_meta(html)] == ["Content-Security-Policy", "referrer"]
    assert '<meta name="description" content="&quot;&gt;&lt;meta http-equiv=&quot;refresh&quot;' in head
    escaped = "R&amp;D &quot;GPU&quot; &lt;8&gt; &quot;&gt;&lt;meta http-equiv=&quot;refresh&quot;"
    assert f"<title>{escaped}" in head
    # The same text, escaped once, where the theme shows the title in the body: header, nav, h1.
    body = html.split("</head>")[1]
    assert body.count(escaped) >= 3 and "&amp;amp;" not in html and "&amp;quot;" not in html
    assert "<b>x</b>" not in body and "&lt;b&gt;x&lt;/b&gt;" in body  # subtitle in the nav


@pytest.mark.slow
def test_the_search_index_holds_the_title_escaped_once(hostile_toy):
    index = json.loads((hostile_toy / "search" / "search_index.json").read_text(encoding="utf-8"))
    titles = [doc["title"] for doc in index["docs"] if doc["location"].startswith("untranslated/")]
    # HTML, as Material's own titles from a heading are (the search dialog shows them as HTML).
    assert titles and all(t.startswith("R&amp;D") and "&amp;amp;" not in t and "<meta" not in t for t in titles), titles


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "shown"), [("index.html", "Resultado: el 50 % sí"), ("ja/index.html", "更新中 50 %.")]
)
def test_a_percent_sign_in_a_translated_template_string_is_text(hostile_toy, path, shown):
    assert shown in (hostile_toy / path).read_text(encoding="utf-8")


@pytest.mark.build  # builds the toy site
@pytest.mark.parametrize(
    ("msgstr", "why"),
    [
        ("Resultado {", "malformed {placeholder} in msgstr (Single '{' encountered in format string)"),
        ("Resultado {gpu}", "placeholders differ: not in msgid {gpu}"),
    ],
)
def test_a_broken_translation_stops_the_build_with_one_line(tmp_path, msgstr, why):
    site = toy_copy(tmp_path, own_locales=True)
    po = site / "locales" / "es" / "LC_MESSAGES" / "messages.po"
    _set_msgstr(po, "Result", msgstr)
    result, out = build(site)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    line = next(line for line in result.stderr.splitlines() if "'Result'" in line)
    assert re.fullmatch(rf"locales/es/LC_MESSAGES/messages\.po:\d+: placeholder: 'Result': {re.escape(why)}", line)
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.build  # builds the toy site
def test_a_catalog_that_is_not_utf8_stops_the_build_with_one_line(tmp_path):
    site = toy_copy(tmp_path, own_locales=True)
    po = site / "locales" / "ja" / "LC_MESSAGES" / "messages.po"
    po.write_bytes(po.read_bytes().replace("結果".encode(), b"\xff", 1))
    result, _ = build(site)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert error_lines(result) == [
        f"{po}: not UTF-8 text (invalid start byte: byte b'\\xff'); save the catalog as UTF-8"
    ]


# -- pages too large or too deep for Markdown ------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "problem"),
    [
        # Attack finding 16: a 2,000-deep nested list (4 MB) was still converting after 600 s.
        ("\n".join("  " * i + "- x" for i in range(2_000)), "the page holds 4,005,999 characters, over 200,000"),
        ("# T\n\n" + "\n".join("  " * i + "- x" for i in range(40)), "line 36 is indented 66 columns, over 64"),
        ("# T\n\n" + ">" * 3_000 + " x\n", "line 3 nests quotes 3000 deep, over 16"),
        # 20,000 `[` in one paragraph took 46 s: Markdown's time grows with the square of the run.
        ("# T\n\nok\n\n" + "[" * 20_000, "the block from line 5 holds over 128 '['"),
        ("# T\n\n" + "<a " * 600, "the block from line 3 holds over 512 '<'"),
    ],
)
def test_a_page_too_large_or_deep_is_refused_before_markdown_runs(markdown, problem):
    import time

    start = time.process_time()
    assert (sources_guard.page_shape_problem(markdown) or "").startswith(problem)
    assert time.process_time() - start < 0.5


def test_every_page_of_the_guide_is_inside_the_bounds():
    """The bounds leave the guide's own pages far inside (the largest: 37 kB, 27 columns, 7 `[` in a block)."""
    pages = sorted((ROOT / "docs").glob("*/*.md"))
    assert pages and [p for p in pages if sources_guard.page_shape_problem(p.read_text(encoding="utf-8"))] == []


@pytest.mark.parametrize(
    ("meta", "problem"),
    [
        # Attack finding 16: a TemplateNotFound traceback each.
        ({"template": "../../../../etc/passwd"}, "its front matter's `template` is '../../../../etc/passwd', not a"),
        ({"template": "nowhere.html"}, "its front matter's `template` is 'nowhere.html', not a template"),
        ({"icon": "../../etc/passwd"}, "its front matter's `icon` is '../../etc/passwd', not one of the theme's"),
        ({"icon": 5}, "its front matter's `icon` is 5, not one of the theme's icons"),
        ({"template": "main.html", "icon": "material/chip"}, None),
    ],
)
def test_a_template_or_icon_the_theme_lacks_is_one_line(meta, problem):
    import material

    found = sources_guard.front_matter_paths_problem(meta, [str(Path(material.__file__).parent / "templates")])
    assert found is None if problem is None else (found or "").startswith(problem), found
