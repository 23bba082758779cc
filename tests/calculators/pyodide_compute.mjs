// Runs calculators.compute in Pyodide under Node, from the site's own wheel: one JSON line per case.
// node pyodide_compute.mjs CASES.json WHEEL...  (cases: [{"name": ..., "inputs": {...}}, ...])
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [cases, ...wheels] = process.argv.slice(2);
const py = await loadPyodide();
// On sys.path as the archives they are, as calculator-worker.js puts them.
wheels.forEach((wheel, i) => {
  py.FS.writeFile(`/home/pyodide/site-${i}.whl`, new Uint8Array(readFileSync(wheel)));
  py.runPython(`import sys; sys.path.append('/home/pyodide/site-${i}.whl')`);
});
py.globals.set("cases_json", readFileSync(cases, "utf8"));
process.stdout.write(py.runPython(`
import json, sys, calculators
lines = [sys.version.split()[0]]
lines += [json.dumps(calculators.compute(case["name"], case["inputs"])) for case in json.loads(cases_json)]
"\\n".join(lines)
`) + "\n");
