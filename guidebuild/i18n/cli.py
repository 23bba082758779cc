"""Editors' translation commands (`guide-i18n`, or `make i18n` for `update`).

Spanish is the source language of the pages; UI strings have English msgids and are translated in
every locale, Spanish included. Standard gettext files throughout, so Poedit or Weblate open them
unchanged. EDITORS.md at the repository root walks through the workflow.

  update      extract UI strings into locales/messages.pot and merge it into every catalog
  status      per locale: pages missing or outdated (and what changed in Spanish), UI strings untranslated
              or fuzzy, broken placeholders, injected HTML; --strict exits 1 on any of them
  check       only what must not ship (broken placeholders, injected HTML, page skeletons that differ)
  stamp       record that a translated page matches today's Spanish page
  add-locale  scaffold a new locale: catalog, docs folder, mkdocs.yml entry
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import pofile, sources as i18n_sources, status as translation_status
from .locale import add_locale
from .project import Project
from .structure import differences, parse

ROOT = Path(__file__).resolve().parents[2]


def update(root: Path = ROOT) -> None:
    """Extract every UI string, then merge the template into each locale's catalog."""
    project = Project(root)
    pofile.extract(project.root, project.pot)
    for locale in project.locales:
        po = project.po(locale)
        pofile.update_catalog(project.root, project.pot, po, locale)
        print(f"{project.rel(po)} is up to date with the template")


def print_status(root: Path, locales: list[str] | None, strict: bool, diff: bool) -> int:
    template, reports = translation_status.status(root, locales)
    problems = template + [p for report in reports for p in report.problems]
    if template:
        print(f"messages.pot: {len(template)} problem{'s' * (len(template) != 1)}")
        for problem in template:
            print(f"  {problem}")
    else:
        print("messages.pot is up to date with the sources")
    for report in reports:
        print(report.headline())
        for problem in report.problems:
            print(f"  {problem}")
            if diff and problem.detail:
                print("    " + problem.detail.rstrip("\n").replace("\n", "\n    "))
    return 1 if strict and problems else 0


def print_check(root: Path, locales: list[str] | None) -> int:
    problems = [p for locale in (locales or [None]) for p in translation_status.broken(root, locale)]
    for problem in problems:
        print(problem)
    if not problems:
        print("No broken translation")
    return 1 if problems else 0


def _stamp_targets(project: Project, paths: list[str], every: bool, locales: list[str] | None) -> list[tuple[str, str]]:
    """(locale, page) pairs named on the command line, or every translated page with --all."""
    if every:
        return [(locale, page) for locale in project.translations if not locales or locale in locales
                for page in project.pages(locale) if page in project.pages(project.default_locale)]
    targets = []
    docs = project.docs_dir.resolve()
    for raw in paths:
        # Relative to the working directory, or else to the project root (`--root` from elsewhere).
        candidates = [(base / raw).resolve() for base in (Path.cwd(), project.root)]
        inside = [path for path in candidates if path.is_relative_to(docs)]
        path = next((p for p in inside if p.is_file()), inside[0] if inside else None)
        if path is None:
            raise SystemExit(f"{raw}: not a page under {project.rel(project.docs_dir)}/")
        locale, _, page = path.relative_to(docs).as_posix().partition("/")
        if locale not in project.translations:
            raise SystemExit(f"{raw}: stamp translated pages ({', '.join(project.translations)}), not {locale}")
        if not path.is_file():
            raise SystemExit(f"{raw}: no such page")
        targets.append((locale, page))
    return targets


def stamp(root: Path, paths: list[str], every: bool, locales: list[str] | None, force: bool) -> int:
    project = Project(root)
    targets = _stamp_targets(project, paths, every, locales)
    refused = 0
    for locale, page in targets:
        src, dst = project.page(project.default_locale, page), project.page(locale, page)
        if not src.is_file():
            print(f"{project.rel(dst)}: no {project.default_locale} source page; not stamped")
            refused += 1
            continue
        source_text, text = src.read_text(encoding="utf-8"), dst.read_text(encoding="utf-8")
        skew = differences(parse(source_text), parse(text), project.default_locale)
        if skew and not force:
            print(f"{project.rel(dst)}: not stamped, its skeleton differs from {project.rel(src)} (--force stamps anyway):")
            print("  " + "\n  ".join(skew))
            refused += 1
            continue
        digest = i18n_sources.save_snapshot(project.sources_dir, source_text)
        stamped = i18n_sources.with_hash(text, digest)
        if stamped != text:
            dst.write_bytes(stamped.encode("utf-8"))
        print(f"{project.rel(dst)}: source_hash {digest} ({project.rel(src)})")
    referenced = {i18n_sources.recorded_hash(project.page(locale, page).read_text(encoding="utf-8"))
                  for locale in project.translations for page in project.pages(locale)}
    for path in i18n_sources.prune_snapshots(project.sources_dir, referenced - {None}):
        print(f"removed {project.rel(path)}: no translation refers to it any more")
    return 1 if refused else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="guide-i18n", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=ROOT, help="project root (holds mkdocs.yml); default: this checkout")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="extract UI strings and update every locale's PO catalog")
    status_cmd = sub.add_parser("status", help="what is missing, outdated or broken, per locale")
    status_cmd.add_argument("--strict", action="store_true", help="exit 1 on anything missing, outdated or broken (CI)")
    status_cmd.add_argument("--diff", action="store_true", help="print the Spanish diff behind each outdated page")
    status_cmd.add_argument("--locale", action="append", help="only this locale (repeatable)")
    check_cmd = sub.add_parser("check", help="exit 1 on translations that must not ship")
    check_cmd.add_argument("--locale", action="append", help="only this locale (repeatable)")
    stamp_cmd = sub.add_parser("stamp", help="record that translated pages match today's Spanish pages")
    stamp_cmd.add_argument("pages", nargs="*", help="translated pages, e.g. docs/ja/memory.md")
    stamp_cmd.add_argument("--all", action="store_true", help="every translated page (of --locale, if given)")
    stamp_cmd.add_argument("--locale", action="append", help="with --all: only this locale (repeatable)")
    stamp_cmd.add_argument("--force", action="store_true", help="stamp even if the page's skeleton differs from the Spanish one")
    add_cmd = sub.add_parser("add-locale", help="scaffold a locale: catalog, docs folder, mkdocs.yml entry")
    add_cmd.add_argument("locale", help="a CLDR locale code, e.g. fr or pt_BR")
    add_cmd.add_argument("--name", required=True, help="the language's name in itself, shown in the language menu")
    add_cmd.add_argument("--site-name", help="the site's title in this language")
    add_cmd.add_argument("--site-description", help="the site's description in this language")
    args = parser.parse_args(argv)
    root = args.root.resolve()

    if args.command == "update":
        update(root)
        return 0
    if args.command == "status":
        return print_status(root, args.locale, args.strict, args.diff)
    if args.command == "check":
        return print_check(root, args.locale)
    if args.command == "stamp":
        if bool(args.pages) == args.all:
            parser.error("stamp: name pages or pass --all, not both")
        return stamp(root, args.pages, args.all, args.locale, args.force)
    try:
        changed = add_locale(root, args.locale, args.name, args.site_name, args.site_description)
    except ValueError as error:
        print(f"add-locale: {error}", file=sys.stderr)
        return 1
    project = Project(root)
    for path in changed:
        print(f"wrote {project.rel(path)}")
    print(f"Next: translate {project.rel(project.po(args.locale))}, add nav_translations for {args.locale} in mkdocs.yml, "
          f"translate pages into {project.rel(project.docs_dir / args.locale)}/ and stamp them (see EDITORS.md).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
