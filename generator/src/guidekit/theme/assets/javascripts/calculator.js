// Makes the pre-rendered calculators live: reads the form, asks the worker (Pyodide) for the
// answer, shows it, keeps the inputs in the URL and in the language switcher's links.
// The form and every message come from the Python declarations; nothing here knows a field.

import { MessageType } from "./calculator-messages.js";
import { updateCarryLinks } from "./calculator-carry.js";
import { delocalize, localize, numberSymbols } from "./calculator-numbers.js";

const DEBOUNCE_MS = 120;
// The busy sign ("Updating…" and its spinner) appears only once an answer takes longer than this. A
// quick answer replaces the old one without a flash, and the page paints nothing while the worker
// computes: on a machine with few cores that painting took the CPU from the computation.
const BUSY_SHOWN_AFTER_MS = 300;
// A stage of the runtime's start (Pyodide's download and compile, the wheels, the modules) that makes
// no progress for this long is given up and tried once more in a fresh worker: loadPyodide never
// settles when its WebAssembly is missing.
const START_STALL_MS = 60_000;
const START_ATTEMPTS = 2;
// Once live, the worker answers each request within this long, or it is taken for stopped (dead, or
// stuck): an answer takes tens of milliseconds, a few hundred on a slow phone. Counted from the
// request, or from the worker's last answer while earlier requests were ahead of it in its queue.
const ANSWER_DEADLINE_MS = 6_000;
// Reading a file (up to 5 MB of JSON to check) may take longer: this long from the worker saying it
// has the file; saying so is an ordinary request, answered within the deadline above.
const READING_DEADLINE_MS = 30_000;
// A deadline timer that fires this much later than asked means the page itself was asleep (a closed
// laptop) or throttled, not that the worker is stuck: it gets its time again.
const LATE_TIMER_MS = 1_000;

/** The inputs of a form as the calculators' boundary takes them (strings, lists, "true"/"false"):
 *  as shown, or with `asBuilt` the defaults the build rendered into the markup, whatever a script or
 *  the browser's form restoration did to the controls since. */
function readForm(form, asBuilt = false) {
  const checked = (box) => (asBuilt ? box.defaultChecked : box.checked);
  const valueOf = (control) => {
    if (!asBuilt) return control.value;
    if (control instanceof HTMLSelectElement) {
      return ([...control.options].find((o) => o.defaultSelected) ?? control.options[0]).value;
    }
    return control.defaultValue;
  };
  const values = {};
  for (const field of form.querySelectorAll("[data-field]")) {
    const name = field.dataset.field;
    const boxes = field.querySelectorAll('input[type="checkbox"]');
    if (field.classList.contains("guide-field--multichoice")) {
      values[name] = [...boxes].filter(checked).map((b) => b.value);
    } else if (field.classList.contains("guide-field--bool")) {
      values[name] = checked(boxes[0]) ? "true" : "false";
    } else if (isNumberField(field)) {
      values[name] = delocalize(valueOf(field.querySelector("input")), numberSymbols(form));
    } else {
      values[name] = valueOf(field.querySelector("input, select"));
    }
  }
  return values;
}

/** The arrow keys step a number field, as they did a type=number control: by its declared step
 *  (1 without one), kept within its range, with an input and a change event as that control sent. */
function stepNumber(event, form) {
  if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
  const input = event.target, field = input.closest("[data-field]");
  if (!field || !isNumberField(field) || input.disabled) return;
  const symbols = numberSymbols(form);
  const current = delocalize(input.value, symbols);
  if (!PLAIN_NUMBER.test(current)) return;     // text Python will refuse stays as typed
  const step = Number(input.dataset.step), decimals = (s) => (String(s).split(".")[1] || "").length;
  let next = Number(current) + (event.key === "ArrowUp" ? step : -step);
  next = Number(next.toFixed(Math.min(15, Math.max(decimals(step), decimals(Number(current))))));
  if (input.dataset.min !== undefined) next = Math.max(next, Number(input.dataset.min));
  if (input.dataset.max !== undefined) next = Math.min(next, Number(input.dataset.max));
  event.preventDefault();
  input.value = localize(next, symbols);
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
}

/** A number field: shown in the locale's form, read and kept in the address as ASCII. */
function isNumberField(field) {
  return field.classList.contains("guide-field--int") || field.classList.contains("guide-field--float");
}

/** Put values (from the URL or from the worker's normalized inputs) back into the form; returns the
 *  names written. */
function writeForm(form, values, skip) {
  const written = [];
  for (const field of form.querySelectorAll("[data-field]")) {
    const name = field.dataset.field;
    if (!Object.hasOwn(values, name) || field.contains(skip)) continue;
    written.push(name);
    const value = values[name];
    if (field.classList.contains("guide-field--multichoice")) {
      const chosen = Array.isArray(value) ? value : String(value).split(",").filter(Boolean);
      field.querySelectorAll("input").forEach((b) => { b.checked = chosen.includes(b.value); });
    } else if (field.classList.contains("guide-field--bool")) {
      field.querySelector("input").checked = value === true || value === "true";
    } else if (isNumberField(field)) {
      field.querySelector("input").value = localize(value, numberSymbols(form));
    } else {
      field.querySelector("input, select").value = String(value);
    }
  }
  return written;
}

/** The page's inputs in the URL, as written: the calculators' own validator judges them, not this
 *  script ("yes" is true, "abc" is not a number, whatever a form control would make of them). A key
 *  that names no field is ignored, "constructor" and "__proto__" too (own names of `names` only); a
 *  multichoice field's repeated key adds to its list ("q" then "k" is "q,k", as the address writes it). */
function urlInputs(form, names) {
  const lists = new Set([...form.querySelectorAll(".guide-field--multichoice")].map((f) => f.dataset.field));
  const values = {};
  for (const [name, value] of new URLSearchParams(location.search)) {
    if (!Object.hasOwn(names, name)) continue;
    values[name] = lists.has(name) && Object.hasOwn(values, name) ? `${values[name]},${value}` : value;
  }
  return values;
}

/** The address's keys that no calculator on the page has: a link cut short where it was shared (a chat
 *  app that stops at "&meth"), or mistyped. `h` is Material's search highlight, the theme's own. */
function strangeKeys() {
  const known = new Set([...document.querySelectorAll("[data-field]")].map((field) => field.dataset.field));
  known.add("h");
  return [...new Set(new URLSearchParams(location.search).keys())].filter((key) => !known.has(key));
}

/** Say which of the address's keys were not understood, each isolated (text from outside, any
 *  direction) and clipped, at most five: the rest of the link still applies. */
function showStrangeKeys(note, keys) {
  if (!note || !keys.length) return;
  const [before, after = ""] = note.dataset.text.split("{names}");
  const shown = keys.slice(0, 5).map((key) => (key.length > 40 ? `${key.slice(0, 40)}…` : key || "="));
  if (keys.length > 5) shown.push("…");
  // Joined as the page's language joins a list ("a、b", «a وb»), each name in its own <bdi>.
  const parts = new Intl.ListFormat(document.documentElement.lang || "en").formatToParts(shown);
  const names = parts.map((part) => {
    if (part.type === "literal") return part.value;
    const isolated = document.createElement("bdi");
    isolated.textContent = part.value;
    return isolated;
  });
  note.replaceChildren(before, ...names, after);
  note.hidden = false;
}

/** Grey out the inputs that the current choices make irrelevant (declared as `only_when`). */
function applyConditions(form) {
  const values = readForm(form);
  for (const field of form.querySelectorAll("[data-only-when]")) {
    const active = field.dataset.onlyWhenValues.split(" ").includes(String(values[field.dataset.onlyWhen]));
    field.querySelectorAll("input, select").forEach((el) => { el.disabled = !active; });
    field.classList.toggle("guide-field--inactive", !active);
  }
}

// A number as Python and JavaScript print one: "0.0", "4", "1e-05".
const PLAIN_NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

function sameValue(a, b) {
  // The pre-rendered form writes Python's "0.0" where a filled one holds "0": the same default. Only
  // printed numbers compare as numbers: "+4", "0x4" or " 4" is the reader's own text, for Python to
  // judge, and stays in the address even where Number() reads it as the default.
  if (typeof a === "string" && typeof b === "string" && PLAIN_NUMBER.test(a) && PLAIN_NUMBER.test(b)) {
    return Number(a) === Number(b);
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether any input differs from the defaults. */
function differs(values, defaults) {
  return Object.entries(values).some(([name, value]) => !sameValue(value, defaults[name]));
}

/** Query string holding every input that differs from the defaults, and every one Python refused, as
 *  written (a refused "4.0" must not pass for the default 4). */
function queryFor(values, defaults, refused = new Set()) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (!refused.has(name) && sameValue(value, defaults[name])) continue;
    params.set(name, Array.isArray(value) ? value.join(",") : value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The language switcher leads to the same page in another locale; carry the inputs along. */
function carryQueryToAlternates(query) {
  for (const link of document.querySelectorAll(".md-select__link[hreflang]")) {
    const url = new URL(link.getAttribute("href"), location.href);
    url.search = query;
    link.setAttribute("href", url.href);
  }
}

/** Open every fold (`<details>`) holding `element`. */
function openFolds(element) {
  for (let fold = element.closest("details"); fold; fold = fold.parentElement.closest("details")) fold.open = true;
}

/** A field's default as its control shows it: the menu's wording, the boxes' labels, yes or no. */
function defaultText(field, note) {
  const boxes = [...field.querySelectorAll('input[type="checkbox"]')];
  if (field.classList.contains("guide-field--multichoice")) {
    const labels = boxes.filter((b) => b.defaultChecked).map((b) => b.parentElement.textContent.trim());
    return new Intl.ListFormat(document.documentElement.lang || undefined, { type: "conjunction" }).format(labels);
  }
  if (field.classList.contains("guide-field--bool")) return boxes[0].defaultChecked ? note.dataset.yes : note.dataset.no;
  const control = field.querySelector("input, select");
  if (control instanceof HTMLSelectElement) {
    return ([...control.options].find((o) => o.defaultSelected) ?? control.options[0]).textContent.trim();
  }
  return control.defaultValue;
}

class Calculator {
  constructor(root, runtime) {
    this.root = root;
    this.name = root.dataset.guideCalc;
    this.form = root.querySelector("form");
    this.output = root.querySelector(".guide-calc__output");
    this.result = root.querySelector(".guide-calc__result");
    this.live = root.querySelector(".guide-calc__live");
    this.headline = root.querySelector(".guide-calc__headline");
    this.forDefaults = root.querySelector(".guide-calc__for-defaults");
    this.staleNote = root.querySelector(".guide-calc__stale");
    this.status = root.querySelector(".guide-calc__status");
    this.statusText = root.querySelector(".guide-calc__status-text");
    this.restartButton = root.querySelector(".guide-calc__restart");
    this.runtime = runtime;
    this.latest = 0;
    this.pending = false;
    this.refused = new Set();         // the fields Python refused in the latest answer
    // The defaults as the build rendered them, not as the controls hold them now: another script (a
    // tab restored from the URL's fragment) or the browser's form restoration may have changed those,
    // and the pre-rendered answer is the markup's.
    this.defaults = readForm(this.form, true);
    // Each URL value stands for its field, sent to Python as written, until Python accepts it (its
    // normalized value then fills the field) or the reader edits the field. A refused one stays, so
    // its error stays the true one ("abc" is not a number, where the emptied control reads "").
    this.fromUrl = urlInputs(this.form, this.defaults);
    showStrangeKeys(root.querySelector(".guide-calc__link-note"), strangeKeys());
    // An explicit action (a shared link's values, leaving a field) brings its first error into view;
    // typing does not, so the page does not jump under the reader's fingers.
    this.reveal = Object.keys(this.fromUrl).length > 0;
    writeForm(this.form, this.fromUrl);   // shown at once, as well as the controls can hold them
    this.pending = differs(this.inputs(), this.defaults);   // the pre-rendered answer is the defaults'
    this.markAnswer(this.pending ? "default" : "current");
    if (this.pending) this.setState("stale");
    applyConditions(this.form);
    this.syncUrl(this.inputs());
    // Typing waits for a pause; a committed change (a choice, a box, an arrow step, leaving a field)
    // is computed at once.
    // The address follows each edit at once, not after the debounce: a reload within it kept the old
    // address and lost the edit (the fields opt out of the browser's form restoration).
    this.form.addEventListener("input", (event) => { this.edited(event); applyConditions(this.form); this.syncUrl(this.inputs()); this.schedule(); });
    this.form.addEventListener("change", (event) => { this.reveal = true; this.edited(event); applyConditions(this.form); clearTimeout(this.timer); this.compute(); });
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.form.addEventListener("keydown", (event) => stepNumber(event, this.form));
    this.restartButton.addEventListener("click", () => {
      // The button goes away; the keyboard's place stays with the answer, whose status says what follows.
      this.output.focus({ preventScroll: true });
      this.runtime.restart();
    });
    this.setUpImport();
    this.setUpShare();
    // The error summary's links (guidekit.render) lead to their field, through any fold holding it.
    this.result.addEventListener("click", (event) => {
      // A fix the answer offers (a note's button, guidekit.render): its inputs into the form, then the answer for them.
      const fix = event.target.closest("button[data-inputs]");
      if (fix) {
        this.reveal = true;
        this.take(JSON.parse(fix.dataset.inputs));
        return;
      }
      const link = event.target.closest("a[data-error-for]");
      if (!link) return;
      const field = this.form.querySelector(`[data-field="${CSS.escape(link.dataset.errorFor)}"]`);
      if (!field) return;
      event.preventDefault();
      openFolds(field);
      field.querySelector("input:not([type=hidden]), select")?.focus();
    });
  }

  /** A pilot result or a model's config.json, picked, dropped or pasted, goes to the worker as bytes;
   *  nothing is uploaded. */
  setUpImport() {
    const zone = this.root.querySelector("[data-drop-zone]");
    if (!zone) return;
    this.importPanel = zone.querySelector(".guide-calc__import-result");
    const picker = this.picker = zone.querySelector('input[type="file"]');
    const limit = Number(zone.dataset.importMax);   // gpuguide.results.MAX_BYTES, rendered by the build
    this.refusals = JSON.parse(zone.dataset.refusals);  // gpuguide.results.page_refusals()
    const shown = zone.querySelector(".guide-calc__file-name");
    // The chosen file's name in the page's own sentence ("Chosen: {name}"), isolated: a name is
    // text from outside and may run in the other direction.
    const showName = (name) => {
      const [before, after = ""] = shown.dataset.chosen.split("{name}");
      const isolated = document.createElement("bdi");
      isolated.textContent = name;
      shown.replaceChildren(before, isolated, after);
    };
    const take = async (file) => {
      if (!file) return;
      showName(file.name);
      // Size first, from the file's metadata: a bigger file is refused without a byte of it read.
      if (file.size > limit) { this.refuse("too_large"); return; }
      // Bytes, not file.text(): decoding is Python's, so a BOM or bad UTF-8 is reported, not hidden.
      try {
        this.importBytes = new Uint8Array(await file.arrayBuffer());
      } catch {
        this.refuse("unreadable");   // the file went away, or the browser may not read it
        return;
      }
      this.sendImport(false);
    };
    picker.addEventListener("change", () => take(picker.files[0]));
    zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.dataset.dragging = "true"; });
    zone.addEventListener("dragleave", () => { delete zone.dataset.dragging; });
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      delete zone.dataset.dragging;
      take(event.dataTransfer.files[0]);
    });
    // A config.json copied from a model page can be pasted while the box has focus.
    zone.addEventListener("paste", (event) => {
      const file = event.clipboardData.files[0];
      const text = event.clipboardData.getData("text");
      if (!file && !text) return;
      event.preventDefault();
      if (file) { take(file); return; }
      shown.textContent = shown.dataset.pasted;
      // UTF-8 takes at least a byte per UTF-16 unit, so a long text is refused before it is encoded.
      const bytes = text.length > limit ? null : new TextEncoder().encode(text);
      if (!bytes || bytes.byteLength > limit) { this.refuse("too_large"); return; }
      this.importBytes = bytes;
      this.sendImport(true);
    });
  }

  /** One of the answers the build rendered into the drop zone (`page_refusals`), shown at once. */
  refuse(reason) {
    this.importBytes = undefined;
    this.importId = undefined;            // an earlier file's answer, still on its way, no longer applies
    const detail = { ...this.refusals[reason], name: this.name };
    this.importPanel.innerHTML = detail.html;   // built in Python, which escapes every value
    this.importPanel.dataset.ok = "false";
    this.root.dispatchEvent(new CustomEvent("guide:imported", { detail }));
  }

  /** The worker stopped before it read the file (or the file came while it was stopped): the page's
   *  own sentence, rendered by the build beside the panel. */
  importStopped() {
    this.importBytes = undefined;
    this.importId = undefined;
    const line = this.importPanel.dataset.stopped;
    const alert = document.createElement("div");
    alert.className = "guide-import guide-import--invalid";
    alert.setAttribute("role", "alert");
    alert.appendChild(document.createElement("p")).textContent = line;
    this.importPanel.replaceChildren(alert);
    this.importPanel.dataset.ok = "false";
    this.picker.value = "";   // the same file, chosen again, is then a change
    const detail = { name: this.name, ok: false, errors: [line], inputs: {} };
    this.root.dispatchEvent(new CustomEvent("guide:imported", { detail }));
  }

  /** `pasted`: the bytes are pasted text, which the answer calls text, not a file. */
  sendImport(pasted = this.importPasted ?? false) {
    this.importPasted = pasted;   // kept until sent: the runtime may not be live yet
    if (this.importBytes === undefined) return;
    if (this.startFailed) { this.refuse("no_runtime"); return; }
    if (this.stopped) { this.importStopped(); return; }
    if (!this.ready) return;              // sent again from onReady()
    const bytes = this.importBytes;
    this.importBytes = undefined;
    this.importId = `${this.name}:import:${Date.now()}`;
    // The buffer moves to the worker instead of being copied: the page keeps no second copy of the file.
    // The form goes along: the panel lists what the file would change in it before anything changes.
    const current = JSON.stringify(this.inputs());
    const message = { type: MessageType.IMPORT, id: this.importId, name: this.name, bytes, current, pasted };
    this.importPasted = false;
    this.runtime.post(message, [bytes.buffer]);
  }

  onImported(message) {
    if (message.id !== this.importId) return;
    // Built in Python, which escapes every value; a refusal's panel lists every error (tests/results).
    this.importPanel.innerHTML = message.html;
    this.importPanel.dataset.ok = String(message.ok);
    const asked = this.importPanel.querySelector(".guide-import__changes");
    if (message.ok && asked) {
      // The file would change the reader's job: nothing changes until they choose.
      const settle = (apply) => {
        if (apply) this.take(message.inputs);
        const said = document.createElement("p");
        said.className = "guide-import__note";
        said.setAttribute("role", "status");
        said.textContent = apply ? asked.dataset.applied : asked.dataset.kept;
        asked.replaceWith(said);
        this.picker.value = "";   // the same file, chosen again (a reader who changed their mind), is a change
        this.root.dispatchEvent(new CustomEvent("guide:import-settled", { detail: { applied: apply } }));
      };
      asked.querySelector(".guide-import__apply").addEventListener("click", () => settle(true), { once: true });
      asked.querySelector(".guide-import__keep").addEventListener("click", () => settle(false), { once: true });
    } else if (message.ok) {
      this.take(message.inputs);
    }
    this.root.dispatchEvent(new CustomEvent("guide:imported", { detail: message }));
  }

  /** A file's inputs into the form, and the answer for them. */
  take(inputs) {
    this.fill(inputs);
    applyConditions(this.form);
    this.compute();
  }

  /** Which inputs the answer on screen belongs to. "current": the form's (or a request for them is on
   *  its way). "default": the pre-rendered answer while the form shows other inputs (from the URL, or
   *  edited before the runtime started): the headline is hidden and the result says whose it is.
   *  "stale": an earlier live answer, kept while the form shows inputs the runtime stopped before
   *  answering: the headline stays, marked out of date, and a note beside the answer says so.
   *  "none": computing the form's inputs failed, so no number is shown at all. */
  markAnswer(kind) {
    this.root.dataset.answer = kind;
    // Kept in view whatever it answers, marked "Out of date" (guide.css) when it is not the form's.
    this.headline.hidden = kind === "none";
    this.forDefaults.hidden = kind !== "default";
    if (kind === "default") this.nameDefaults();
    this.staleNote.hidden = kind !== "stale";
    this.result.hidden = kind === "none";
    // Said again when the keyboard reaches the answer's region.
    if (kind === "stale") this.output.setAttribute("aria-describedby", this.staleNote.id);
    else this.output.removeAttribute("aria-describedby");
  }

  /** The runtime could not start, for good: a file waiting for it, or picked later, is answered. A
   *  restart that could not start leaves the calculator stopped, with its restart offered again. */
  onStartFailed() {
    if (this.wasLive) { this.onStopped(new Set()); return; }
    this.startFailed = true;
    this.setState("failed");
    const waiting = this.form.querySelector(".guide-calc__waiting");
    waiting.textContent = waiting.dataset.failed;
    this.sendImport();
  }

  /** The worker stopped answering (see Runtime): an answer still being computed is out of date, a
   *  file being read gets no answer, and the form is computed again once the runtime restarts. */
  onStopped(waiting) {
    this.ready = false;
    this.stopped = true;
    this.pending = true;
    // The inputs it stopped on, when an answer was being computed: a restart shows where they were set.
    this.stoppedOn = waiting.has(`${this.name}:${this.latest}`) ? this.inputs() : null;
    if (waiting.has(`${this.name}:${this.latest}`) && this.root.dataset.answer === "current") this.markAnswer("stale");
    if (waiting.has(this.importId) || this.importBytes !== undefined) this.importStopped();
    this.setState("stopped");
  }

  /** The reader asked for a fresh worker. */
  onRestarting() {
    this.stopped = false;
    this.setState("loading");
    // The same inputs go to the fresh worker. If they were what stopped the old one, the reader needs
    // them in view: every field set away from its default comes out of its fold (a shared link's
    // values often sit in "More options").
    if (this.stoppedOn) {
      for (const [name, value] of Object.entries(this.stoppedOn)) {
        const field = this.form.querySelector(`[data-field="${CSS.escape(name)}"]`);
        if (field && !sameValue(value, this.defaults[name])) openFolds(field);
      }
      this.stoppedOn = null;
    }
  }

  /** A Python error while computing this calculator's answer or reading its file (the runtime is up). */
  onFailed(message) {
    const computing = message.id === `${this.name}:${this.latest}`;
    if (!computing && !(message.id && message.id === this.importId)) return;
    if (computing) this.markAnswer("none");
    this.setState("error");
  }

  /** Every field with an error out of its fold; after an explicit action, the first one in view. */
  showErrors(errors) {
    const fields = errors.map((e) => this.form.querySelector(`[data-field="${CSS.escape(e.field)}"]`)).filter(Boolean);
    fields.forEach(openFolds);
    if (this.reveal && fields.length) {
      const first = fields.find((f) => fields.every((g) => f === g || f.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_FOLLOWING));
      first.scrollIntoView({ block: "nearest" });
    }
    this.reveal = false;
  }

  /** The pre-rendered answer is the defaults': say which, for each input the form shows otherwise
   *  ("micro-batch: 4, method: LoRA"), in the field's own label and menu wording. */
  nameDefaults() {
    const note = this.forDefaults;
    const inputs = this.inputs();
    const items = [];
    for (const field of this.form.querySelectorAll("[data-field]")) {
      const name = field.dataset.field;
      if (sameValue(inputs[name], this.defaults[name])) continue;
      const label = field.querySelector("legend, label:not(:has(input))") ?? field.querySelector("label");
      const labelText = [...label.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("").trim();
      items.push(note.dataset.item.replace("{label}", labelText).replace("{value}", defaultText(field, note)));
    }
    if (!items.length) return;
    const list = new Intl.ListFormat(document.documentElement.lang || undefined, { type: "unit" }).format(items);
    note.textContent = note.dataset.named.replace("{inputs}", list);
  }

  /** A button that copies the address, which holds the form's inputs (see syncUrl). */
  setUpShare() {
    const share = this.root.querySelector(".guide-calc__share");
    if (!share) return;
    const button = share.querySelector(".guide-calc__copy-link");
    const field = share.querySelector(".guide-calc__link-field");
    const said = share.querySelector(".guide-calc__copied");
    const say = (text) => { said.textContent = ""; requestAnimationFrame(() => { said.textContent = text; }); };
    // Where the clipboard cannot be written (no API, an insecure page, a refusal), the address is
    // offered selected in a read-only field, for the reader's own copy.
    const offer = () => {
      field.value = location.href;
      field.hidden = false;
      field.focus();
      field.select();
      say(said.dataset.select);
    };
    button.addEventListener("click", () => {
      field.hidden = true;
      if (!navigator.clipboard?.writeText) { offer(); return; }
      navigator.clipboard.writeText(location.href).then(() => say(said.dataset.copied), offer);
    });
    share.hidden = false;
  }

  /** The reader's edit replaces the URL's value for that field. */
  edited(event) {
    const field = event.target.closest("[data-field]");
    if (!field) return;
    this.lastField = field;
    delete this.fromUrl[field.dataset.field];
    this.refused.delete(field.dataset.field);
  }

  /** Write values into the form; the fields written no longer follow the URL. */
  fill(values, skip) {
    for (const name of writeForm(this.form, values, skip)) delete this.fromUrl[name];
  }

  /** The address (and the language switcher's links) hold the inputs that differ from the defaults. */
  syncUrl(inputs) {
    const query = queryFor(inputs, this.defaults, this.refused);
    if (query !== location.search) history.replaceState(null, "", location.pathname + query + location.hash);
    carryQueryToAlternates(query);
    updateCarryLinks(this.root, inputs, queryFor);
  }

  /** What the calculators receive: the form, with the URL's values not yet accepted or edited. */
  inputs() {
    return { ...readForm(this.form), ...this.fromUrl };
  }

  /** `data-state` says at once what the calculator is doing (tests and scripts read it; no style
   *  depends on it); `data-shown` is what the reader sees, which lags behind for a quick answer. */
  setState(state) {
    this.status.dataset.state = state;
    this.restartButton.hidden = state !== "stopped";
    clearTimeout(this.showTimer);
    const show = () => {
      this.status.dataset.shown = state;
      const text = this.statusText.dataset[state];
      if (text) this.statusText.textContent = text;
    };
    if (state === "stale" && this.status.dataset.shown === "ready") this.showTimer = setTimeout(show, BUSY_SHOWN_AFTER_MS);
    else show();
  }

  schedule() {
    this.changed = true;              // the form holds edits no request has carried yet
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.compute(), DEBOUNCE_MS);
  }

  compute() {
    this.changed = false;
    const inputs = this.inputs();
    if (!this.ready) {
      this.syncUrl(inputs);           // once live, the address follows each answer (see onResult)
      this.pending = true;            // computed as soon as the worker is ready
      // Before the first start the answer shown is the defaults'; after a stop, an earlier live one.
      if (!this.wasLive) this.markAnswer(differs(inputs, this.defaults) ? "default" : "current");
      else if (this.root.dataset.answer === "current") this.markAnswer("stale");
      if (!this.wasLive) this.showWaiting();
      return;
    }
    this.setState("stale");
    this.latest += 1;
    // What was asked, for whatever listens (the browser tests keep it beside the answer, guide:result).
    this.root.dispatchEvent(new CustomEvent("guide:compute", { detail: { inputs } }));
    this.runtime.post({ type: MessageType.COMPUTE, id: `${this.name}:${this.latest}`, name: this.name, inputs });
  }

  /** While the runtime starts, say so under the field the reader changed (on a phone the status line is
   *  a screen or more below); a failed start is said there too. */
  showWaiting() {
    const waiting = this.form.querySelector(".guide-calc__waiting");
    if (this.startFailed) waiting.textContent = waiting.dataset.failed;
    const moved = this.lastField && waiting.previousElementSibling !== this.lastField;
    if (moved) this.lastField.after(waiting);
    if (moved || waiting.hidden) {
      waiting.hidden = false;
      // Brought just into view (the field sat at the screen's edge), once per field, not on every key.
      waiting.scrollIntoView({ block: "nearest", behavior: "instant" });
    }
  }

  onReady() {
    this.form.querySelector(".guide-calc__waiting").hidden = true;
    this.ready = true;
    this.wasLive = true;
    this.setState("ready");
    this.sendImport();
    if (this.pending) {
      this.pending = false;
      this.compute();
    }
  }

  onResult(message) {
    if (message.id !== `${this.name}:${this.latest}`) return;   // a newer change is on its way
    this.result.innerHTML = message.html;   // built in Python, which escapes every value
    this.result.dataset.ok = String(message.ok);
    this.live.textContent = message.summary;
    this.headline.textContent = message.headline;   // the verdict's short form; the whole sentence is in the result
    this.markAnswer("current");
    for (const field of this.form.querySelectorAll("[data-field]")) {
      const error = message.errors.find((e) => e.field === field.dataset.field);
      const slot = field.querySelector(".guide-field__error");
      slot.textContent = error ? error.message : "";
      slot.hidden = !error;
      field.querySelectorAll("input, select").forEach((el) => {
        if (error) el.setAttribute("aria-invalid", "true"); else el.removeAttribute("aria-invalid");
      });
    }
    this.refused = new Set(message.errors.map((e) => e.field));
    this.showErrors(message.errors);
    // Normalized values go back into the form, unless the reader changed it since this request:
    // a slow answer arriving within the debounce would otherwise undo those changes. After a refusal,
    // only the URL's values that Python accepted are written; the rest of the form is the reader's.
    if (!this.changed) {
      const accepted = message.response.accepted || {};
      const urlNames = Object.keys(this.fromUrl);
      const fromUrl = Object.fromEntries(urlNames.filter((n) => Object.hasOwn(accepted, n)).map((n) => [n, accepted[n]]));
      this.fill(message.ok ? message.response.inputs : fromUrl, document.activeElement);
    }
    // After the answer, not with the request: the browser's work for a new address would otherwise
    // run beside the computation. A value Python ignored (a greyed-out field's) leaves the address.
    applyConditions(this.form);
    this.syncUrl(this.inputs());
    this.setState("ready");
    this.root.dispatchEvent(new CustomEvent("guide:result", { detail: message }));
  }
}

/** The worker that runs the calculators: started once the page is painted (a failed start is tried
 *  once more in a fresh worker), started again when the reader asks after it stopped. It carries each
 *  request and notices a worker that stops answering, whether the browser ended it, it crashed or it
 *  is stuck: each request is answered within its deadline, or the worker is let go. */
class Runtime {
  constructor(boot) {
    this.boot = boot;
    this.calculators = [];
    this.worker = null;
    this.waiting = new Map();   // id -> deadline (ms), for each request not answered yet, oldest first
  }

  start() {
    this.attempts = 0;
    this.started = false;
    this.launch();
  }

  restart() {
    this.calculators.forEach((c) => c.onRestarting());
    this.start();
  }

  launch() {
    this.attempts += 1;
    const current = this.boot.spawn();   // a retry gets a fresh worker
    this.worker = current;
    current.onmessage = ({ data }) => { if (current === this.worker) this.handle(data); };
    // Before the start: the worker script failed to load or evaluate. After: an error the worker did
    // not catch, or a message it sent that cannot be read; either way an answer may never come.
    current.onerror = (event) => { if (current === this.worker) this.failed(event.message || "worker error"); };
    current.onmessageerror = () => { if (current === this.worker) this.failed("unreadable message"); };
    this.armStart();
    current.postMessage({ type: MessageType.INIT, ...this.boot.urls });
  }

  failed(why) {
    if (this.started) this.stopped(why);
    else this.startFailed(why);
  }

  armStart() {
    clearTimeout(this.startTimer);
    this.startTimer = setTimeout(() => this.startFailed("no progress"), START_STALL_MS);
  }

  /** Could not start is not "this computation failed": a fresh worker gets one more try, then every
   *  calculator says the runtime could not start and keeps its answer marked. */
  startFailed(why) {
    clearTimeout(this.startTimer);
    console.warn(`Calculator runtime: start ${this.attempts} of ${START_ATTEMPTS} failed:`, why);
    this.worker.terminate();
    if (this.attempts < START_ATTEMPTS) {
      this.launch();
      return;
    }
    this.worker = null;
    this.calculators.forEach((c) => c.onStartFailed());
    settled();
  }

  /** Send a request (a message with an id, answered by one with the same id). */
  post(message, transfer = []) {
    if (!this.waiting.size) this.heard = performance.now();
    this.waiting.set(message.id, ANSWER_DEADLINE_MS);
    this.worker.postMessage(message, transfer);
    this.armDeadline();
  }

  /** The worker said something about request `id`: it is alive, and the next deadline counts from
   *  now. `deadlineMs`: the request still waits, with that much time; none: it was answered. */
  heardOf(id, deadlineMs) {
    if (!this.waiting.has(id)) return;
    if (deadlineMs) this.waiting.set(id, deadlineMs);   // keeps its place in the queue
    else this.waiting.delete(id);
    this.heard = performance.now();
    this.armDeadline();
  }

  /** The worker answers in order, so the oldest request waiting is timed, from its sending or from
   *  the worker's last answer, whichever came later: a file being read delays what follows it. */
  armDeadline() {
    clearTimeout(this.deadlineTimer);
    if (!this.waiting.size) return;
    const [[id, deadlineMs]] = this.waiting;
    const due = this.heard + deadlineMs;
    this.deadlineTimer = setTimeout(() => {
      if (performance.now() - due > LATE_TIMER_MS) {
        this.heard = performance.now();
        this.armDeadline();
      } else {
        this.stopped(`no answer to ${id} within ${deadlineMs} ms`);
      }
    }, Math.max(0, due - performance.now()));
  }

  /** The worker stopped answering, or failed once live: it is let go, and each calculator says so
   *  and offers to start a fresh one. */
  stopped(why) {
    console.warn("Calculator runtime stopped:", why);
    clearTimeout(this.deadlineTimer);
    this.worker.terminate();
    this.worker = null;
    this.started = false;
    const waiting = new Set(this.waiting.keys());
    this.waiting.clear();
    this.calculators.forEach((c) => c.onStopped(waiting));
  }

  handle(message) {
    switch (message.type) {
      case MessageType.PROGRESS:
        this.armStart();
        break;
      case MessageType.READY:
        clearTimeout(this.startTimer);
        this.started = true;
        this.calculators.forEach((c) => c.onReady());
        // After any computation onReady() asked for, so that one is not kept waiting.
        this.worker.postMessage({ type: MessageType.WARM, names: [...new Set(this.calculators.map((c) => c.name))] });
        settled();
        cacheRuntime();
        break;
      case MessageType.READING:
        this.heardOf(message.id, READING_DEADLINE_MS);
        break;
      case MessageType.RESULT:
        this.heardOf(message.id);
        this.calculators.filter((c) => c.name === message.name).forEach((c) => c.onResult(message));
        break;
      case MessageType.IMPORTED:
        this.heardOf(message.id);
        this.calculators.filter((c) => c.name === message.name).forEach((c) => c.onImported(message));
        break;
      case MessageType.FAILED:
        this.heardOf(message.id);
        console.warn("Calculator runtime:", message.message);
        this.calculators.forEach((c) => c.onFailed(message));
        break;
      case MessageType.START_FAILED:
        this.startFailed(message.message);
        break;
      default:
        throw new TypeError(`Unknown message type: ${message.type}`);
    }
  }
}

/** Tell guide-page.js the calculators are live (or gave up): it registers the service worker only
 *  then, since its first caching would otherwise take CPU from the runtime's start. */
function settled() {
  document.dispatchEvent(new Event("guide:calculators-settled"));
}

/** Ask the site's service worker to keep the runtime this page just loaded, so the next visit is
 *  live without the network (it may not have controlled this first visit's requests). */
function cacheRuntime() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.ready.then((registration) => registration.active.postMessage({ type: "cache-runtime" }));
}

function start() {
  const roots = document.querySelectorAll("[data-guide-calc]");
  if (!roots.length) return;
  // calculator-boot.js holds the runtime's URLs; without it (blocked, or failed) there is no runtime
  // to wait for.
  const boot = window.guideCalculatorBoot;
  const runtime = boot ? new Runtime(boot) : null;
  const calculators = [...roots].map((root) => new Calculator(root, runtime));
  calculators.forEach((c) => { if (!c.pending) c.setState("loading"); });
  if (!runtime) {
    console.warn("Calculator runtime: the boot script did not run");
    calculators.forEach((c) => c.onStartFailed());
    settled();
    return;
  }
  runtime.calculators = calculators;
  afterFirstPaint(() => runtime.start());
}

/** Runs `then` once the page's first frame is laid out and painted (at once in a hidden tab, which
 *  paints nothing). That first layout is the longest task of a page's load; started before it,
 *  Pyodide's download and compile took cores and bandwidth from it and from the stylesheets, and
 *  Lighthouse's mobile run counted up to 1 s of blocking time on a calculator page. */
function afterFirstPaint(then) {
  if (document.visibilityState === "hidden") then();
  else requestAnimationFrame(() => setTimeout(then, 0));
}

start();
