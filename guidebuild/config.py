"""Options of the `guide` MkDocs plugin (mkdocs.yml → plugins → guide)."""

from mkdocs.config import config_options as c
from mkdocs.config.base import Config


class GuideConfig(Config):
    enabled = c.Type(bool, default=True)
    # Folder of the gettext catalogs (messages.pot, <lang>/LC_MESSAGES/messages.po), relative to mkdocs.yml.
    locales_dir = c.Type(str, default="locales")
    # npm's copy of Pyodide, relative to mkdocs.yml; the build copies the runtime files out of it once.
    pyodide_dir = c.Type(str, default="node_modules/pyodide")
    # Project folders packed as pure-Python wheels for the browser; "." is this project
    # (calculators + calcui). Another folder adds a package that brings its own calculators.
    packages = c.ListOfItems(c.Type(str), default=["."])
    # Modules imported (in the build and in the browser) that register extra calculators.
    calculator_modules = c.ListOfItems(c.Type(str), default=[])
    # Folder of pilot result files that the results page imports, relative to mkdocs.yml.
    results_dir = c.Type(str, default="results")
    # The memory accuracy matrix that `python -m benchmarks.memory_accuracy` writes, relative to mkdocs.yml.
    accuracy_file = c.Type(str, default="benchmarks/results/memory_accuracy.json")
