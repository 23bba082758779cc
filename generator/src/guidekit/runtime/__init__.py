"""The browser runtime the build ships: Pyodide and the site's own wheel (`assets`), their bytecode compiled
by that Pyodide (`bytecode`), and what makes the site work offline and load once (`offline`: the service
worker, `sw.js`, and the precompressed copies)."""
