// The site's service worker. The build (generator/src/guidekit/runtime/offline.py) writes it to the site root with this
// build's version and file lists, so its scope is the whole site wherever it is published.
// - Pages and the files every page needs are cached on install: the guide reads offline.
// - The calculators' runtime (Pyodide, the wheel, the locale packs) is cached when a calculator
//   page asks for it, so the next visit is live without the network.
// - One cache per build; a new build's worker deletes the old caches when it takes over.
// - Only this origin, only this scope: other requests go to the network untouched.
const VERSION = "__GUIDE_VERSION__";
const SHELL = __GUIDE_SHELL__;
const RUNTIME = __GUIDE_RUNTIME__;
const CACHE = `guide-${VERSION}`;

const inScope = (url) => url.startsWith(self.registration.scope);
const absolute = (paths) => paths.map((path) => new URL(path, self.registration.scope).href);

async function addMissing(paths) {
  const cache = await caches.open(CACHE);
  for (const url of absolute(paths)) {
    // Revalidated, so a new build never caches the previous build's copy from the HTTP cache.
    if (!(await cache.match(url, { ignoreVary: true }))) await cache.add(new Request(url, { cache: "no-cache" }));
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(addMissing(SHELL).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("guide-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  // Without the runtime's memory snapshot for a reader who asked to save data (the page starts without it).
  const saving = self.navigator.connection?.saveData;
  const runtime = saving ? RUNTIME.filter((path) => !path.endsWith(".pyodide-snapshot")) : RUNTIME;
  if (event.data && event.data.type === "cache-runtime") event.waitUntil(addMissing(runtime));
});

// Into this build's cache, unless a newer worker has deleted it: an old worker still finishing a
// request must not bring its cache back.
async function keep(request, response) {
  if (await caches.has(CACHE)) await (await caches.open(CACHE)).put(request, response);
}

// Pages: the network first (a new build shows at once), the cache when offline.
async function page(request) {
  const key = new URL(request.url);
  key.search = "";   // inputs in the query string do not make another page
  try {
    const response = await fetch(request);
    if (response.ok) await keep(key.href, response.clone());
    return response;
  } catch (error) {
    const cached = await caches.match(key.href, { cacheName: CACHE, ignoreVary: true });
    if (cached) return cached;
    throw error;
  }
}

// Lookups ignore Vary: the host varies on Accept-Encoding, but what is cached is the decoded body,
// and a worker's importScripts asks with other headers than the page.

// Everything else is fixed for a build: the cache first; what the network gives is kept.
async function asset(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true, ignoreVary: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await keep(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || !inScope(request.url)) return;
  if (url.pathname.endsWith("/sw.js")) return;
  event.respondWith(request.mode === "navigate" ? page(request) : asset(request));
});
