// Runs calculators.compute in Pyodide under Node, from the site's own wheel: one JSON line per case.
// node pyodide_compute.mjs WHEEL CASES.json  (cases: [{"name": ..., "inputs": {...}}, ...])
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [wheel, cases] = process.argv.slice(2);
const py = await loadPyodide();
const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
py.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: sitePackages });
py.globals.set("cases_json", readFileSync(cases, "utf8"));
process.stdout.write(py.runPython(`
import json, sys, calculators
lines = [sys.version.split()[0]]
lines += [json.dumps(calculators.compute(case["name"], case["inputs"])) for case in json.loads(cases_json)]
"\\n".join(lines)
`) + "\n");
