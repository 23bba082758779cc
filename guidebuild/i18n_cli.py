"""Editors' translation commands (`guide-i18n`, or `make i18n` for `update`).

Spanish is the source language of the pages; UI strings have English msgids and are
translated in every locale, Spanish included. Standard gettext files throughout, so Poedit or
Weblate open them unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.frontend import CommandLineInterface

ROOT = Path(__file__).resolve().parents[1]
LOCALES_DIR = ROOT / "locales"
POT = LOCALES_DIR / "messages.pot"
BABEL_CFG = ROOT / "babel.cfg"
# Keywords that mark a UI string: N_ (Python declarations), _ (templates).
KEYWORDS = ("N_", "_")


def site_locales() -> list[str]:
    """The locales mkdocs.yml builds, in its order."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!!python", "#"))
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "i18n" in plugin:
            return [lang["locale"] for lang in plugin["i18n"]["languages"]]
    raise SystemExit("mkdocs.yml has no i18n plugin")


def _pybabel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def extract() -> None:
    keywords = [arg for kw in KEYWORDS for arg in ("-k", kw)]
    _pybabel("extract", "-F", str(BABEL_CFG), *keywords, "--no-location", "--sort-output",
             "--project", "gpu-finetune-guide", "-o", str(POT), str(ROOT))


def update() -> None:
    """Extract every UI string, then merge the template into each locale's catalog."""
    extract()
    for locale in site_locales():
        po = LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po"
        if po.exists():
            _pybabel("update", "-i", str(POT), "-d", str(LOCALES_DIR), "-l", locale)
        else:
            _pybabel("init", "-i", str(POT), "-d", str(LOCALES_DIR), "-l", locale)
        print(f"{po.relative_to(ROOT)} is up to date with the template")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="guide-i18n", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="extract UI strings and update every locale's PO catalog")
    args = parser.parse_args(argv)
    if args.command == "update":
        update()
    return 0


if __name__ == "__main__":
    sys.exit(main())
