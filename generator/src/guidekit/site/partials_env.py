"""The Jinja environment the plugin renders its partials in (calculators, catalog table, banner)."""

from __future__ import annotations

import re

from jinja2 import Environment
from jinja2.ext import InternationalizationExtension
from markupsafe import Markup, escape

from guidekit.l10n import LocalePack, Translator

_AFTER_FIGURE = re.compile(r"(?<=\d) ")


def figure_glued(text: str) -> Markup:
    """Escaped `text` with the space after each figure made no-break: "1 hour" and 「1 時間」 keep their unit on
    the figure's line when a narrow column wraps the rest (a form table's row labels)."""
    return Markup(_AFTER_FIGURE.sub("\u00a0", str(escape(text))))


def partials_env(theme_env: Environment, pack: LocalePack) -> Environment:
    """An overlay of the theme's environment that autoescapes and translates through the locale's
    catalog, with the UI strings' one placeholder syntax.

    A UI string's placeholders are `{name}`, filled by guidekit.l10n's Translator at build time and in the
    browser alike; `%` is text. `_()` here is that Translator, so a template string follows the same
    rules as a calculator's (and the calculators' labels pass through both). Jinja's gettext would
    read every msgstr as a `%` format instead, even with nothing to fill: "el 50 % sí" came out as
    "el 50 {}í", and "50 %." stopped the build. `{% trans %}` (which writes `%(name)s` and `%%`) is
    therefore not available here. Translations are escaped: a translation is data, not markup."""
    env = theme_env.overlay(autoescape=True)
    env.extensions = {
        key: ext for key, ext in env.extensions.items() if not isinstance(ext, InternationalizationExtension)
    }
    translate = Translator(pack)
    env.globals = {
        **theme_env.globals,  # an overlay shares its parent's dict; the theme's own gettext stays the theme's
        "_": lambda msg, **params: escape(translate(msg, **params)),
        "gettext": lambda msg, **params: escape(translate(msg, **params)),
        "pgettext": lambda ctx, msg, **params: escape(translate({"context": ctx, "msgid": msg}, **params)),
        # A count fills `{count}` unless the template names it otherwise, as `ngettext("{count} token", …, n)`.
        "ngettext": lambda one, many, n, **params: escape(
            translate({"msgid": one, "plural": many}, n, **{"count": n, **params})
        ),
        "npgettext": lambda ctx, one, many, n, **params: escape(
            translate({"context": ctx, "msgid": one, "plural": many}, n, **{"count": n, **params})
        ),
    }
    env.filters = {**theme_env.filters, "figure_glued": figure_glued}
    return env
