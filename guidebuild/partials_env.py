"""The Jinja environment the plugin renders its partials in (calculators, catalog table, banner)."""

from __future__ import annotations

from calcui import Translator
from jinja2 import Environment
from markupsafe import escape


def partials_env(theme_env: Environment, pack: dict) -> Environment:
    """An overlay of the theme's environment that autoescapes and translates through the locale's
    catalog. Translations are escaped too: Jinja's newstyle gettext would otherwise mark them
    safe, and a translation is data, not markup."""
    env = theme_env.overlay(autoescape=True)
    env.add_extension("jinja2.ext.i18n")
    translate = Translator(pack)
    # Newstyle callables fill `%(name)s` themselves after the call; these return the bare msgstr.
    env.install_gettext_callables(
        gettext=lambda msg: escape(translate.gettext(msg)),
        ngettext=lambda one, many, n: escape(translate.ngettext(one, many, n)),
        pgettext=lambda ctx, msg: escape(translate.pgettext(ctx, msg)),
        npgettext=lambda ctx, one, many, n: escape(translate.npgettext(ctx, one, many, n)),
        newstyle=True,
    )
    return env
