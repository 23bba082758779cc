"""The browser worker's Python: what `calculator-worker.js` calls in Pyodide, testable in CPython.

The worker loads the site's wheels, then calls `start` once with the calculator modules to import and
the locale pack, and `render` or `import_result` for each message. Each answer crosses the boundary as
one JSON string, so the page receives plain data and never formats a number or a message itself.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from guidekit.calc import importer
from guidekit.l10n import LocalePack, Localizer

from ._render import render as _render

_PACK: LocalePack | None = None
_LOCALIZER: Localizer | None = None  # the pack's, kept: its formatter remembers figures


def start(modules: str, pack_json: str) -> None:
    """Import each module named (space-separated; each registers its calculators) and keep the pack."""
    global _PACK
    for module in modules.split():
        importlib.import_module(module)
    _PACK = json.loads(pack_json)


def _pack() -> LocalePack:
    if _PACK is None:
        raise RuntimeError("guidekit.render.worker.start() must run before the first message")
    return _PACK


def _localizer() -> Localizer:
    """The pack's Localizer, made once per pack."""
    global _LOCALIZER
    pack = _pack()
    if _LOCALIZER is None or _LOCALIZER.pack is not pack:
        _LOCALIZER = Localizer(pack, memo=True)
    return _LOCALIZER


def render(name: str, inputs_json: str) -> str:
    """A COMPUTE message: `guidekit.render.render` of the inputs the form sent, as JSON, with the response
    as `page_response` keeps it."""
    out = _render(name, json.loads(inputs_json), _pack(), _localizer())
    return json.dumps({**out, "response": page_response(out["response"])})


def page_response(response: dict[str, Any]) -> dict[str, Any]:
    """The response as the page receives it: without the rows the HTML already shows (`display`, and
    each table: a list of row dicts). The page reads only the inputs; tests compare the figures. The
    cost answer's rows were 53 of its 65 kB, and encoding them a fifth of its time in the worker."""
    result = response.get("result")
    if not isinstance(result, dict):
        return response
    return {**response, "result": {k: v for k, v in result.items() if k != "display" and not _rows(v)}}


def _rows(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(row, dict) for row in value)


def import_result(name: str, data: Any, current_json: str = "null", pasted: bool = False) -> str:
    """An IMPORT message: the picked file's bytes (a JavaScript Uint8Array in Pyodide) checked and turned
    into the calculator's inputs and panel, as JSON; `current_json`, the reader's form, against which
    the panel lists what the file would change."""
    # Imported on the first file, not at start: most readers never import one, and the reader's
    # schema and date modules would lengthen every start of the worker.
    reader = importlib.import_module(importer(name) or "")

    # Size first, from the proxy's length: to_py() copies the whole buffer into Python's memory,
    # which a WebAssembly heap never gives back.
    size = data.byteLength if hasattr(data, "byteLength") else len(data)
    if size > reader.MAX_BYTES:
        return json.dumps(reader.too_large(_pack(), size))
    if hasattr(data, "to_py"):  # a Pyodide proxy of the Uint8Array: a memoryview of its bytes
        data = data.to_py()
    try:
        current = json.loads(current_json)
    except (TypeError, ValueError):
        current = None
    return json.dumps(reader.import_result(name, data, _pack(), current, bool(pasted)))
