"""Scaffolding a new locale: its PO catalog, its docs folder and its entry in mkdocs.yml.

The docs folder starts empty (a `.gitkeep`): with `fallback_to_default`, every page of the new locale is
the Spanish one, with the "not translated yet" notice, until an editor translates it. Copying the Spanish
pages in would put Spanish text under the new language's `lang` and make `status` count them as
translations. mkdocs.yml is edited as text — one block inserted after the last language — so its
comments and layout stay as they are; the result is parsed back before it is written.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import material
import yaml
from babel import UnknownLocaleError
from mkdocs.utils.yaml import yaml_load

from guidekit.site.locales import babel_locale
from guidekit.site.sources_guard import linked_folder

from . import generator_strings
from .plain_text import markup_in
from .pofile import update_catalog
from .project import Project, same_code

LIST_ITEM = re.compile(r"^(\s*)-\s+locale:\s*")


@lru_cache(maxsize=None)
def material_languages() -> tuple[str, ...]:
    """The codes Material translates its own interface into (search box, buttons), as it spells them."""
    folder = Path(material.__file__).parent / "templates" / "partials" / "languages"
    return tuple(sorted(path.stem for path in folder.glob("*.html")))


def canonical_code(code: str) -> str:
    """`code` as the site spells it (Material's spelling: `pt_BR` and `pt-br` are `pt-BR`), once both
    Material and CLDR (Babel) are known to support it; ValueError with what is available otherwise."""
    known = material_languages()
    found = next((name for name in known if same_code(name, code)), None)
    if found is None:
        language = re.split(r"[-_]", code)[0].lower()
        near = [name for name in known if re.split(r"[-_]", name)[0].lower() == language]
        hint = f"; it has {', '.join(near)}" if near else "; see material/templates/partials/languages/ for the list"
        raise ValueError(f"{code!r}: Material has no translation of its interface for this locale{hint}")
    try:
        babel_locale(found)  # the build formats numbers and picks the text direction from CLDR
    except (UnknownLocaleError, ValueError) as error:
        raise ValueError(f"{code!r} is not a CLDR locale that Babel knows: {error}") from error
    return found


def insert_policy(text: str, locale: str, policy: str = "in progress") -> str:
    """mkdocs.yml's text with `locale: policy` after the last entry of the guide plugin's `completeness`;
    unchanged when there is no such mapping (the locale then counts as in progress, and status says so)."""
    lines = text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if re.match(r"^\s*completeness:\s*(#.*)?$", line)), None)
    if header is None:
        return text
    key_indent = len(lines[header]) - len(lines[header].lstrip())
    last, entry_indent = header, " " * (key_indent + 2)
    for i in range(header + 1, len(lines)):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        if indent <= key_indent:
            break
        last, entry_indent = i, lines[i][:indent]
    return "".join(lines[: last + 1] + [f"{entry_indent}{_scalar(locale)}: {policy}\n"] + lines[last + 1 :])


def _scalar(value: str) -> str:
    """A YAML scalar for `value`: plain where YAML reads it back unchanged, double-quoted otherwise."""
    try:
        if (
            value
            and yaml.safe_load(value) == value
            and value.strip() == value
            and ": " not in value
            and " #" not in value
        ):
            return value
    except yaml.YAMLError:
        pass
    return json.dumps(value, ensure_ascii=False)


def language_block(
    indent: str, locale: str, name: str, site_name: str | None, site_description: str | None
) -> list[str]:
    fields = [("name", name), ("build", "true")]
    fields += [("site_name", site_name)] if site_name else []
    fields += [("site_description", site_description)] if site_description else []
    lines = [f"{indent}- locale: {_scalar(locale)}\n"]
    lines += [f"{indent}  {key}: {value if key == 'build' else _scalar(value)}\n" for key, value in fields]
    return lines


def insert_language(text: str, block_for) -> str:
    """mkdocs.yml's text with a language entry after the last one of the i18n plugin's `languages`.

    `block_for(indent)` returns the new entry's lines at the list's own indentation."""
    lines = text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if re.match(r"^\s*languages:\s*(#.*)?$", line)), None)
    if header is None:
        raise ValueError("mkdocs.yml has no block-style `languages:` list")
    key_indent = len(lines[header]) - len(lines[header].lstrip())
    last = item_indent = None
    for i in range(header + 1, len(lines)):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        if indent < key_indent or (indent == key_indent and not stripped.startswith("-")):
            break
        if item_indent is None and (match := LIST_ITEM.match(lines[i])):
            item_indent = match[1]
        last = i
    if last is None or item_indent is None:
        raise ValueError("the `languages:` list has no `- locale:` entry to follow")
    return "".join(lines[: last + 1] + block_for(item_indent) + lines[last + 1 :])


def add_locale(
    root: Path, code: str, name: str, site_name: str | None = None, site_description: str | None = None
) -> tuple[str, list[Path]]:
    """Scaffolds the locale `code` names, declared `in progress`; returns (its code as the site spells it,
    the paths it created or changed). Raises ValueError, touching nothing, when Material or CLDR does
    not know the locale, it is already configured, or a name holds markup."""
    project = Project(Path(root))
    if not name.strip():  # the language switcher would show an empty entry
        raise ValueError("--name is empty: give the language's name in itself, such as Français")
    for option, text in (("--name", name), ("--site-name", site_name), ("--site-description", site_description)):
        piece = markup_in(text)
        if piece is not None:  # Material puts it into every page as it is (plain_text)
            raise ValueError(f"{option} holds markup ({piece!r}): write it as plain text")
    locale = canonical_code(code)
    if any(same_code(locale, known) for known in project.locales):
        raise ValueError(f"{locale} is already in mkdocs.yml")
    config_path = project.root / "mkdocs.yml"
    text = config_path.read_text(encoding="utf-8")
    new_text = insert_language(text, lambda indent: language_block(indent, locale, name, site_name, site_description))
    new_text = insert_policy(new_text, locale)
    check = yaml_load(new_text)  # MkDocs' loader, as Project.config reads it
    languages = next(p["i18n"]["languages"] for p in check["plugins"] if isinstance(p, dict) and "i18n" in p)
    if [lang["locale"] for lang in languages] != [*project.locales, locale] or languages[-1]["name"] != name:
        raise ValueError("could not add the language block to mkdocs.yml safely; add it by hand")
    if not project.pot.is_file():
        raise ValueError(f"{project.rel(project.pot)} is missing; run `guide-i18n update` first")

    po = project.po(locale)
    for folder in (project.docs_dir / locale, po.parent):  # what it writes: never through a link
        if (line := linked_folder(folder, project.root)) is not None:
            raise ValueError(line)
    # A catalog started before the locale was configured is merged, never overwritten.
    update_catalog(
        project.root, project.pot, po, locale, generator_strings.missing(locale), generator_strings.provided(locale)
    )
    keep = project.docs_dir / locale / ".gitkeep"
    keep.parent.mkdir(parents=True, exist_ok=True)
    keep.touch()
    config_path.write_text(new_text, encoding="utf-8")
    return locale, [po, keep, config_path]
