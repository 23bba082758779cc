// The calculators' runtime as the build placed it for this page: its URLs are this script element's
// data attributes, read here and nowhere else. calculator.js starts the worker through spawn(), once
// the page has been painted, and again through it for a retry.
(() => {
  const own = document.currentScript.dataset;
  const absolute = (path) => new URL(path, location.href).href;
  const urls = {
    pyodide: absolute(own.pyodide),
    wheels: own.wheels.split(" ").map(absolute),
    modules: own.modules.split(" "),
    pack: absolute(own.pack),
    snapshot: own.snapshot ? absolute(own.snapshot) : "",   // none when the build had no Node.js
  };
  const spawn = () => new Worker(absolute(own.worker), { type: "module" });
  window.guideCalculatorBoot = { urls, spawn };
})();
