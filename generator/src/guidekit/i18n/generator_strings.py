"""The generator's own strings and a project's catalogs.

The package translates its strings ("Result", "Copy link", the form's errors) into the locales it ships
(`guidekit.site.generator_catalogs`); the build lays those beneath the project's catalogs. For a locale
the package does not translate, or translates only in part, `guide-i18n update` brings the missing
strings into the project's own catalog, where its translators see them beside the project's strings.

`python -m guidekit.i18n.generator_strings <generator checkout>` keeps the package's template and
catalogs in step with the generator's sources (`make i18n` runs it in this repository).
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog, Message

from guidekit.site import generator_catalogs

from . import po_checks, pofile

NOTE = "guidekit ships no {locale} translation of this string: translate it here."


def template() -> Catalog:
    return po_checks.read_catalog(generator_catalogs.TEMPLATE)


def _translated(message: Message) -> bool:
    forms = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return not message.fuzzy and all(forms)


def missing(locale: str) -> list[Message]:
    """The generator's strings its package leaves untranslated in `locale`, as fresh template entries
    (a merge may change them) with a note saying why they are in the project's catalog."""
    path = generator_catalogs.catalog_path(locale)
    catalog = po_checks.read_catalog(path) if path else Catalog()
    wanted = []
    for message in template():
        if not message.id:
            continue
        have = catalog.get(message.id, message.context)
        if have is None or not _translated(have):
            message.auto_comments = [*message.auto_comments, NOTE.format(locale=locale)]
            wanted.append(message)
    return wanted


def key(message: Message) -> str | tuple[str, str]:
    """The key Babel files an entry under (`Catalog._key_for`): its msgid, with its context if any."""
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return msgid if message.context is None else (msgid, message.context)


def provided(locale: str) -> set:
    """Keys of the strings the package translates into `locale` itself."""
    gaps = {key(m) for m in missing(locale)}
    return {key(m) for m in template() if m.id and key(m) not in gaps}


def update_package(checkout: Path) -> list[Path]:
    """Re-extracts the generator's strings from a source checkout (its babel.cfg) into the package's
    template and merges it into every catalog the package ships; the files that changed."""
    changed = []
    folder = checkout / "src" / "guidekit" / "locales"
    pot = folder / f"{generator_catalogs.DOMAIN}.pot"
    if pofile.extract(checkout, pot):
        changed.append(pot)
    for po in sorted(folder.glob(f"*/LC_MESSAGES/{generator_catalogs.DOMAIN}.po")):
        if pofile.update_catalog(checkout, pot, po, po.parent.parent.name):
            changed.append(po)
    return changed


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    checkout = Path(args[0] if args else "generator")
    if not (checkout / "babel.cfg").is_file() or not (checkout / "src" / "guidekit").is_dir():
        print(f"{checkout}: not a checkout of the generator (no babel.cfg beside src/guidekit)", file=sys.stderr)
        return 2
    for path in update_package(checkout):
        print(f"{path} updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
