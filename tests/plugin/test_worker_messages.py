"""The calculator page and its worker share one declaration of their message types."""

from __future__ import annotations

import re

from tests.conftest import THEME

SCRIPTS = THEME / "assets" / "javascripts"
SHARED = "calculator-messages.js"
SIDES = ("calculator.js", "calculator-worker.js")


def _text(name: str) -> str:
    return (SCRIPTS / name).read_text(encoding="utf-8")


def test_the_message_types_are_declared_once_and_imported_by_both_sides():
    declaring = sorted(
        p.name for p in SCRIPTS.glob("*.js") if re.search(r"\bMessageType\s*=", p.read_text(encoding="utf-8"))
    )
    assert declaring == [SHARED]
    for name in SIDES:
        assert f'import {{ MessageType }} from "./{SHARED}";' in _text(name), name


def test_every_type_is_sent_by_one_side_and_handled_by_the_other():
    declared = set(re.findall(r"^\s*([A-Z_]+):", _text(SHARED), re.M))
    # A message is an object literal with a type, posted directly or through a wrapper (the page's Runtime
    # times each request it posts).
    sent = {name: set(re.findall(r"\{\s*type: MessageType\.([A-Z_]+)", _text(name))) for name in SIDES}
    handled = {name: set(re.findall(r"case MessageType\.([A-Z_]+):", _text(name))) for name in SIDES}
    page, worker = SIDES
    assert sent[page] | sent[worker] == declared
    assert sent[page] == handled[worker] and sent[worker] == handled[page]
