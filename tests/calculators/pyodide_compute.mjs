// Runs calculators.compute in Pyodide under Node, from the site's own wheel: one JSON line per case.
// node pyodide_compute.mjs WHEEL CASES.json  (cases: [{"name": ..., "inputs": {...}}, ...])
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [wheel, cases] = process.argv.slice(2);
const py = await loadPyodide();
// On sys.path as the archive it is, as calculator-worker.js puts it.
py.FS.writeFile("/home/pyodide/site-0.whl", new Uint8Array(readFileSync(wheel)));
py.runPython("import sys; sys.path.insert(0, '/home/pyodide/site-0.whl')");
py.globals.set("cases_json", readFileSync(cases, "utf8"));
process.stdout.write(py.runPython(`
import json, sys, calculators
lines = [sys.version.split()[0]]
lines += [json.dumps(calculators.compute(case["name"], case["inputs"])) for case in json.loads(cases_json)]
"\\n".join(lines)
`) + "\n");
