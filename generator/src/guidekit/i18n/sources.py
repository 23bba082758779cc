"""Which Spanish text a translation translates: content hashes, `source_hash` stamps and source snapshots.

A translated page carries `source_hash: <12 hex>` in its front matter: the first 12 hex digits of the
SHA-256 of the Spanish page it translates, the whole file (front matter included, since the title and
description are translated too) with line endings normalized to LF and trailing blank space at the end of
the file removed. A content hash rather than a git commit: it needs no history (CI clones are often
shallow), survives rebases and cherry-picks, and is the same on every machine.

`stamp` also keeps a copy of that Spanish text in `locales/sources/<hash>.md` (committed), so `status` can
say what changed in the Spanish page since its translation without git. Snapshots are history and are
never deleted: an older stamp, in this branch or another, may still need the text it was made against.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from .markdown import front_matter_end, scan, split_front_matter
from .structure import heading_of

HASH_KEY = "source_hash"
HASH_LINE = re.compile(rf"^{HASH_KEY}:\s*['\"]?([0-9a-f]*)['\"]?\s*$")
# The translated page's own hash at stamp time (stamp lines left out), so `stamp` can tell a translation
# nobody touched since the Spanish page changed.
TRANSLATION_KEY = "translation_hash"
TRANSLATION_LINE = re.compile(rf"^{TRANSLATION_KEY}:\s*['\"]?([0-9a-f]*)['\"]?\s*$")


def normalized(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").rstrip() + "\n"


def content_hash(text: str) -> str:
    return hashlib.sha256(normalized(text).encode("utf-8")).hexdigest()[:12]


def file_hash(path: Path) -> str:
    return content_hash(path.read_text(encoding="utf-8"))


def _recorded(text: str, pattern: re.Pattern) -> str | None:
    lines = text.splitlines()
    end = front_matter_end(lines)
    for line in lines[1:end] if end else ():
        if match := pattern.match(line.strip()):
            return match[1] or None
    return None


def recorded_hash(text: str) -> str | None:
    """The `source_hash` a translated page records, or None when it was never stamped."""
    return _recorded(text, HASH_LINE)


def recorded_translation_hash(text: str) -> str | None:
    """The `translation_hash` the last stamp recorded, or None (stamped before it was recorded)."""
    return _recorded(text, TRANSLATION_LINE)


def translation_hash(text: str) -> str:
    """The hash of a translated page without its stamp lines: what the translator wrote."""
    lines = normalized(text).splitlines(keepends=True)
    end = front_matter_end([line.rstrip("\n") for line in lines]) or 0
    kept = [
        line
        for i, line in enumerate(lines)
        if not (0 < i < end and (HASH_LINE.match(line.strip()) or TRANSLATION_LINE.match(line.strip())))
    ]
    return content_hash("".join(kept))


def _with_field(text: str, key: str, pattern: re.Pattern, value: str) -> str:
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    stamp = f"{key}: {value}{newline}"
    end = front_matter_end([line.rstrip("\r\n") for line in lines])
    if end is None:
        return f"---{newline}{stamp}---{newline}{newline}" + text
    for i in range(1, end):
        if pattern.match(lines[i].strip()):
            lines[i] = stamp
            return "".join(lines)
    lines.insert(end, stamp)
    return "".join(lines)


def with_hash(text: str, digest: str) -> str:
    """`text` with its front matter's `source_hash` set to `digest`; nothing else in the file changes."""
    return _with_field(text, HASH_KEY, HASH_LINE, digest)


def with_stamp(text: str, digest: str) -> str:
    """`text` stamped: `source_hash` set to `digest` and `translation_hash` to the text's own hash."""
    return _with_field(with_hash(text, digest), TRANSLATION_KEY, TRANSLATION_LINE, translation_hash(text))


# -- snapshots ---------------------------------------------------------------------------------------


def snapshot_path(sources_dir: Path, digest: str) -> Path:
    return sources_dir / f"{digest}.md"


def save_snapshot(sources_dir: Path, text: str) -> str:
    """Keeps `text` under its hash (idempotent); returns the hash."""
    digest = content_hash(text)
    path = snapshot_path(sources_dir, digest)
    if not path.exists():
        sources_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(normalized(text), encoding="utf-8", newline="\n")
    return digest


def load_snapshot(sources_dir: Path, digest: str) -> str | None:
    path = snapshot_path(sources_dir, digest)
    return path.read_text(encoding="utf-8") if path.is_file() else None


# -- what changed ------------------------------------------------------------------------------------


@dataclass
class Block:
    """A paragraph-sized piece of a page: text between blank lines (a fenced block is one piece)."""

    text: str
    section: str  # "#anchor" of the heading above it ("" before the first heading)
    line: int = 0  # its first line, 1-based, when `blocks` was told where the body starts


def blocks(body: list[str], first_line: int = 1) -> list[Block]:
    pieces: list[Block] = []
    current: list[str] = []
    section = ""
    start = first_line

    def flush():
        if current:
            pieces.append(Block("\n".join(current), section, start))
            current.clear()

    for number, (kind, line) in enumerate(scan(body), start=first_line):
        if kind == "text" and not line.strip():
            flush()
            continue
        if kind == "text" and (heading := heading_of(line)):
            flush()
            level, anchor, title = heading
            section = f"#{anchor}" if anchor else title
        if not current:
            start = number
        current.append(line)
    flush()
    return pieces


@dataclass
class SourceChange:
    """What changed in a Spanish page between the version a translation translates and today's."""

    front_matter: list[str] = field(default_factory=list)  # keys whose value changed
    changed: int = 0  # paragraphs (blocks) rewritten
    added: int = 0
    removed: int = 0
    sections: list[str] = field(default_factory=list)  # "#anchor" of each section touched, in page order
    headings_added: list[str] = field(default_factory=list)
    headings_removed: list[str] = field(default_factory=list)
    headings_renamed: list[tuple[str, str]] = field(default_factory=list)  # (before, after): same anchor
    lines_added: int = 0
    lines_removed: int = 0

    def summary(self) -> str:
        parts = []
        if self.front_matter:
            parts.append("front matter " + ", ".join(self.front_matter) + " changed")
        counts = [
            (n, label)
            for n, label in ((self.changed, "changed"), (self.added, "added"), (self.removed, "removed"))
            if n
        ]
        if counts:
            # "1 paragraph changed", "2 paragraphs changed and 1 added", "1 changed, 2 added and 1 removed"
            (first, label), rest = counts[0], [f"{n} {label}" for n, label in counts[1:]]
            text = f"{first} paragraph{'s' * (first != 1)} {label}"
            text += (", " + ", ".join(rest[:-1]) if rest[:-1] else "") + (f" and {rest[-1]}" if rest else "")
            parts.append(text + (" in " + ", ".join(self.sections) if self.sections else ""))
        for label, headings in (("new heading", self.headings_added), ("heading gone", self.headings_removed)):
            if headings:
                parts.append(label + "s" * (len(headings) != 1) + " " + ", ".join(headings))
        if self.headings_renamed:
            parts.append(
                "heading"
                + "s" * (len(self.headings_renamed) != 1)
                + " renamed "
                + ", ".join(f"{before} → {after}" for before, after in self.headings_renamed)
            )
        parts.append(f"+{self.lines_added} -{self.lines_removed} lines")
        return "; ".join(parts)


def _headings(body: list[str]) -> list[tuple[str | None, str]]:
    """(anchor, label as written) of each heading."""
    found = []
    for kind, line in scan(body):
        if kind == "text" and (heading := heading_of(line)):
            level, anchor, title = heading
            found.append((anchor, f"{'#' * level} {title}" + (f" {{#{anchor}}}" if anchor else "")))
    return found


def describe_change(old: str, new: str) -> SourceChange:
    old_fm, old_body = split_front_matter(normalized(old))
    new_fm, new_body = split_front_matter(normalized(new))
    change = SourceChange(
        front_matter=sorted(k for k in old_fm.keys() | new_fm.keys() if old_fm.get(k) != new_fm.get(k))
    )
    old_blocks, new_blocks = blocks(old_body), blocks(new_body)
    touched: list[str] = []
    matcher = difflib.SequenceMatcher(a=[b.text for b in old_blocks], b=[b.text for b in new_blocks], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        change.changed += paired
        change.added += (j2 - j1) - paired
        change.removed += (i2 - i1) - paired
        touched += [b.section for b in new_blocks[j1:j2]] or [b.section for b in old_blocks[i1:i2]]
    change.sections = [s for i, s in enumerate(touched) if s and s not in touched[:i]]
    old_heads, new_heads = _headings(old_body), _headings(new_body)
    added = [(a, h) for a, h in new_heads if h not in {label for _, label in old_heads}]
    removed = [(a, h) for a, h in old_heads if h not in {label for _, label in new_heads}]
    # A heading that kept its anchor but changed its words (or level) was renamed, not replaced.
    renamed_anchors = {a for a, _ in added if a} & {a for a, _ in removed if a}
    change.headings_renamed = [(h, next(n for a2, n in added if a2 == a)) for a, h in removed if a in renamed_anchors]
    change.headings_added = [h for a, h in added if a not in renamed_anchors]
    change.headings_removed = [h for a, h in removed if a not in renamed_anchors]
    for line in list(
        difflib.unified_diff(normalized(old).splitlines(), normalized(new).splitlines(), n=0, lineterm="")
    )[2:]:
        change.lines_added += line.startswith("+")
        change.lines_removed += line.startswith("-")
    return change


def unified_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    return "".join(
        difflib.unified_diff(
            normalized(old).splitlines(keepends=True),
            normalized(new).splitlines(keepends=True),
            old_label,
            new_label,
            n=1,
        )
    )
