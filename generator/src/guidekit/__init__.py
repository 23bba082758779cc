"""guidekit: a static site generator for multilingual guides with calculators that answer in the page.

The layers, bottom up (none imports one above it):

- `l10n`: localization in the standard library: gettext lookups, CLDR numbers, plurals, lists and
  dates from a locale pack, bidi isolation, HTML escaping. Runs in CPython and in the browser.
- `calc`: the calculator framework: the registry and its one boundary `compute(name, inputs)`,
  input declarations, display blocks, error codes. Standard library only, like `l10n`.
- `render`: a calculator's answer as HTML, the same code at build time and in the browser's worker.
- `site`: the `guide` MkDocs plugin (markers, page rewrites, headers, sitemap, search) and `serve`;
  `runtime`: the browser runtime it ships (Pyodide, wheels, bytecode, service worker);
  `i18n`: the editors' `guide-i18n` command.

Importing this package imports nothing else: the browser imports only what it runs.
"""

__version__ = "0.1.0"  # generator/pyproject.toml says the same; a test holds them equal
