// Starts the calculators' worker from the <head>, before the page is parsed and laid out: Pyodide's
// download and compile are most of the wait for a live calculator, and they no longer wait for the
// page's own parsing, layout and scripts. calculator.js, a module that runs once the page is parsed,
// takes the worker over together with whatever it has said so far. The runtime's URLs are this script
// element's data attributes (the build's `runtime` for the page), read here and nowhere else.
(() => {
  const own = document.currentScript.dataset;
  const absolute = (path) => new URL(path, location.href).href;
  const urls = {
    pyodide: absolute(own.pyodide),
    wheels: own.wheels.split(" ").map(absolute),
    modules: own.modules.split(" "),
    pack: absolute(own.pack),
  };
  // A retry (calculator.js) spawns a fresh worker from the same script.
  const spawn = () => new Worker(absolute(own.worker), { type: "module" });
  const worker = spawn();
  const boot = { worker, urls, spawn, messages: [], errors: [] };
  worker.onmessage = ({ data }) => boot.messages.push(data);
  worker.onerror = (event) => boot.errors.push(event.message || "worker error");
  window.guideCalculatorBoot = boot;
  // The message types are declared once, in the module both sides import.
  import(absolute(own.messages)).then(({ MessageType }) => worker.postMessage({ type: MessageType.INIT, ...urls }));
})();
