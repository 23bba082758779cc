"""Places calculators in pages: `<!-- calculator: NAME -->` becomes the form plus its answer.

Generic on purpose: it knows "a calculator" — whatever `calc.describe(NAME)` declares — and
nothing about memory or cost. The result HTML comes from `guidekit.render.render`, the same call the
browser worker makes.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mkdocs.exceptions import PluginError

from guidekit import calc, l10n, render
from guidekit.calc.display import UNITS
from guidekit.site import markers

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.structure.files import File


def unit_label(unit: str) -> str:
    """How an input's unit is named beside its label (a msgid; "" shows nothing)."""
    return UNITS[unit].label if unit else ""


def _groups(inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Inputs by fieldset, in declaration order; advanced ones folded at the end of their group (a group
    of advanced inputs only is folded whole, under its own title: calculator.html)."""
    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], dict[str, Any]] = {}
    for inp in inputs:
        params = inp.get("group_params") or {}
        group = groups.setdefault(
            (inp["group"], tuple(sorted(params.items()))),
            {"title": inp["group"], "params": params, "inputs": [], "advanced": []},
        )
        group["advanced" if inp["advanced"] else "inputs"].append(inp)
    return list(groups.values())


def unit_texts(inputs: list[dict[str, Any]], pack: l10n.LocalePack) -> dict[str, str]:
    """Input name -> the unit shown beside its label, with the input's declared range where the unit
    names one ("share, 0–0.9"): from the same min and max the calculator checks, in the locale's digits."""
    loc = l10n.Localizer(pack)
    t, fmt = loc.t, loc.fmt
    return {
        i["name"]: t(
            unit_label(i["unit"]),
            min=fmt.number(i["min"], max_frac=4) if i["min"] is not None else "",
            max=fmt.number(i["max"], max_frac=4) if i["max"] is not None else "",
        )
        for i in inputs
        if unit_label(i["unit"])
    }


def input_texts(inputs: list[dict[str, Any]], values: dict[str, Any], pack: l10n.LocalePack) -> dict[str, str]:
    """Number input name -> its value as the field shows it in the locale ("200.000.000", "0,1")."""
    fmt = l10n.NumberFormat(pack)
    return {i["name"]: fmt.input_text(values[i["name"]]) for i in inputs if i["kind"] in ("int", "float")}


def reference_texts(inputs: list[dict[str, Any]], pack: l10n.LocalePack) -> dict[str, str]:
    """Number input name -> its reference figure (what an empty field stands for) in the locale's digits; a
    fraction with at least two decimals, as prices are written ("1,30", not "1,3")."""
    fmt = l10n.NumberFormat(pack)
    return {
        i["name"]: fmt.number(ref, max_frac=4, min_frac=0 if float(ref).is_integer() else 2)
        for i in inputs
        if (ref := i.get("reference")) is not None
    }


def form_value(inp: dict[str, Any]) -> object:
    """An input's default as the page's form reads it (calculator.js `readForm`): text, a list for a
    multichoice, "true"/"false" for a box, "" for a number field left empty."""
    default = inp["default"]
    if inp["kind"] == "bool":
        return "true" if default else "false"
    if inp["kind"] == "multichoice":
        return list(default)
    return "" if default is None else str(default)


def carry_links(description: dict[str, Any], pages: dict[str, str]) -> list[dict[str, Any]]:
    """The `Carry` links of a calculator whose target some page places: its label, that page's URL, and what
    calculator-carry.js needs to fill its address: this form's input -> the target's, and the target's
    defaults (an input at its default stays out of the address)."""
    links = []
    for link in description.get("carry", []):
        if link["to"] not in pages:
            continue
        target = {i["name"]: i for i in calc.describe(link["to"])["inputs"]}
        names = {i["name"]: link["rename"].get(i["name"], i["name"]) for i in description["inputs"]}
        fields = {mine: theirs for mine, theirs in names.items() if theirs in target}
        links.append(
            {
                "label": link["label"],
                "href": pages[link["to"]],
                "carry": {"fields": fields, "defaults": {t: form_value(target[t]) for t in fields.values()}},
            }
        )
    return links


def placed(pages: Iterable[File]) -> dict[str, str]:
    """Calculator name -> the URL of the first page that places it, read from the pages' Markdown: where a
    `Carry` link on another page leads."""
    found: dict[str, str] = {}
    for page in pages:
        for name in markers.arguments(page.content_string, "calculator"):
            found.setdefault(name, page.url)
    return found


def render_calculator(name: str, env: Environment, pack: l10n.LocalePack, pages: dict[str, str] | None = None) -> str:
    description = calc.describe(name)
    if "inputs" not in description:
        raise PluginError(f"Page places unknown calculator {name!r}; known: {', '.join(calc.names())}")
    rendered = render.render(name, {}, pack)
    if not rendered["ok"]:
        raise PluginError(f"Calculator {name!r} rejects its own defaults: {rendered['response']['errors']}")
    reader = importlib.import_module(module) if (module := calc.importer(name)) else None
    template = env.get_template("partials/calculator.html")
    return template.render(
        calc=description,
        groups=_groups(description["inputs"]),
        values=rendered["response"]["inputs"],
        # Number fields show the locale's form from the start; calculator.js reads it back to ASCII
        # with the form's symbols (calculator-numbers.js).
        input_texts=input_texts(description["inputs"], rendered["response"]["inputs"], pack),
        numbers=pack["numbers"],
        rendered=rendered,
        unit_texts=unit_texts(description["inputs"], pack),
        carry=carry_links(description, pages or {}),
        reference_texts=reference_texts(description["inputs"], pack),
        importable=bool(reader and reader.importable(name)),
        # What the box says a file can be, and the input it follows (a reader with a config.json starts at
        # the model): the importer's own; without `IMPORT_BESIDE` the box ends the form.
        import_title=getattr(reader, "IMPORT_TITLE", ""),
        import_beside=getattr(reader, "IMPORT_BESIDE", None),
        # The page refuses a bigger file from File.size alone, and answers when it cannot read a file
        # or has no runtime to read it, in the worker's own words.
        import_max=reader.MAX_BYTES if reader else 0,
        refusals=reader.page_refusals(pack) if reader else {},
    )
