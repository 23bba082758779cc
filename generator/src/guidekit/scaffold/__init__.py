"""`guide new`: a new guide's project, ready to build in every locale it names.

    guide new heat-pumps --title "Qué bomba de calor" --locales es,de,he

writes mkdocs.yml (the first locale is the source), a page, a first calculator package with its
pyproject.toml, package.json (the Pyodide release this guidekit is tested with), a README with the
commands, and the catalogs (`guide-i18n update`). The other locales start as "in progress": their
readers get the source page with the "not translated yet" notice until a translation is stamped.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from string import Template

from guidekit import __version__
from guidekit.runtime.assets import PYODIDE_VERSION
from guidekit.site.locales import babel_locale

TEMPLATES = Path(__file__).resolve().parent / "template"


def slug(name: str) -> str:
    """A project name from a folder's: lower case, words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "guide"


def _render(name: str, values: dict[str, str]) -> str:
    return Template((TEMPLATES / name).read_text(encoding="utf-8")).substitute(values)


def _languages(locales: list[str]) -> str:
    lines = []
    for i, locale in enumerate(locales):
        own = babel_locale(locale).get_display_name(locale) or locale
        lines += [f"        - locale: {locale}"]
        lines += ["          default: true"] if i == 0 else []
        lines += [
            f"          name: {json.dumps(own[:1].upper() + own[1:], ensure_ascii=False)}",
            "          build: true",
        ]
    return "\n".join(lines)


def new(target: Path, title: str, locales: list[str]) -> list[Path]:
    """Writes the project into `target` (new or empty); the files written. ValueError when it cannot."""
    from guidekit.i18n.add_locale import canonical_code  # the same check `add-locale` makes

    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ValueError(f"{target}: exists and is not an empty folder; choose a new one")
    if not locales:
        raise ValueError("name at least one locale, the source language first: --locales es,de,he")
    codes = [canonical_code(code) for code in locales]
    if len(set(codes)) != len(codes):
        raise ValueError(f"a locale is named twice: {', '.join(locales)}")
    project = slug(target.resolve().name)
    package = project.replace("-", "_") + "_calc"
    values = {
        "title": title,
        "title_yaml": json.dumps(title, ensure_ascii=False),
        "title_toml": json.dumps(title, ensure_ascii=False),
        "default": codes[0],
        "languages": _languages(codes),
        "completeness": "\n".join(f"        {code}: in progress" for code in codes[1:]) or "        {}",
        "project": project,
        "package": package,
        "name": project,
        "version": __version__,
        "pyodide": PYODIDE_VERSION,
    }
    files = {
        "mkdocs.yml": "mkdocs.yml.tmpl",
        "pyproject.toml": "pyproject.toml.tmpl",
        "package.json": "package.json.tmpl",
        ".gitignore": "gitignore.tmpl",
        "README.md": "README.md.tmpl",
        f"{package}/__init__.py": "calculator.py.tmpl",
        f"docs/{codes[0]}/index.md": "index.md.tmpl",
    }
    written = []
    for path, template in files.items():
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_render(template, values), encoding="utf-8")
        written.append(out)
    for code in codes[1:]:  # translations start empty: readers get the source page and the notice
        keep = target / "docs" / code / ".gitkeep"
        keep.parent.mkdir(parents=True, exist_ok=True)
        keep.touch()
        written.append(keep)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="guide", description="guidekit's project commands")
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("new", help="scaffold a new guide in a new folder")
    create.add_argument("folder", type=Path)
    create.add_argument("--title", required=True, help="the site's name, in the source language")
    create.add_argument(
        "--locales", required=True, help="comma-separated locale codes, the source language first: es,de,he"
    )
    args = parser.parse_args(argv)
    try:
        written = new(args.folder, args.title, [code.strip() for code in args.locales.split(",") if code.strip()])
    except ValueError as error:
        print(f"guide new: {error}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(args.folder.resolve()))  # the calculator module, for `update`'s extraction
    from guidekit.i18n import cli as i18n_cli

    i18n_cli.update(args.folder.resolve())
    print(f"{len(written)} files written in {args.folder}; next: cd {args.folder} and follow README.md")
    return 0
