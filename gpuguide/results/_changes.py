"""What a result file would change in the reader's form, said before anything changes.

A result file describes a whole job (model, method, sequence, batch, what it measured); the reader's
form may hold another. The import panel lists each input the file would set to another value
(`calculators.pilot_inputs.changes`), in the form's own labels and wording, with a button that
applies them and one that keeps the form as it is: calculator.js wires both, and nothing is applied
until the reader chooses.
"""

from __future__ import annotations

import calculators
from calculators.pilot_inputs import changes
from guidekit.l10n import N_, Localizer, escape
from guidekit.render import figure, num

from ._html import choice_label


def _value(name: str, inp: dict, value: object, loc: Localizer) -> str:
    t = loc.t
    if inp["kind"] == "bool":
        return t(N_("Yes")) if value else t(N_("No"))
    if inp["kind"] == "choice":
        return t(choice_label(name, inp["name"], value))
    if inp["kind"] == "multichoice" and isinstance(value, list):
        return loc.fmt.join([t(choice_label(name, inp["name"], v)) for v in value])
    if inp["unit"]:
        return figure(value, inp["unit"], loc)
    return loc.fmt.number(value) if isinstance(value, (int, float)) else str(value)


def changes_html(name: str, proposed: dict, current: object, loc: Localizer) -> tuple[str, list[str]]:
    """The list of what the file would change, from the form's value to the file's, and the two
    buttons; with the names it lists. Empty when the file changes nothing."""
    found = changes(name, proposed, current)
    if not found:
        return "", []
    t = loc.t
    by_name = {i["name"]: i for i in calculators.describe(name)["inputs"]}
    items = "".join(
        "<li>"
        + t.html(
            N_("{label}: from {old} to {new}"),
            label=escape(t(by_name[key]["label"])),
            old=num(_value(name, by_name[key], old, loc)),
            new=num(_value(name, by_name[key], new, loc)),
        )
        + "</li>"
        for key, old, new in found
    )
    heading = t(N_("Taking this file into the calculator would change:"))
    kept = t(N_("Every other input keeps your value."))
    apply, keep = t(N_("Apply these changes")), t(N_("Keep my inputs"))
    applied, not_applied = t(N_("The file's values are now in the form.")), t(N_("Your inputs were kept."))
    html = (
        f'<div class="guide-import__changes" data-applied="{escape(applied)}" data-kept="{escape(not_applied)}">'
        f"<p>{escape(heading)}</p><ul>{items}</ul>"
        f'<p class="guide-import__note">{escape(kept)}</p><p class="guide-import__actions">'
        f'<button type="button" class="md-button md-button--primary guide-import__apply">{escape(apply)}</button> '
        f'<button type="button" class="md-button guide-import__keep">{escape(keep)}</button></p></div>'
    )
    return html, [key for key, _, _ in found]
