"""sitemap.xml with absolute hreflang alternates for every page in every locale."""

from __future__ import annotations

import gzip
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr


def write_sitemap(site_dir: Path, pages: dict[str, dict[str, dict[str, str]]]) -> None:
    """`pages`: locale -> {page url: {locale: absolute url}} as collected while rendering.

    Material's language selector fetches `sitemap.xml` beside every `<link rel="alternate">` of a
    page to map it to its translations. Each page's alternates are that page in each locale, so a
    copy sits in every page folder: the selector finds it, and the server logs no 404s."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    for locale, by_url in pages.items():
        for url, alternates in sorted(by_url.items()):
            own = alternates.get(locale)
            if own is None:
                continue  # a fallback page: its own locale's copy is listed under that locale
            lines.append("  <url>")
            lines.append(f"    <loc>{escape(own)}</loc>")
            for alt_locale, href in alternates.items():
                lines.append(f'    <xhtml:link rel="alternate" hreflang="{alt_locale}" href={quoteattr(href)}/>')
            lines.append("  </url>")
    lines.append("</urlset>")
    xml = "\n".join(lines) + "\n"
    (site_dir / "sitemap.xml.gz").write_bytes(gzip.compress(xml.encode("utf-8"), mtime=0))
    folders = {""} | {url for by_url in pages.values() for url in by_url}
    for folder in folders:
        if (site_dir / folder).is_dir():
            (site_dir / folder / "sitemap.xml").write_text(xml, encoding="utf-8")
