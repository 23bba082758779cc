"""A calculator's answer as HTML: `render()` is what the build and the browser worker both call."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from guidekit.calc import ERROR_CODES, compute, describe
from guidekit.l10n import (
    N_,
    LocalePack,
    Localizer,
    NumberFormat,
    Translator,
    clip,
    direction,
    escape,
    isolate,
    plural_count,
)

from ._chart import bars_svg
from ._figures import figure, num as _num
from ._scroll import scroll_region


def render(name: str, inputs: dict[str, Any], pack: LocalePack, loc: Localizer | None = None) -> dict[str, Any]:
    """Run calculator `name` on `inputs` and localize the outcome with `pack` (or with `loc`, the
    pack's `Localizer`, which a caller that renders many answers keeps).

    Returns a JSON-able dict: `ok`, the boundary's own `response` (for comparisons and tests),
    `html` (the result panel), `summary` (one sentence for screen readers), `headline` (its short
    form, kept in view above the form: see `headline`) and, on bad input, `errors` as
    [{"field", "message"}] for the page to place beside each field.
    """
    response = compute(name, inputs)
    loc = loc or Localizer(pack)
    t, fmt = loc.t, loc.fmt
    if response["ok"]:
        html, summary = render_result(response["result"], loc)
        return {
            "ok": True,
            "response": response,
            "html": html,
            "summary": summary,
            "headline": headline(response["result"], loc) or summary,
            "errors": [],
        }
    choices = choice_labels(name)
    errors = [
        {"field": e["field"], "message": error_message(e, loc, choices.get(e["field"]))} for e in response["errors"]
    ]
    labels = input_labels(name)
    lines = "".join(
        # The same "label: value" pattern as the headline, so Japanese gets its full-width colon.
        f"<li>{_to_field(name, e['field'], labels, t.html(N_('{label}: {value}'), label=_field_label(e['field'], labels, t), value=escape(e['message'])))}</li>"
        for e in errors
    )
    heading = t(N_("Fix these inputs to see a result:"))
    html = f'<div class="guide-calc__invalid" role="alert"><p>{escape(heading)}</p><ul>{lines}</ul></div>'
    # The headline kept in view on a phone names the fields, which may sit far down the form (or in a fold).
    fields = fmt.join(
        list(
            dict.fromkeys(
                t(labels[e["field"]]) if e["field"] in labels else "\u2068" + clip(e["field"]) + "\u2069"
                for e in errors
            )
        )
    )
    # TRANSLATORS: {fields} lists the labels of the form's fields that hold a wrong value.
    sentence = t(N_("Fix these inputs to see a result: {fields}."), fields=fields)
    return {
        "ok": False,
        "response": response,
        "html": html,
        "summary": sentence,
        "headline": sentence,
        "errors": errors,
    }


def _to_field(name: str, field: str, labels: dict[str, str], html: str) -> str:
    """`html` as a link to a declared field's control (calculator-field.html names it; calculator.js
    opens its fold and focuses it), or as is for a key that names no field."""
    if field not in labels:
        return html
    return f'<a href="#calc-{escape(name)}-{escape(field)}" data-error-for="{escape(field)}">{html}</a>'


def _field_label(field: str, labels: dict[str, str], t: Translator) -> str:
    """A declared field's translated label, or the unknown key as sent: clipped and isolated."""
    return escape(t(labels[field])) if field in labels else isolate(clip(field))


def input_labels(name: str) -> dict[str, str]:
    """Input name -> its label msgid, as calculator `name` declares it."""
    description = describe(name)
    return {i["name"]: i["label"] for i in description.get("inputs", [])}


def choice_labels(name: str) -> dict[str, dict[str, str]]:
    """Input name -> {choice value: its label msgid}, for each choice input of calculator `name`."""
    description = describe(name)
    return {
        i["name"]: {c["value"]: c["label"] for c in i["choices"]}
        for i in description.get("inputs", [])
        if i.get("choices")
    }


def list_text(key: str, items: list[str], fmt: NumberFormat) -> str:
    """A list param of an error as the locale writes lists: `choices` are alternatives ("a, b o c")."""
    return fmt.join(items, "or" if key == "choices" else "standard")


def error_message(error: dict[str, Any], loc: Localizer, choices: dict[str, str] | None = None) -> str:
    """An error in the reader's language. `choices` (value -> label msgid) names the field's allowed
    values as its menu shows them: the boundary lists ids ("h200-141gb"), which the CLI prints as is."""
    t, fmt = loc.t, loc.fmt
    template = ERROR_CODES.get(error["code"], error["code"])
    params = {}
    for key, value in error.items():
        if key in ("field", "code"):
            continue
        if isinstance(value, bool) or value is None:
            params[key] = str(value)
        elif isinstance(value, (int, float)):
            params[key] = fmt.number(value, max_frac=4)
        elif isinstance(value, list):
            named = (choices or {}) if key == "choices" else {}
            params[key] = list_text(key, [t(named.get(v, str(v))) for v in value], fmt)
        else:
            params[key] = t(str(value))
    return t(template, **params)


def render_result(result: dict[str, Any], loc: Localizer) -> tuple[str, str]:
    """(HTML of every display block, the headline sentence)."""
    parts, summary = [], ""
    for block in result.get("display", []):
        kind = block["kind"]
        if kind == "verdict":
            html, summary = _verdict(block, loc)  # the answer sentence is the headline
        elif kind == "metrics":
            html, headline = _metrics(block, loc)
            summary = summary or headline
        elif kind == "bars":
            html = _bars(block, loc)
        elif kind == "table":
            html = _table(block, loc)
        elif kind == "notes":
            html = _notes(block, loc)
        else:
            continue  # a block kind this renderer does not know yet is skipped, not guessed at
        parts.append(f'<section class="guide-block guide-block--{escape(kind)}">{html}</section>')
    return "".join(parts), summary


def headline(result: dict[str, Any], loc: Localizer) -> str:
    """The verdict's short form (guidekit.calc.display.verdict), as plain text with isolated figures like
    the sentence; "" when the result has no verdict with one."""
    for block in result.get("display", []):
        if block["kind"] == "verdict" and block.get("short"):
            return _sentence(block["short"], loc, isolated=True)
    return ""


def _title(block: dict[str, Any], t: Translator) -> str:
    return f"<h3>{escape(t(block['title']))}</h3>" if block.get("title") else ""


def _metrics(block: dict[str, Any], loc: Localizer) -> tuple[str, str]:
    t = loc.t
    items, headline = [], ""
    for i, item in enumerate(block["items"]):
        label, value = t(item["label"]), figure(item["value"], item["unit"], loc)
        status = f' data-status="{escape(item["status"])}"' if item.get("status") else ""
        cls = "guide-metric guide-metric--headline" if i == 0 else "guide-metric"
        shown = value if item["unit"] == "text" else _unbroken(value)  # "1 × H200 SXM 141 GB" on one line
        items.append(f'<div class="{cls}"{status}><dt>{escape(label)}</dt><dd>{_num(shown)}</dd></div>')
        if i == 0:
            headline = t(N_("{label}: {value}"), label=label, value=value)
    return _title(block, t) + f'<dl class="guide-metrics">{"".join(items)}</dl>', headline


def _bars(block: dict[str, Any], loc: Localizer) -> str:
    t = loc.t
    items = [(t(i["label"]), i["value"], figure(i["value"], block["unit"], loc)) for i in block["items"]]
    return _title(block, t) + bars_svg(t(block["title"]), items, rtl=t.dir == "rtl")


# How a cell shows its text: a figure isolated in <bdi>; a name (raw) on one line; words and yes/no as they are.
def _name_cell(text: str) -> str:
    return escape(_unbroken(text))


_CELLS: dict[str, Callable[[str], str]] = {"raw": _name_cell, "text": escape, "bool": escape}


def _table(block: dict[str, Any], loc: Localizer) -> str:
    t = loc.t
    head = "".join(f'<th scope="col">{escape(t(c["label"]))}</th>' for c in block["columns"])
    # (unit, whether the cells are figures to isolate) per column, looked up once per table
    columns = [(c["unit"], _CELLS.get(c["unit"], _num)) for c in block["columns"]]
    body = []
    for row in block["rows"]:
        cells = "".join(f"<td>{html(figure(cell, unit, loc))}</td>" for (unit, html), cell in zip(columns, row))
        body.append(f"<tr>{cells}</tr>")
    title = t(block["title"]) if block.get("title") else None
    # The title in its own box, which stays in view (guide.css) while the table scrolls sideways under it.
    caption = f'<caption><span class="guide-table__title">{escape(title)}</span></caption>' if title else ""
    return scroll_region(
        f'<table class="guide-table">{caption}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>',
        title,
    )


def _sentence(item: dict[str, Any], loc: Localizer, isolated: bool = False) -> str:
    """A msgid with typed parameters (a note, a verdict), as localized text; `isolated` puts each figure
    and name between Unicode isolates, as plain text must ("84.7 GB" stays left to right in Arabic)."""
    t = loc.t
    raw = item.get("params", {})
    params = {key: _param(p, loc, isolated) for key, p in raw.items()}
    return t(item["msg"], n=plural_count(item["msg"], raw), **params)


def _isolated(text: str) -> str:
    """`text` between an LRI or RLI (its own direction, see `direction`) and a PDI."""
    return ("\u2066" if direction(text) == "ltr" else "\u2067") + text + "\u2069"


# The spaces inside a figure or a name ("115 GB", "H200 SXM 141 GB"): a line in a sentence may not break
# there. Those after a list's comma and around a plan's "+" still may ("1 day + 14 h on demand").
_INNER_SPACE = re.compile(r"(?<![,،、;+]) (?!\+)")


_NAME_LENGTH = 32  # the longest text parameter kept on one line: a card's or a model's name


def _unbroken(text: str) -> str:
    """`text` with its inner spaces made no-break (U+00A0), so that a figure or a name stays on one line."""
    return _INNER_SPACE.sub("\u00a0", text) if " " in text else text


def _param(p: Any, loc: Localizer, isolated: bool = False) -> str:
    """One parameter (see guidekit.calc.display): a typed value, a phrase, or alternatives of phrases.
    A value or a name keeps its words together (`_unbroken`); a phrase of the catalog's may break."""
    fmt = loc.fmt
    if not isinstance(p, dict):
        # A short name ("H200 SXM 141 GB") stays whole; longer text, an echo from a file, may wrap.
        text = _unbroken(str(p)) if len(str(p)) <= _NAME_LENGTH else str(p)
        return _isolated(text) if isolated else text
    if "msg" in p:
        return _sentence(p, loc, isolated)
    if "items" in p:
        return fmt.join([_param(i, loc, isolated) for i in p["items"]], p["join"])
    text = figure(p["value"], p["unit"], loc)
    if p["unit"] != "text":
        text = _unbroken(text)
    return _isolated(text) if isolated else text


def _verdict(block: dict[str, Any], loc: Localizer) -> tuple[str, str]:
    # Plain text, as the sticky headline shows it too: Unicode isolates, not <bdi>, keep its figures whole.
    text = _sentence(block, loc, isolated=True)
    return f'<p class="guide-verdict" data-status="{escape(block["status"])}">{escape(text)}</p>', text


def _notes(block: dict[str, Any], loc: Localizer) -> str:
    t = loc.t
    items = []
    for item in block["items"]:
        fix = ""
        if item.get("apply"):
            # A fix: calculator.js puts these inputs in the form when the button is pressed.
            inputs = escape(json.dumps(item["apply"], separators=(",", ":"), sort_keys=True))
            label = escape(t(N_("Apply")))  # outside the f-string, where Babel's extractor sees it
            fix = f' <button type="button" class="md-button guide-calc__apply" data-inputs="{inputs}">{label}</button>'
        items.append(f"<li>{escape(_sentence(item, loc))}{fix}</li>")
    return _title(block, t) + f'<ul class="guide-notes">{"".join(items)}</ul>'
