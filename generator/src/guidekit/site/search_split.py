"""One search index per locale.

static-i18n stacks every locale's entries into a single `search/search_index.json`, so a Japanese
reader's query also returns Spanish and Arabic pages. Material's search worker fetches the index at
`<locale root>/search/search_index.json`, so writing one filtered file per locale root is enough.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import material

LUNR_DIR = Path(material.__file__).parent / "templates" / "assets" / "javascripts" / "lunr" / "min"


@lru_cache(maxsize=None)
def lunr_language(locale: str) -> str:
    """The lunr pipeline Material ships for `locale`: its own (`ja`), its language's (`pt-BR` → `pt`), or
    lunr's built-in English one when Material has none (the search worker fails on a file it lacks)."""
    for code in (locale, re.split(r"[-_]", locale)[0]):
        if code == "en" or (LUNR_DIR / f"lunr.{code}.min.js").is_file():
            return code
    return "en"


def _locale_of(location: str, locales: list[str], default: str) -> str:
    head = location.split("/", 1)[0]
    return head if head in locales and head != default else default


def split_search_index(site_dir: Path, locales: list[str], default: str) -> dict[str, int]:
    """Rewrite `<site>/search/search_index.json` and write `<site>/<locale>/search/...`; returns counts."""
    combined_path = site_dir / "search" / "search_index.json"
    combined = json.loads(combined_path.read_text(encoding="utf-8"))
    counts = {}
    for locale in locales:
        prefix = "" if locale == default else f"{locale}/"
        docs = []
        for doc in combined["docs"]:
            if _locale_of(doc["location"], locales, default) != locale:
                continue
            # Locations are resolved against the locale root, where this index now lives.
            docs.append({**doc, "location": doc["location"][len(prefix) :]})
        # The locale's own lunr pipeline (Material ships lunr.ja with its segmenter, and lunr.ar).
        config = dict(combined["config"], lang=[lunr_language(locale)])
        target = site_dir / prefix / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"config": config, "docs": docs}, ensure_ascii=False), encoding="utf-8")
        counts[locale] = len(docs)
    return counts
