"""`guide-i18n diff PAGE --locale ja`: each Spanish paragraph that changed since the translation was stamped,
before and after, next to the translation's paragraph in the same section (matched by heading anchor)."""

from __future__ import annotations

import difflib
import textwrap

from . import sources as i18n_sources
from .markdown import split_front_matter
from .project import Project


def _body_blocks(text: str) -> list[i18n_sources.Block]:
    normal = i18n_sources.normalized(text)
    _, body = split_front_matter(normal)
    return i18n_sources.blocks(body, len(normal.splitlines()) - len(body) + 1)


def _indent(text: str) -> str:
    return textwrap.indent(text, "    ")


def page_diff(project: Project, locale: str, page: str) -> tuple[int, str]:
    """(exit status, report) for the translation of `page` (a path under docs/<locale>/ or docs/es/)."""
    src, dst = project.page(project.default_locale, page), project.page(locale, page)
    if not src.is_file():
        return 1, f"{project.rel(src)}: no such source page"
    if not dst.is_file():
        return 1, f"{project.rel(dst)}: not translated yet; translate all of {project.rel(src)}"
    source_text, text = src.read_text(encoding="utf-8"), dst.read_text(encoding="utf-8")
    recorded = i18n_sources.recorded_hash(text)
    if recorded is None:
        return 1, f"{project.rel(dst)}: never stamped, so there is no Spanish version to compare with"
    if recorded == i18n_sources.content_hash(source_text):
        return 0, f"{project.rel(dst)} is current: {project.rel(src)} has not changed since it was stamped"
    old = i18n_sources.load_snapshot(project.sources_dir, recorded)
    if old is None:
        return (
            1,
            f"{project.rel(dst)}: no snapshot {project.rel(i18n_sources.snapshot_path(project.sources_dir, recorded))}; see `git log -p {project.rel(src)}`",
        )
    before, now, translated = _body_blocks(old), _body_blocks(source_text), _body_blocks(text)
    by_section: dict[str, list[i18n_sources.Block]] = {}
    for block in translated:
        by_section.setdefault(block.section, []).append(block)
    out = [f"{project.rel(dst)}: {i18n_sources.describe_change(old, source_text).summary()}"]
    matcher = difflib.SequenceMatcher(a=[b.text for b in before], b=[b.text for b in now], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            old_block = before[i1 + k] if i1 + k < i2 else None
            new_block = now[j1 + k] if j1 + k < j2 else None
            section = (new_block or old_block).section
            # The translation's paragraph in the same place of the same section, when the Spanish one had one.
            ref = old_block or new_block
            position = [b for b in (before if old_block else now) if b.section == section].index(ref)
            candidates = by_section.get(section, [])
            match = candidates[position] if position < len(candidates) else None
            where = f"{project.rel(src)}:{new_block.line}" if new_block else f"{project.rel(src)} (removed)"
            out.append(f"\n{section or '(top of the page)'} — {where}")
            out.append(
                f"  {project.default_locale} before:\n"
                + (_indent(old_block.text) if old_block else "    (new paragraph)")
            )
            out.append(
                f"  {project.default_locale} now:\n" + (_indent(new_block.text) if new_block else "    (removed)")
            )
            label = f"  {locale} now ({project.rel(dst)}:{match.line}):" if match else f"  {locale} now:"
            out.append(label + "\n" + (_indent(match.text) if match else "    (nothing in this place of the section)"))
    return 0, "\n".join(out)
