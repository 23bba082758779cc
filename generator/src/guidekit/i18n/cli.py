"""Editors' translation commands (`guide-i18n`, or `make i18n` for `update`).

Spanish is the source language of the pages; UI strings have English msgids and are translated in
every locale, Spanish included. Standard gettext files throughout, so Poedit or Weblate open them
unchanged. EDITORS.md at the repository root walks through the workflow.

  update      extract UI strings into locales/messages.pot and merge it into every catalog, with the
              generator's strings that its package does not translate into that locale
  status      per locale: pages missing or outdated (and what changed in Spanish), UI strings untranslated
              or fuzzy, broken placeholders, injected HTML, page rules, mkdocs.yml titles; --strict exits 1
              on what the locale's completeness policy does not tolerate
  check       only what must not ship (broken placeholders, injected HTML, page skeletons that differ)
  stamp       record that a translated page matches today's Spanish page
  diff        each Spanish paragraph changed since a translation was stamped, beside the translation
  list-removable  translated pages whose Spanish page is gone
  add-locale  scaffold a new locale: catalog, docs folder, mkdocs.yml entries

Every command works on the project it is run in (the nearest folder above with a mkdocs.yml), or --root.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import generator_strings, pofile, sources as i18n_sources, status as translation_status
from .add_locale import add_locale
from .plain_text import config_markup
from .project import Project, find_root
from .structure import differences, parse
from .translator_view import page_diff


def update(root: Path) -> None:
    """Extract every UI string, then merge the template into each locale's catalog, with the generator's
    strings its package does not translate into that locale."""
    project = Project(root)
    pofile.extract(project.root, project.pot, project.babel_mapping)
    for locale in project.locales:
        po = project.po(locale)
        extra = generator_strings.missing(locale)
        pofile.update_catalog(project.root, project.pot, po, locale, extra, generator_strings.provided(locale))
        print(f"{project.rel(po)} is up to date with the template")
        if extra:
            print(f"  with {len(extra)} of the generator's strings, which guidekit does not translate into {locale}")


def print_status(root: Path, locales: list[str] | None, strict: bool, diff: bool, mode: str = "full") -> int:
    shared, reports = translation_status.status(root, locales)
    failing = shared + [p for report in reports for p in report.blocking]
    code = 1 if strict and failing else 0
    if mode == "json":
        print(
            json.dumps(
                {
                    "ok": not failing,
                    "project": [p.as_dict() | {"blocking": True} for p in shared],
                    "locales": [report.as_dict() for report in reports],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return code
    template = [p for p in shared if p.kind == "template"]
    others = [p for p in shared if p.kind != "template"]
    if template:
        print(f"messages.pot: {len(template)} problem{'s' * (len(template) != 1)}")
    else:
        print("messages.pot is up to date with the sources")
    if others:
        print(f"project: {len(others)} problem{'s' * (len(others) != 1)}")
    for problem in [] if mode == "summary" else template + others:
        print(f"  {problem}")
    for report in reports:
        print(report.headline())
        for problem in [] if mode == "summary" else report.problems:
            print(f"  {problem}" + ("" if problem.blocks(report.policy) else " (tolerated: in progress)"))
            if diff and problem.detail:
                print("    " + problem.detail.rstrip("\n").replace("\n", "\n    "))
    return code


def print_check(root: Path, locales: list[str] | None) -> int:
    problems: list[object] = [p for locale in (locales or [None]) for p in translation_status.broken(root, locale)]
    problems += config_markup(Project(root))  # titles and names in mkdocs.yml are text, like the pages
    for problem in problems:
        print(problem)
    if not problems:
        print("No broken translation")
    return 1 if problems else 0


def _page_argument(project: Project, raw: str) -> tuple[str, str]:
    """(locale, page) of a page path typed on the command line, relative to the working directory or
    the project root; SystemExit when it is not a page under docs/."""
    docs = project.docs_dir.resolve()
    candidates = [(base / raw).resolve() for base in (Path.cwd(), project.root)]
    inside = [path for path in candidates if path.is_relative_to(docs)]
    path = next((p for p in inside if p.is_file()), inside[0] if inside else None)
    if path is None:
        raise SystemExit(f"{raw}: not a page under {project.rel(project.docs_dir)}/")
    locale, _, page = path.relative_to(docs).as_posix().partition("/")
    return locale, page


def _stamp_targets(project: Project, paths: list[str], every: bool, locales: list[str] | None) -> list[tuple[str, str]]:
    """(locale, page) pairs named on the command line, or every translated page with --all."""
    if every:
        return [
            (locale, page)
            for locale in project.translations
            if not locales or locale in locales
            for page in project.pages(locale)
            if page in project.pages(project.default_locale)
        ]
    targets = []
    for raw in paths:
        locale, page = _page_argument(project, raw)
        if locale not in project.translations:
            raise SystemExit(f"{raw}: stamp translated pages ({', '.join(project.translations)}), not {locale}")
        if not project.page(locale, page).is_file():
            raise SystemExit(f"{raw}: no such page")
        targets.append((locale, page))
    return targets


def _untouched(project: Project, src: Path, dst: Path, source_text: str, text: str) -> str | None:
    """Why stamping would be a mistake: the Spanish page changed since the last stamp and the translation
    did not (it is exactly as it was stamped). None when the stamp records real work."""
    recorded = i18n_sources.recorded_hash(text)
    if recorded in (None, i18n_sources.content_hash(source_text)):
        return None
    if i18n_sources.recorded_translation_hash(text) != i18n_sources.translation_hash(text):
        return None
    old = i18n_sources.load_snapshot(project.sources_dir, recorded)
    change = f" ({i18n_sources.describe_change(old, source_text).summary()})" if old else ""
    return (
        f"{project.rel(dst)}: not stamped, it is unchanged since it was stamped against {recorded}, and "
        f"{project.rel(src)} changed since{change}. Update the translation (`guide-i18n diff {project.rel(dst)}` "
        "shows what changed), or pass --force if the change needs none"
    )


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
            print(
                f"{project.rel(dst)}: not stamped, its skeleton differs from {project.rel(src)} (--force stamps anyway):"
            )
            print("  " + "\n  ".join(skew))
            refused += 1
            continue
        if not force and (reason := _untouched(project, src, dst, source_text, text)):
            print(reason)
            refused += 1
            continue
        # The snapshot is kept for good: older stamps (here or in other branches) still diff against theirs.
        digest = i18n_sources.save_snapshot(project.sources_dir, source_text)
        stamped = i18n_sources.with_stamp(text, digest)
        if stamped != text:
            dst.write_bytes(stamped.encode("utf-8"))
        print(f"{project.rel(dst)}: source_hash {digest} ({project.rel(src)})")
    return 1 if refused else 0


def print_diff(project: Project, raw: str, locales: list[str] | None) -> int:
    locale, page = _page_argument(project, raw)
    if locale == project.default_locale:
        if not locales:
            raise SystemExit(
                f"{raw} is a {locale} page: say which translation with --locale ({', '.join(project.translations)})"
            )
    else:
        locales = [*(locales or []), locale]
    codes = {project.resolve(code) for code in locales}
    status = 0
    for locale in [code for code in project.translations if code in codes]:
        code, text = page_diff(project, locale, page)
        print(text)
        status = max(status, code)
    return status


def list_removable(project: Project, locales: list[str] | None) -> int:
    codes = {project.resolve(code) for code in locales or project.translations}
    for locale in [code for code in project.translations if code in codes]:
        for page in translation_status.removable(project, locale):
            print(project.rel(project.page(locale, page)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="guide-i18n", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--root",
        type=Path,
        help="project root (holds mkdocs.yml); default: the nearest one from the working directory up",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="extract UI strings and update every locale's PO catalog")
    status_cmd = sub.add_parser("status", help="what is missing, outdated or broken, per locale")
    status_cmd.add_argument(
        "--strict", action="store_true", help="exit 1 on what the completeness policies do not tolerate (CI)"
    )
    status_cmd.add_argument("--diff", action="store_true", help="print the Spanish diff behind each outdated page")
    status_cmd.add_argument(
        "--locale", action="append", help="only this locale (repeatable; `JA` or `pt_BR` are understood)"
    )
    mode = status_cmd.add_mutually_exclusive_group()
    mode.add_argument(
        "--json", dest="mode", action="store_const", const="json", default="full", help="the whole report as JSON"
    )
    mode.add_argument("--summary", dest="mode", action="store_const", const="summary", help="one line per locale")
    check_cmd = sub.add_parser("check", help="exit 1 on translations that must not ship")
    check_cmd.add_argument("--locale", action="append", help="only this locale (repeatable)")
    stamp_cmd = sub.add_parser("stamp", help="record that translated pages match today's Spanish pages")
    stamp_cmd.add_argument("pages", nargs="*", help="translated pages, e.g. docs/ja/memory.md")
    stamp_cmd.add_argument("--all", action="store_true", help="every translated page (of --locale, if given)")
    stamp_cmd.add_argument("--locale", action="append", help="with --all: only this locale (repeatable)")
    stamp_cmd.add_argument(
        "--force",
        action="store_true",
        help="stamp even if the skeleton differs from the Spanish one, or the translation is unchanged since the Spanish page changed",
    )
    diff_cmd = sub.add_parser("diff", help="changed Spanish paragraphs beside the translation, by section")
    diff_cmd.add_argument("page", help="a page, e.g. docs/ja/memory.md, or docs/es/memory.md with --locale")
    diff_cmd.add_argument("--locale", action="append", help="the translation to show (repeatable)")
    removable_cmd = sub.add_parser("list-removable", help="translated pages whose Spanish page is gone")
    removable_cmd.add_argument("--locale", action="append", help="only this locale (repeatable)")
    add_cmd = sub.add_parser("add-locale", help="scaffold a locale: catalog, docs folder, mkdocs.yml entries")
    add_cmd.add_argument("locale", help="a locale code that Material and CLDR know, e.g. fr or pt-BR")
    add_cmd.add_argument("--name", required=True, help="the language's name in itself, shown in the language menu")
    add_cmd.add_argument("--site-name", help="the site's title in this language")
    add_cmd.add_argument("--site-description", help="the site's description in this language")
    args = parser.parse_args(argv)
    root = args.root.resolve() if args.root else find_root(Path.cwd())
    try:
        return _run(parser, args, root)
    except ValueError as error:  # an unknown locale, a locale code nobody supports
        print(f"guide-i18n {args.command}: {error}", file=sys.stderr)
        return 2


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace, root: Path) -> int:
    project = Project(root)
    if args.command == "update":
        update(root)
        return 0
    if args.command == "status":
        return print_status(root, args.locale, args.strict, args.diff, args.mode)
    if args.command == "check":
        return print_check(root, args.locale and [project.resolve(code) for code in args.locale])
    if args.command == "stamp":
        if bool(args.pages) == args.all:
            parser.error("stamp: name pages or pass --all, not both")
        return stamp(
            root, args.pages, args.all, args.locale and [project.resolve(code) for code in args.locale], args.force
        )
    if args.command == "diff":
        return print_diff(project, args.page, args.locale)
    if args.command == "list-removable":
        return list_removable(project, args.locale)
    locale, changed = add_locale(root, args.locale, args.name, args.site_name, args.site_description)
    for path in changed:
        print(f"wrote {project.rel(path)}")
    print(
        f"Next: translate {project.rel(project.po(locale))}, add nav_translations for {locale} in mkdocs.yml, "
        f"translate pages into {project.rel(project.docs_dir / locale)}/ and stamp them (see EDITORS.md). "
        f"{locale} is declared `in progress`: declare it `complete` once everything is translated."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
