// Every page's start-up, in a file rather than inline so the Content-Security-Policy can forbid
// inline script (script-src 'self', no hashes). It does what Material's inline snippets did
// (partials/javascripts/base.html, palette.html and content.html, overridden) and what generator/src/guidekit/theme/main.html adds:
// loading Material's bundle on the reader's first interaction, and registering the service worker.
// Loaded with `defer` from <head>: it runs once the page is parsed, before DOMContentLoaded, in the
// order the inline snippets ran; the template passes it the page's relative URLs as data attributes.
(() => {
  const own = document.currentScript.dataset;

  // Material's storage helpers, globals its bundle calls (keys are scoped to the site's root).
  window.__md_scope = new URL(own.scope, location);
  window.__md_hash = (value) => [...value].reduce((hash, char) => (hash << 5) - hash + char.charCodeAt(0), 0);
  window.__md_get = (key, storage = localStorage, scope = __md_scope) => JSON.parse(storage.getItem(scope.pathname + "." + key));
  window.__md_set = (key, value, storage = localStorage, scope = __md_scope) => {
    try {
      storage.setItem(scope.pathname + "." + key, JSON.stringify(value));
    } catch (error) {
      // storage full or denied: the preference is simply not kept
    }
  };

  // Material's palette snippet: the colour scheme the reader chose last (with a scheme toggle).
  const palette = __md_get("__palette");
  if (palette && palette.color) {
    if (palette.color.media === "(prefers-color-scheme)") {
      const light = matchMedia("(prefers-color-scheme: light)").matches;
      const input = document.querySelector(`[data-md-color-media='(prefers-color-scheme: ${light ? "light" : "dark"})']`);
      for (const key of ["media", "scheme", "primary", "accent"]) palette.color[key] = input.getAttribute("data-md-color-" + key);
    }
    for (const [key, value] of Object.entries(palette.color)) document.body.setAttribute("data-md-color-" + key, value);
  }

  // Material's content snippet: with content.tabs.link, reopen the tab the reader chose last...
  const features = JSON.parse(document.getElementById("__config").textContent).features || [];
  const tabs = __md_get("__tabs");
  if (features.includes("content.tabs.link") && Array.isArray(tabs)) {
    for (const set of document.querySelectorAll(".tabbed-set")) {
      const labels = [...(set.querySelector(".tabbed-labels")?.getElementsByTagName("label") ?? [])];
      const label = tabs.map((tab) => labels.find((l) => l.innerText.trim() === tab)).find(Boolean);
      if (label) document.getElementById(label.htmlFor).checked = true;
    }
  }
  // ...and open the tab the URL's fragment names. Only one of Material's own tab inputs: Material's
  // snippet set `checked` on whatever named element the fragment found, so #calc-memory-<field>
  // unticked a calculator's checkbox before the calculator read it.
  const target = document.getElementById(location.hash.slice(1));
  if (target && target.matches('.tabbed-set > input[type="radio"][name^="__tabbed_"]')) target.checked = true;

  // Material's bundle (search, the table of contents that follows the reader, the back-to-top
  // button, copy buttons) is not needed to read a page, and costs a phone several hundred ms of
  // main-thread time at load: it loads on the reader's first touch, key, focus, wheel, mouse move or
  // page scroll. It waits for DOMContentLoaded, which has passed by then: it is sent that event once
  // the script has run, then the focus and the keystroke that woke it (a tap on the search box, a
  // query typed before the script ran). The page is marked "js" at once, as the bundle would, so
  // the search box is there to be tapped.
  document.documentElement.classList.replace("no-js", "js");
  const events = ["pointerdown", "touchstart", "keydown", "focusin", "wheel", "mousemove"];
  // The page's own vertical scroll only. A box that scrolls itself at load (a wide table laid out
  // right to left) is no reader, and neither is the document: a phone's browser scrolls a right-to-left
  // page sideways at load while it settles the layout viewport (Material's off-screen drawer).
  const scrolled = () => { if (window.scrollY !== 0) start(); };
  const start = () => {
    events.forEach((type) => removeEventListener(type, start, true));
    removeEventListener("scroll", scrolled);
    const script = document.createElement("script");
    script.src = own.bundle;
    script.onload = () => {
      document.dispatchEvent(new Event("DOMContentLoaded"));
      const active = document.activeElement;
      if (active instanceof HTMLInputElement) {
        active.dispatchEvent(new FocusEvent("focus"));
        active.dispatchEvent(new KeyboardEvent("keyup"));
      }
    };
    document.body.append(script);
  };
  events.forEach((type) => addEventListener(type, start, { capture: true, passive: true }));
  addEventListener("scroll", scrolled, { passive: true });

  // The service worker (written by the build at the site root) caches the site for offline reading;
  // registered after load so it never competes with the page itself, and on a calculator's page once
  // the calculators are live (calculator.js says so), since the runtime's start outlasts the load.
  if ("serviceWorker" in navigator) {
    const register = () => navigator.serviceWorker.register(own.serviceWorker);
    if (document.querySelector("[data-guide-calc]")) document.addEventListener("guide:calculators-settled", register, { once: true });
    else addEventListener("load", register);
  }
})();
