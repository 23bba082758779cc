"""Plugin events, called directly: no build."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
from mkdocs.exceptions import PluginError

from guidekit.runtime import assets
from guidekit.site.plugin import GuidePlugin
from tests.conftest import ROOT, THEME_DIRS


def plugin(**options) -> GuidePlugin:
    guide = GuidePlugin()
    errors, warnings = guide.load_config(options)
    assert not errors and not warnings
    return guide


def theme(*dirs) -> SimpleNamespace:
    return SimpleNamespace(theme=SimpleNamespace(dirs=[str(d) for d in dirs]))


def test_on_env_gives_the_templates_materials_own_search_worker():
    import material

    templates = Path(material.__file__).parent / "templates"
    env = plugin().on_env(jinja2.Environment(), config=theme(*THEME_DIRS, templates), files=None)
    worker = env.globals["guide_search_worker"]
    assert re.fullmatch(r"assets/javascripts/workers/search\.[0-9a-f]+\.min\.js", worker)
    assert (templates / worker).is_file()
    bundle = env.globals["guide_material_bundle"]
    assert re.fullmatch(r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js", bundle)
    assert (templates / bundle).is_file()


def test_the_themes_name_no_hashed_script():
    """Material's hashed names change with each release: found in the theme (above), never written down."""
    for path in (p for folder in THEME_DIRS for p in Path(folder).rglob("*.html")):
        assert not re.search(r"(workers/search|bundle)\.[0-9a-f]{6,}", path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize("names", [[], ["search.1111.min.js", "search.2222.min.js"]])
def test_no_worker_or_two_stop_the_build(tmp_path, names):
    workers = tmp_path / "assets" / "javascripts" / "workers"
    workers.mkdir(parents=True)
    for name in names:
        (workers / name).write_text("", encoding="utf-8")
    with pytest.raises(PluginError, match=r"Expected one assets/javascripts/workers/search\.\*\.min\.js"):
        assets.material_search_worker([str(tmp_path)])


def test_a_worker_renamed_by_a_new_material_release_is_found(tmp_path):
    workers = tmp_path / "assets" / "javascripts" / "workers"
    workers.mkdir(parents=True)
    (workers / "search.0badc0de.min.js").write_text("", encoding="utf-8")
    assert assets.material_search_worker([str(tmp_path)]) == "assets/javascripts/workers/search.0badc0de.min.js"


def test_a_disabled_plugin_leaves_the_environment_alone():
    env = jinja2.Environment()
    plugin(enabled=False).on_env(env, config=theme(), files=None)
    assert "guide_search_worker" not in env.globals


@pytest.mark.parametrize(
    ("options", "option", "message"),
    [
        ({"locales_dir": "no-such-folder"}, "locales_dir", r"no-such-folder' isn't an existing directory"),
        ({"pyodide_dir": "no-such-folder"}, "pyodide_dir", r"isn't an existing directory\. Run `npm ci`"),
        ({"packages": [".", "docs"]}, "packages", r"docs' has no pyproject\.toml"),
        ({"calculator_modules": ["no_such_module"]}, "calculator_modules", r"No module named 'no_such_module'"),
        ({"extensions": ["gpuguide.site"]}, "extensions", r"expected a mapping of module name to its options"),
        ({"extensions": {"gpuguide.site": "results"}}, "extensions", r"gpuguide\.site: its options are a mapping"),
    ],
)
def test_a_bad_option_is_refused_by_name_before_the_build(options, option, message):
    """Folders must exist (a package folder holds a pyproject.toml); calculator modules must import."""
    errors, _ = GuidePlugin().load_config(options, str(ROOT / "mkdocs.yml"))
    assert [name for name, _ in errors] == [option]
    assert re.search(message, str(errors[0][1]))


def test_a_catalog_the_cost_calculator_cannot_price_stops_the_build(monkeypatch):
    """The calculators no longer check their catalog on import (in every browser): the build does, first."""
    from calculators import _data

    broken = copy.deepcopy(_data.catalog())
    broken["pricing"]["shapes"]["h100-sxm-80gb"]["max_nodes"] = 0
    monkeypatch.setattr(_data, "catalog", lambda: broken)
    i18n = SimpleNamespace(building=False, current_language="es", default_language="es")
    config = SimpleNamespace(
        plugins={"i18n": i18n},
        config_file_path=str(ROOT / "mkdocs.yml"),
        docs_dir=str(ROOT / "docs"),
        theme=SimpleNamespace(custom_dir=str(ROOT / "overrides"), dirs=[str(ROOT / "overrides")]),
    )
    with pytest.raises(
        PluginError,
        match=r"^extension 'gpuguide\.site': calculators/data/catalog\.json: shapes\['h100-sxm-80gb'\]: 'max_nodes' must "
        r"be a whole number of nodes from 1 to 128 \(got 0\)$",
    ):
        plugin(extensions={"gpuguide.site": {}}).on_config(config)


def test_the_generators_theme_lies_beneath_the_authors_custom_dir_once():
    """An author's file of the same path replaces one of the generator's templates; nested builds add it once."""
    guide = plugin()
    i18n = SimpleNamespace(building=False, current_language="es", default_language="es")
    dirs = [str(ROOT / "overrides"), "/material/templates"]
    config = SimpleNamespace(
        plugins={"i18n": i18n},
        config_file_path=str(ROOT / "mkdocs.yml"),
        docs_dir=str(ROOT / "docs"),
        theme=SimpleNamespace(custom_dir=str(ROOT / "overrides"), dirs=dirs),
    )
    guide.on_config(config)
    i18n.building, i18n.current_language = True, "ja"
    guide.on_config(config)
    assert dirs == [str(ROOT / "overrides"), THEME_DIRS[1], "/material/templates"]


def test_each_outer_build_starts_afresh_and_the_nested_builds_add_to_it():
    """`mkdocs serve` may rebuild with the same plugin: a page removed since must leave the sitemap."""
    guide = plugin()
    i18n = SimpleNamespace(building=False, current_language="es", default_language="es")
    config = SimpleNamespace(
        plugins={"i18n": i18n},
        config_file_path=str(ROOT / "mkdocs.yml"),
        docs_dir=str(ROOT / "docs"),
        theme=SimpleNamespace(custom_dir=str(ROOT / "overrides"), dirs=[str(ROOT / "overrides")]),
    )
    guide.on_config(config)
    guide.pages["es"] = {"removed/": {"es": "http://x/removed/"}}
    guide.default_404 = "<html>old</html>"
    i18n.building, i18n.current_language = True, "ja"  # static-i18n's nested build of another locale
    guide.on_config(config)
    assert guide.pages == {"es": {"removed/": {"es": "http://x/removed/"}}} and set(guide.packs) == {"es", "ja"}
    i18n.building, i18n.current_language = False, "es"  # the next build
    guide.on_config(config)
    assert guide.pages == {} and guide.default_404 is None and set(guide.packs) == {"es"}


def test_front_matter_that_is_not_yaml_stops_the_build():
    """MkDocs keeps front matter it cannot read as YAML in the page, as text, and says nothing: an
    unquoted ': ' inside a description published `title: ... source_hash: ...` atop the Arabic cost page."""
    guide = plugin()
    guide.root = ROOT  # on_config's
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=None, src_path="ar/cost.md"))
    text = "---\ntitle: كلفة\ndescription: احسب أرخص حجز، والأهم من ذلك: كم تكلّف\n---\n\n# كلفة\n"
    with pytest.raises(PluginError, match=r"ar/cost\.md: its front matter is not YAML .*line 3"):
        guide.on_page_markdown(text, page=page, config=None, files=None)
    # Front matter MkDocs read is gone from the Markdown by then; a page may still open with a rule.
    assert guide.on_page_markdown("# كلفة\n", page=page, config=None, files=None) == "# كلفة\n"
    assert guide.on_page_markdown("---\n\n# x\n", page=page, config=None, files=None) == "---\n\n# x\n"


@pytest.mark.parametrize(
    ("meta", "why"),
    [
        ({"search": {"boost": float("inf")}}, "`search.boost` is inf, not a finite number"),
        ({"search": {"boost": float("nan")}}, "`search.boost` is nan, not a finite number"),
        ({"search": {"boost": "high"}}, "`search.boost` is 'high', not a finite number"),
        ({"search": {"exclude": "yes"}}, "`search.exclude` is 'yes', not true or false"),
        ({"search": "boost"}, "`search` is not a mapping"),
        ({"hide": 5}, "`hide` is 5, not a list of names"),
    ],
)
def test_front_matter_material_would_misread_stops_the_build_with_one_line(meta, why):
    """Attack report finding 20 (`boost: .inf` wrote Infinity into the search index, not JSON) and 16
    (`hide: 5`, a TypeError traceback)."""
    guide = plugin()
    guide.root = ROOT
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=None, src_path="ja/faq.md"), meta=meta)
    with pytest.raises(PluginError, match=r"^ja/faq\.md: its front matter's " + re.escape(why)):
        guide.on_page_markdown("# x\n", page=page, config=None, files=None)
    page.meta = {"search": {"boost": 2, "exclude": False}, "hide": ["toc"]}  # what Material documents
    assert guide.on_page_markdown("# x\n", page=page, config=None, files=None) == "# x\n"


def test_a_failed_build_leaves_no_wheel_folder_behind(tmp_path):
    guide = plugin()
    guide._wheel_dir = tmp_path / "guide-wheel-x"
    guide._wheel_dir.mkdir()
    guide.wheels = [guide._wheel_dir / "a.whl"]
    guide.on_build_error(PluginError("a page refused"))
    assert not guide._wheel_dir.exists() and guide.wheels is None
    guide.on_build_error(PluginError("before any wheel"))  # nothing to remove: no error of its own
    plugin().on_build_error(PluginError("refused in on_config, before the plugin set anything up"))
