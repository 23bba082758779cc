"""One problem `guide-i18n status` reports, and which problems a locale's completeness policy tolerates."""

from __future__ import annotations

from dataclasses import asdict, dataclass

# Problems that make a translation wrong: the build and `check` refuse them, whatever the policy.
BROKEN = frozenset({"structure", "orphan", "placeholder", "html", "po"})
# Problems that only say a translation is behind (or, for "term" and "typeset", not yet in the agreed words or typeset): `status
# --strict` tolerates them in a locale declared `in progress` (readers get the notice) and fails on them
# in a `complete` one. Everything else
# (broken translations, page rules, stale templates, stray folders, policy mistakes) always fails it.
BEHIND = frozenset({"missing", "outdated", "unstamped", "untranslated", "fuzzy", "nav", "site", "term", "typeset"})


@dataclass(frozen=True)
class Problem:
    locale: str  # "" for what the whole project shares (template, folders, policy)
    kind: str  # missing orphan outdated unstamped structure rule untranslated fuzzy unmerged placeholder html po
    #            template nav site stray policy term typeset
    where: str  # a project-relative path
    message: str
    detail: str = ""  # e.g. the Spanish diff behind "outdated"
    line: int | None = None  # 1-based, where the editor should look

    @property
    def broken(self) -> bool:
        return self.kind in BROKEN

    def blocks(self, policy: str) -> bool:
        """Whether `status --strict` fails on this problem in a locale with `policy`."""
        return not (policy == "in progress" and self.kind in BEHIND)

    @property
    def location(self) -> str:
        return f"{self.where}:{self.line}" if self.line else self.where

    def __str__(self) -> str:
        return f"{self.location}: {self.kind}: {self.message}"

    def as_dict(self) -> dict:
        return {key: value for key, value in asdict(self).items() if key != "detail"} | {"location": self.location}
