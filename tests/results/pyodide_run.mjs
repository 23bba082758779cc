// Calls a function of this checkout's Python inside Pyodide under Node, importing from the source
// tree itself (no wheel, no bytecode written into it):
//   node pyodide_run.mjs ROOT MODULE FUNCTION ARGFILE
// prints what MODULE.FUNCTION(text of ARGFILE) returns (a string).
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [root, module, fn, argFile] = process.argv.slice(2);
const py = await loadPyodide();
py.FS.mkdirTree("/checkout");
py.FS.mount(py.FS.filesystems.NODEFS, { root }, "/checkout");
py.globals.set("module_name", module);
py.globals.set("function_name", fn);
py.globals.set("argument", readFileSync(argFile, "utf8"));
process.stdout.write(py.runPython(`
import importlib, sys
sys.dont_write_bytecode = True
sys.path[:0] = ["/checkout", "/checkout/generator/src"]
getattr(importlib.import_module(module_name), function_name)(argument)
`) + "\n");
