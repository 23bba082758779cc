// Writes a Pyodide memory snapshot of the calculators' runtime with the site's modules imported:
//   node snapshot.mjs PYODIDE_DIR TARGET MODULES WHEEL...
// MODULES is a space-separated list. Each wheel goes on sys.path at /home/pyodide/site-<i>.whl, where
// the browser's worker (calculator-worker.js) writes the same bytes again after restoring the snapshot:
// the modules imported here live in the snapshot's memory, the files they were read from do not.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [base, target, modules, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${base}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${base}/`, _makeSnapshot: true });
const sys = py.pyimport("sys");
wheels.forEach((wheel, i) => {
  const path = `/home/pyodide/site-${i}.whl`;
  py.FS.writeFile(path, readFileSync(wheel));
  sys.path.insert(i, path);
});
sys.destroy();
const importlib = py.pyimport("importlib");
for (const name of modules.split(" ").filter(Boolean)) importlib.import_module(name);
importlib.destroy();
writeFileSync(target, py.makeMemorySnapshot());
