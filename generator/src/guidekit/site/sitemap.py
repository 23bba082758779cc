"""sitemap.xml with absolute hreflang alternates for every page in every locale."""

from __future__ import annotations

import gzip
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr


def write_sitemap(site_dir: Path, pages: dict[str, dict[str, dict[str, str]]]) -> None:
    """`pages`: locale -> {page url: {locale: absolute url}} as collected while rendering.

    One sitemap at the site root (and its .gz) is where crawlers find each page's hreflang
    alternates. The pages do not repeat them as `<link rel="alternate">`: Material fetches
    `sitemap.xml` beside every such link, which is another origin wherever the site is served
    from an address other than the one it was built for."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    for locale, by_url in pages.items():
        for _url, alternates in sorted(by_url.items()):
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
    (site_dir / "sitemap.xml").write_text(xml, encoding="utf-8")
