"""Options of the `guide` MkDocs plugin (mkdocs.yml → plugins → guide).

Each option is checked when MkDocs loads the configuration, before anything is built, so a wrong folder
or module stops the build at once with MkDocs' "Plugin 'guide' option '<name>': ..." line.
"""

import importlib.util
import os
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config, ValidationError

from guidekit.i18n.project import check_policy


class _Existing(c.FilesystemObject):
    """An existing path, relative to mkdocs.yml; `hint` says how to get one when it is missing."""

    def __init__(self, hint: str = "", **kwargs: Any) -> None:
        super().__init__(exists=True, **kwargs)
        self.hint = hint

    def run_validation(self, value: object) -> str:
        try:
            return super().run_validation(value)
        except ValidationError as error:
            raise ValidationError(f"{error}{self.hint}") from None


class _File(_Existing, c.File):
    """An existing file."""


class _Folder(_Existing, c.Dir):
    """An existing folder; with `needs`, one holding that file."""

    def __init__(self, hint: str = "", needs: str = "", **kwargs: Any) -> None:
        super().__init__(hint, **kwargs)
        self.needs = needs

    def run_validation(self, value: object) -> str:
        path = super().run_validation(value)
        if self.needs and not os.path.isfile(os.path.join(path, self.needs)):
            raise ValidationError(
                f"The folder '{path}' has no {self.needs}; expected a Python project folder such as '.'"
            )
        return path


class _Module(c.Type[str]):
    """The name of a module the build's Python can import."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(str, **kwargs)

    def run_validation(self, value: object) -> str:
        name = super().run_validation(value)
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise ValidationError(
                f"No module named '{name}' on the build's Python path; expected an importable "
                "module such as 'toycalc' (add its folder to PYTHONPATH or install it)"
            )
        return name


class _Extensions(c.OptionallyRequired[dict[str, dict[str, Any]]]):
    """Module name -> its options (a mapping, or nothing)."""

    def run_validation(self, value: object) -> dict[str, dict[str, Any]]:
        if not isinstance(value, dict):
            raise ValidationError("expected a mapping of module name to its options, e.g. `mysite.tables: {}`")
        for name, options in value.items():
            if options is not None and not isinstance(options, dict):
                raise ValidationError(f"{name}: its options are a mapping (got {options!r})")
        return {str(name): options or {} for name, options in value.items()}


class _Completeness(c.OptionallyRequired[dict[str, str]]):
    """Locale -> `complete` or `in progress`, the translation policy `guide-i18n status` applies."""

    def run_validation(self, value: object) -> dict[str, str]:
        try:
            return check_policy(value)
        except ValueError as error:
            raise ValidationError(str(error)) from None


class GuideConfig(Config):  # type: ignore[no-untyped-call]  # MkDocs' Config.__init_subclass__ is unannotated
    enabled = c.Type(bool, default=True)
    # Per translated locale: `complete` (missing or outdated pages and strings fail `guide-i18n status
    # --strict`) or `in progress` (reported; readers get the notice). Read by guide-i18n (i18n/project.py).
    completeness = _Completeness(default={})
    # Folder of the gettext catalogs (messages.pot, <lang>/LC_MESSAGES/messages.po), relative to mkdocs.yml;
    # by default `locales`, which a project may not have yet: the generator's own strings are translated in
    # its package, so a guide without strings of its own needs no catalogs.
    locales_dir = c.Optional(_Folder())
    # npm's copy of Pyodide, relative to mkdocs.yml; the build copies the runtime files out of it once.
    pyodide_dir = _Folder(default="node_modules/pyodide", hint=" Run `npm ci` (or `make setup`) to install Pyodide.")
    # Project folders (each with a pyproject.toml) that hold the site's calculator packages, packed by pip as
    # pure-Python wheels for the browser, e.g. "." for the project beside mkdocs.yml. The generator's own
    # browser layers come from the installed guidekit, always.
    packages = c.ListOfItems(_Folder(needs="pyproject.toml"), default=[])
    # Modules imported (in the build and in the browser) that register the site's calculators.
    calculator_modules = c.ListOfItems(_Module(), default=[])
    # Build extensions (guidekit.site.extensions): module name -> its options. Each adds the guide's own
    # markers and data checks; `guide-i18n` imports them too, for the markers.
    extensions = _Extensions(default={})
