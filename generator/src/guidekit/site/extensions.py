"""Build extensions: a guide's own markers and data checks, named with their options in mkdocs.yml.

    plugins:
      - guide:
          extensions:
            gpuguide.site:             # a module the build's Python imports (installed, or beside mkdocs.yml)
              results_dir: results     # its own options, which it checks itself

Importing the module registers its markers (`guidekit.site.markers.register`), so `guide-i18n` checks a
page's skeleton with them too. The module may also define, both optional:

- `configure(options: dict, root: Path) -> object`: checks its options (paths are relative to `root`, the
  folder of mkdocs.yml) and raises `ValueError` naming the option and the fix; what it returns is the
  extension's state, which its markers read at `ctx.extensions[<module name>]`.
- `check(state) -> list[str]`: once per build, before any page: warnings (a `--strict` build stops on
  them); a `ValueError` stops the build with its message.
"""

from __future__ import annotations

import importlib
import sys
import sysconfig
import traceback
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType


def load(names: list[str], root: Path) -> list[ModuleType]:
    """Import each extension module (the project folder first on the path, as MkDocs hooks are found)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name != name and not name.startswith(f"{exc.name}."):
                raise ValueError(f"extension {name!r}: {import_failure(exc)}") from None
            raise ValueError(
                f"extension {name!r}: no module of that name on the build's Python path; install it, "
                f"or put it beside mkdocs.yml"
            ) from None
        except Exception as exc:  # its data or code is broken: one line naming where, not a traceback
            raise ValueError(f"extension {name!r}: {import_failure(exc)}") from None
    return modules


def import_failure(exc: BaseException) -> str:
    """What stopped a module's import, on one line: the error and the file and line that raised it (a
    catalog that is not JSON, a missing key, a bug in the author's own code)."""
    frames = traceback.extract_tb(exc.__traceback__)
    # The deepest frame of the project's own code: not Python's library, not the import machinery.
    stdlib = sysconfig.get_paths()["stdlib"]
    own = [f for f in frames if not f.filename.startswith((stdlib, "<frozen"))] or frames
    where = f" ({own[-1].filename}:{own[-1].lineno})" if own else ""
    return f"importing it failed with {type(exc).__name__}: {' '.join(str(exc).split())}{where}"


def start(extensions: Mapping[str, object], root: Path) -> tuple[dict[str, object], list[str]]:
    """Load, configure and check every extension: (state by module name, warnings). ValueError says what
    stops the build, prefixed with the extension's name."""
    states: dict[str, object] = {}
    warnings: list[str] = []
    for module in load(list(extensions), root):
        options = extensions[module.__name__] or {}
        if not isinstance(options, dict):
            raise ValueError(f"extension {module.__name__!r}: its options are a mapping (got {options!r})")
        try:
            state = module.configure(options, root) if hasattr(module, "configure") else None
            if options and not hasattr(module, "configure"):
                raise ValueError(f"takes no options (got {', '.join(map(str, options))})")
            warnings += module.check(state) if hasattr(module, "check") else []
        except ValueError as exc:
            raise ValueError(f"extension {module.__name__!r}: {exc}") from None
        states[module.__name__] = state
    return states, warnings
