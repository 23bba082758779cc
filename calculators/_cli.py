"""Command line: ``python -m calculators memory|cost [--input FILE|-] [--set k=v]... [--json]``,
``python -m calculators describe NAME`` and ``python -m calculators stale-prices [--max-age-days N]``.

Prints the result's display blocks as plain-text tables (English msgids), or the
boundary JSON with ``--json``. Field errors go to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from guidekit.calc import ERROR_CODES, compute, describe, names
from guidekit.calc.display import UNITS
from guidekit.l10n import Msg

from . import _prices, hf_config


def _plan_entry(count: float, label: str, *by_the_hour: str) -> str:
    if by_the_hour:  # hours billed by the hour: "12.50 h on demand"
        return label.format(hours=fmt(count, "hours"))
    return label if count == 1 else f"{count:,} × {label}"


def fmt(number: Any, unit: str) -> str:
    """English plain-text rendering of one value in a display unit (which decides the value's type)."""
    if number is None:
        return "—"
    if unit == "bool":
        return "yes" if number else "no"
    if unit == "plan":  # a single term is its label alone, as on the site: "1 × 1 day" says it twice
        return " + ".join(_plan_entry(*entry) for entry in number) or "—"
    if unit in ("text", "raw"):
        return str(number)
    if unit == "bytes":
        return f"{number / 1e9:,.2f} GB"
    if unit == "percent":
        return f"{number * 100:,.1f} %"
    if unit == "usd":
        return f"${number:,.2f}"
    if unit == "usd_per_hour":
        return f"${number:,.2f}/h"
    if unit == "count":
        return f"{number:,.0f}"
    digits = 0 if abs(number) >= 1000 else 2
    return f"{number:,.{digits}f}{UNITS[unit].suffix}"


def english(msg: Msg, params: dict[str, Any] | None = None) -> str:
    """A display string in English: a msgid, a msgid with a context, or a count string in the form its
    count takes (the count is the param the string names)."""
    if isinstance(msg, str):
        return msg
    if "plural" in msg:
        count = (params or {}).get(msg["n"])
        count = count["value"] if isinstance(count, dict) else count
        return msg["msgid"] if count == 1 else msg["plural"]
    return msg["msgid"]


def _note(item: dict[str, Any]) -> str:
    return english(item["msg"], item["params"]).format(**{k: _param(v) for k, v in item["params"].items()})


def _param(p: object) -> object:
    """A typed value, a phrase, or a list ("a, b or c", "a, b and c"), in English (see guidekit.calc.display);
    a plain value as it is."""
    if not isinstance(p, dict):
        return p
    if "msg" in p:
        return _note(p)
    if "items" in p:
        texts = [str(_param(i)) for i in p["items"]]  # phrases, or names as they are
        word = " or " if p["join"] == "or" else " and "
        return ", ".join(texts[:-1]) + word + texts[-1] if len(texts) > 1 else "".join(texts)
    return fmt(p["value"], p["unit"])


def _apply(item: dict[str, Any]) -> str:
    """A note that is a fix: the options that apply it on the command line."""
    sets = " ".join(
        f"--set {k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in item.get("apply", {}).items()
    )
    return f" [{sets}]" if sets else ""


def render(result: dict[str, Any]) -> str:
    """All display blocks as text: metrics and bars as aligned lines, tables as columns."""
    out: list[str] = []
    rows: list[list[str]]
    for block in result["display"]:
        if block.get("title"):
            out.append(f"== {english(block['title'])} ==")
        if block["kind"] == "verdict":
            out += [_note(block), ""]
            continue
        if block["kind"] == "metrics":
            rows = [
                [english(i["label"]), fmt(i["value"], i["unit"]), f"[{i['status']}]" if i["status"] else ""]
                for i in block["items"]
            ]
        elif block["kind"] == "bars":
            rows = [[english(i["label"]), fmt(i["value"], block["unit"])] for i in block["items"]]
        elif block["kind"] == "table":
            units = [c["unit"] for c in block["columns"]]
            rows = [[english(c["label"]) for c in block["columns"]]]
            rows += [[fmt(cell, u) for cell, u in zip(row, units)] for row in block["rows"]]
        else:
            out += ["- " + _note(i) + _apply(i) for i in block["items"]] + [""]
            continue
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))] if rows else []
        out += [
            "  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows
        ]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def error_message(err: dict[str, Any]) -> str:
    """One precise line per field error: field, code, what was expected."""
    params = {k: (", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in err.items()}
    return f"{err['field']}: {err['code']} ({ERROR_CODES[err['code']].format(**params)})"


class InputError(ValueError):
    """Field errors found while reading the inputs (printed one per line, exit status 2)."""

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("; ".join(error_message(e) for e in errors))
        self.errors = errors


def _read_inputs(args: argparse.Namespace) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    if args.model_config:
        with open(args.model_config, "rb") as fh:
            taken, errors = hf_config.read(fh.read(hf_config.MAX_BYTES + 1))
        if errors:
            raise InputError(errors)
        inputs.update(taken)
    if args.input:  # on top of the model config: a file naming only seq_len keeps the config's dimensions
        text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
        given = json.loads(text)
        if not isinstance(given, dict):
            raise ValueError("the JSON input must be an object of field names and values")
        inputs.update(given)
    for pair in args.set or []:
        key, sep, val = pair.partition("=")
        if not sep:
            raise ValueError(f"--set expects key=value, got {pair!r}")
        inputs[key.strip()] = val
    return inputs


def stale_prices(argv: Sequence[str]) -> int:
    """List catalog prices whose as-of date is older than the age given; status 1 if any."""
    parser = argparse.ArgumentParser(prog="python -m calculators stale-prices", description=stale_prices.__doc__)
    parser.add_argument("--max-age-days", type=int, default=_prices.DEFAULT_MAX_AGE_DAYS, metavar="N")
    parser.add_argument(
        "--today",
        type=_prices.parse_date,
        default=None,
        metavar="YYYY-MM-DD",
        help="the date to measure age from (default: today)",
    )
    args = parser.parse_args(argv)
    problems = _prices.stale(args.max_age_days, args.today)
    for line in problems:
        print(line)
    if not problems:
        print(f"every price is at most {args.max_age_days} days old")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["stale-prices"]:
        return stale_prices(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m calculators", description=__doc__.split("\n\n")[0])
    parser.add_argument("calculator", help=f"one of: {', '.join(names())}, 'describe' or 'stale-prices'")
    parser.add_argument("name", nargs="?", help="with 'describe': the calculator to describe")
    parser.add_argument("--input", "-i", metavar="FILE", help="JSON object of inputs; '-' reads stdin")
    parser.add_argument("--set", "-s", action="append", metavar="KEY=VALUE", help="set one input (repeatable)")
    parser.add_argument(
        "--model-config",
        metavar="FILE",
        help=f"a Hugging Face config.json (model_type {', '.join(hf_config.MODEL_TYPES)}) "
        "giving the model's dimensions; --input and --set override its values",
    )
    parser.add_argument("--json", action="store_true", help="print the boundary JSON instead of tables")
    args = parser.parse_args(argv)
    if args.calculator == "describe":
        answer = describe(args.name)
        if answer.get("ok") is False:
            print("error: " + error_message(answer["errors"][0]), file=sys.stderr)
            return 2
        print(json.dumps(answer, indent=2, ensure_ascii=False))
        return 0
    try:
        inputs = _read_inputs(args)
    except InputError as exc:
        for err in exc.errors:
            print("error: " + error_message(err), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        print(f"error: input: {exc}", file=sys.stderr)
        return 2
    answer = compute(args.calculator, inputs)
    if args.json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    if not answer["ok"]:
        for err in answer["errors"]:
            print("error: " + error_message(err), file=sys.stderr)
        return 2
    if not args.json:
        sys.stdout.write(render(answer["result"]))
    return 0
