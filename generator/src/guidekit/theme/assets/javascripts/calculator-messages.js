// The closed set of messages between a calculator page (calculator.js) and its worker
// (calculator-worker.js), declared once: both import it. Each side switches on `type` and throws
// TypeError on any other. The service worker precaches this file with the rest of assets/javascripts/.

export const MessageType = Object.freeze({
  INIT: "init",         // page -> worker: {pyodide, wheels, pack, snapshot} absolute URLs; {modules} to import
  COMPUTE: "compute",   // page -> worker: {id, name, inputs}
  WARM: "warm",         // page -> worker: {names} answer each calculator's defaults once, unseen (see the worker)
  IMPORT: "import",     // page -> worker: {id, name, bytes} a pilot result file (Uint8Array, its buffer transferred)
  READING: "reading",   // worker -> page: {id} an IMPORT arrived and is being read (its answer may take longer)
  IMPORTED: "imported", // worker -> page: {id, name, ok, errors, inputs, html, summary}
  PROGRESS: "progress", // worker -> page: {stage}
  READY: "ready",       // worker -> page
  RESULT: "result",     // worker -> page: {id, name, computeMs, ok, html, summary, headline, errors, response}
  FAILED: "failed",     // worker -> page: {id, message} a Python error computing one answer or reading one file
  START_FAILED: "start-failed", // worker -> page: {message} the runtime did not start (the page retries once)
});
