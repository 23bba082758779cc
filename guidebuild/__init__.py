"""Build glue for the guide: the MkDocs plugin, locale data and the editors' i18n commands."""
