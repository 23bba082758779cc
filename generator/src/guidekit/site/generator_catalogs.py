"""The generator's own UI strings ("Result", "Copy link", the form's errors, the translation notice),
translated in the package itself and laid beneath each project's catalogs.

A project's catalog wins where both translate a string, so an author may reword "Result" for their
guide; a locale the package has no catalog for gets the strings through `guide-i18n update`, which
brings them into that project's own catalog to translate (`guidekit.i18n.generator_strings`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from babel import Locale
from babel.core import get_global

from .locales import babel_locale

# Package data beside the code: `<locale>/LC_MESSAGES/guidekit.po` and the template `guidekit.pot`.
LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"
DOMAIN = "guidekit"
TEMPLATE = LOCALES_DIR / f"{DOMAIN}.pot"


def shipped() -> list[str]:
    """The locales the package translates its strings into, as their folders spell them."""
    return sorted(p.parent.parent.name for p in LOCALES_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def _script(locale: Locale) -> str | None:
    """The writing system a locale code means, spelt out or implied (`zh` is Hans, `zh_TW` is Hant)."""
    if locale.script:
        return locale.script
    likely = get_global("likely_subtags")
    for key in (str(locale), locale.language):
        if key in likely:
            return Locale.parse(likely[key]).script
    return None


@lru_cache(maxsize=None)
def catalog_path(locale: str) -> Path | None:
    """The package's catalog for a project's locale: the same code (`pt-BR` is `pt_BR`), else the
    language's own catalog when it is written in the same script (`de-AT` reads `de`; `zh-Hant` does not
    read the simplified `zh`). None when the package does not translate into that language."""
    wanted = babel_locale(locale)
    codes = {code: babel_locale(code) for code in shipped()}
    exact = [code for code, c in codes.items() if str(c) == str(wanted)]
    near = [
        code
        for code, c in codes.items()
        if c.language == wanted.language and not c.territory and _script(c) == _script(wanted)
    ]
    for code in exact + near:
        return LOCALES_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"
    return None
