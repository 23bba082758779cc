// Runs the calculators in Pyodide, off the page's main thread. Loaded only by pages that place a
// calculator. Every answer is produced by `guidekit.render.render`, the same Python the build used for the
// pre-rendered answer, so the page never formats a number or a message itself.

import { MessageType } from "./calculator-messages.js";

let ready = null;   // resolves to the Python render function once Pyodide is up
let render = null;
let importer = null;

async function fetched(url, read) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return read(response);
}

/** `loaded` (loadPyodide's promise), or its WebAssembly's failure as soon as Pyodide reports it.
 *  Pyodide catches a failed instantiation (the .wasm missing, refused or corrupt), reports it with
 *  console.warn("wasm instantiation failed!") and the error, and leaves loadPyodide pending for good:
 *  that warning is the only word of it, so it is watched for while the runtime loads. */
async function pyodideLoaded(loaded) {
  const warn = console.warn;
  let failed = false;
  const reported = new Promise((_, reject) => {
    console.warn = (...args) => {
      warn.apply(console, args);
      if (failed) reject(new Error(`pyodide.asm.wasm: ${args.map(String).join(" ")}`));
      failed ||= args[0] === "wasm instantiation failed!";   // the error itself comes next
    };
  });
  try {
    return await Promise.race([loaded, reported]);
  } finally {
    console.warn = warn;
  }
}

/** The runtime restored from the build's memory snapshot (generator/src/guidekit/runtime/snapshot.py), with
 *  the site's modules already imported, or null when there is none or it cannot be used: a failed
 *  download, or a Pyodide that refuses it. The wheels' files are written back where the snapshot's
 *  sys.path expects them, for the modules imported later (a dropped file's reader). */
async function restored(loadPyodide, base, snapshot, wheelBytes) {
  if (!snapshot) return null;
  try {
    const bytes = new Uint8Array(await snapshot);
    const py = await pyodideLoaded(loadPyodide({ indexURL: base, _loadSnapshot: bytes }));
    (await wheelBytes).forEach((wheel, i) => py.FS.writeFile(`/home/pyodide/site-${i}.whl`, new Uint8Array(wheel)));
    return py;
  } catch (error) {
    console.warn("Calculator snapshot not restored, so Python starts afresh:", error);
    return null;
  }
}

async function started(loadPyodide, base, wheelBytes) {
  const py = await pyodideLoaded(loadPyodide({ indexURL: base }));
  self.postMessage({ type: MessageType.PROGRESS, stage: "package" });
  // Each wheel goes on sys.path as it is, a zip archive that Python imports from (zipimport), with
  // the build's bytecode beside each module (generator/src/guidekit/runtime/bytecode.py). Unpacking its 150-odd files into
  // site-packages first took about 150 ms of every start. The snapshot's maker (snapshot.mjs) does the same.
  const sys = py.pyimport("sys");
  (await wheelBytes).forEach((bytes, i) => {
    const path = `/home/pyodide/site-${i}.whl`;
    py.FS.writeFile(path, new Uint8Array(bytes));
    sys.path.insert(i, path);
  });
  sys.destroy();
  return py;
}

async function start({ pyodide: base, wheels, modules, pack, snapshot: snapshotUrl }) {
  // The site's wheels (pure Python, no dependencies), the locale pack and the snapshot download while
  // the runtime starts, instead of after it.
  const wheelBytes = Promise.all(wheels.map((url) => fetched(url, (r) => r.arrayBuffer())));
  const packText = fetched(pack, (r) => r.text());
  // A reader who asked to save data starts without it: 5 MB more (brotli) before the page is live.
  const wanted = snapshotUrl && !navigator.connection?.saveData;
  const snapshot = wanted ? fetched(snapshotUrl, (r) => r.arrayBuffer()) : null;
  for (const pending of [wheelBytes, packText, snapshot]) pending?.catch(() => {});   // awaited below
  const { loadPyodide } = await import(base + "pyodide.mjs");
  self.postMessage({ type: MessageType.PROGRESS, stage: "runtime" });
  const py = (await restored(loadPyodide, base, snapshot, wheelBytes)) ?? (await started(loadPyodide, base, wheelBytes));
  self.postMessage({ type: MessageType.PROGRESS, stage: "modules" });
  // The Python side is generator/src/guidekit/render/worker.py, tested in CPython.
  const worker = py.pyimport("guidekit.render.worker");
  worker.start(modules.join(" "), await packText);
  importer = worker.import_result;
  return worker.render;
}

self.onmessage = async (event) => {
  const message = event.data;
  switch (message.type) {
    case MessageType.INIT:
      ready = start(message);
      try {
        render = await ready;
        self.postMessage({ type: MessageType.READY });
      } catch (error) {
        self.postMessage({ type: MessageType.START_FAILED, message: String(error && error.message || error) });
      }
      break;
    case MessageType.COMPUTE:
      try {
        await ready;
        const started = performance.now();
        const out = JSON.parse(render(message.name, JSON.stringify(message.inputs)));
        // The time Python took here, so benchmarks tell it apart from messaging and the page's work.
        const computeMs = performance.now() - started;
        self.postMessage({ type: MessageType.RESULT, id: message.id, name: message.name, computeMs, ...out });
      } catch (error) {
        self.postMessage({ type: MessageType.FAILED, id: message.id, message: String(error && error.message || error) });
      }
      break;
    case MessageType.WARM:
      // Once live, each calculator answers its defaults once while the reader reads: the first
      // answers of a fresh runtime take several times as long (first calls, WebAssembly still being
      // optimized), and a reader's first change would otherwise pay for it.
      await ready;
      for (const name of message.names) {
        try { render(name, "{}"); } catch (error) { console.warn("Calculator warm-up:", name, error); }
      }
      break;
    case MessageType.IMPORT:
      try {
        await ready;
        self.postMessage({ type: MessageType.READING, id: message.id });   // the page allows it longer
        const out = JSON.parse(importer(message.name, message.bytes, message.current ?? "null", Boolean(message.pasted)));
        self.postMessage({ type: MessageType.IMPORTED, id: message.id, name: message.name, ...out });
      } catch (error) {
        self.postMessage({ type: MessageType.FAILED, id: message.id, message: String(error && error.message || error) });
      }
      break;
    default:
      throw new TypeError(`Unknown message type: ${message.type}`);
  }
};
