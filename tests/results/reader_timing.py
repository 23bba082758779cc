"""Times each reader of untrusted text on the hostile texts, in CPython and in Pyodide alike (the
Pyodide run calls `main`). Each entry: name -> [seconds, refused, first error code or message]."""

from __future__ import annotations

import json
import sys
import time

from .hostile_text import BAD_NUMBERS, COST_LINKS_ANSWERED, COST_LINKS_REFUSED, config_shapes, shapes, url_values

TRIES = 3  # a call over its budget is timed again (up to this many times in all), its best kept:
# a shared 2-core machine can stall any one call, but not a quadratic one's every try


def cpu_seconds() -> float:
    """This process's CPU time, not wall time: the suite's other workers share the cores. Pyodide's
    `time.process_time` is wall time, so there Node's own count is read."""
    if sys.platform == "emscripten":
        from js import process  # type: ignore[import-not-found]

        used = process.cpuUsage()
        return float(used.user + used.system) / 1e6
    return time.process_time()


def timed(budget: float, call, *args) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(TRIES):
        start = cpu_seconds()
        out = call(*args)
        best = min(best, cpu_seconds() - start)
        if best <= budget:
            break
    return best, out


def page_imports(texts: dict[str, str], pack: dict, budget: float) -> dict[str, list]:
    """What the worker does with a dropped file: its bytes to `import_result` (results and configs)."""
    from gpuguide.results import import_result

    out = {}
    for name, text in texts.items():
        seconds, answer = timed(budget, import_result, "memory", text.encode("utf-8"), pack)
        out[name] = [seconds, not answer["ok"], (answer["errors"] or [""])[0]]
    return out


def cli_configs(texts: dict[str, str], budget: float) -> dict[str, list]:
    """What `--model-config` (the CLI and the pilot) does with a file."""
    from calculators import hf_config

    out = {}
    for name, text in texts.items():
        seconds, (_, errors) = timed(budget, hf_config.read, text.encode("utf-8"))
        out[name] = [seconds, bool(errors), errors[0]["code"] if errors else ""]
    return out


def url_values_computed(values: dict[str, str], budget: float) -> dict[str, list]:
    """A number field's value as an address or a form sends it (a string) to the calculator."""
    import calculators

    out = {}
    for name, value in values.items():
        seconds, answer = timed(budget, calculators.compute, "memory", {"model": "custom", "layers": value})
        codes = [e["code"] for e in answer.get("errors", []) if e["field"] == "layers"]
        out[name] = [seconds, bool(codes), codes[0] if codes else ""]
    return out


# One cost answer from nothing (a shared link opened fresh): about 200 ms at most, for any input accepted.
COST_BUDGET = 0.25


def cost_links() -> dict[str, list]:
    """Each cost address answered from nothing (the kept plans and speeds dropped before every try):
    name -> [seconds, refused fields, error codes]."""
    import calculators
    from calculators import _cost_quote

    calculators.compute("cost", {})  # imports and the catalog, as a live page has them
    out = {}
    for name, inputs in {**{k: v for k, (v, _) in COST_LINKS_REFUSED.items()}, **COST_LINKS_ANSWERED}.items():
        best, answer = float("inf"), {}
        for _ in range(TRIES):
            _cost_quote.forget()
            start = cpu_seconds()
            answer = calculators.compute("cost", inputs)
            best = min(best, cpu_seconds() - start)
            if best <= COST_BUDGET:
                break
        errors = answer.get("errors", [])
        out[name] = [best, sorted({e["field"] for e in errors}), sorted({e["code"] for e in errors})]
    return out


def cost_link_faults(answers: dict[str, list]) -> dict[str, object]:
    """The cost addresses of `cost_links` answered wrongly or over COST_BUDGET ({} when none): a refused
    one must name its field with out_of_range, an accepted one must have no error."""
    faults: dict[str, object] = {}
    for name, (seconds, fields, codes) in answers.items():
        if name in COST_LINKS_REFUSED and (COST_LINKS_REFUSED[name][1] not in fields or codes != ["out_of_range"]):
            faults[name] = [fields, codes]
        elif name in COST_LINKS_ANSWERED and (fields or codes):
            faults[name] = [fields, codes]
        elif seconds > COST_BUDGET:
            faults[name] = round(seconds, 3)
    return faults


def hostile_url_values(size: int) -> dict[str, str]:
    return {**url_values(size), **{f"short {value!r}": value for value in BAD_NUMBERS}}


def run(pack: dict, results_size: int, config_size: int, url_size: int, budget: float) -> dict[str, dict[str, list]]:
    configs = config_shapes(config_size)
    return {
        "results": page_imports(shapes(results_size), pack, budget),
        "config-page": page_imports(configs, pack, budget),
        "config-cli": cli_configs(configs, budget),
        "url": url_values_computed(hostile_url_values(url_size), budget),
        "cost-links": cost_links(),
    }


def main(arg: str) -> str:
    """The Pyodide run's entry: `arg` is JSON {"pack", "results", "config", "url", "budget"} (sizes in
    bytes, the budget in seconds)."""
    a = json.loads(arg)
    return json.dumps(run(a["pack"], a["results"], a["config"], a["url"], a["budget"]))
