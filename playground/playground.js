// The playground page: the editor (a textarea under a highlighted copy of its text), Run and
// Stop, the example picker, the output (rich's HTML tables, SVG pictures, walk players), the
// error's span marked in the editor, and share links (the program in the URL's fragment,
// which browsers never send to a server).
//
// Python runs in worker.js. Stop terminates that worker (nothing else can stop a loop that
// runs there) and starts a fresh one. What tests and the benchmark read:
// body[data-ready] ("true" once Python is ready; window.playground.readyAt: ms since the
// navigation started), #status[data-state] (starting, ready, running, done, error, stopped,
// failed), #output[data-state] and [data-status] (the exit status), [data-error-kind], and
// window.playground.lastRun (the text of the run, its status, its error).
import { highlightHtml, makeLexer } from "./highlight.js";

const manifest = JSON.parse(document.getElementById("manifest").textContent);
const $ = (selector) => document.querySelector(selector);
const editor = $("#code");
const highlighted = $("#highlight");
const output = $("#output");
const outputText = $("#output-text");
const statusLine = $("#status");
const runButton = $("#run");
const stopButton = $("#stop");
const picker = $("#examples");
const fileName = $("#file-name");
const tokens = makeLexer(manifest.lexicon);
const DEFAULT_NAME = "playground.sad";
const DEFAULT_PROGRAM = `# The reused square: x is used twice by a product, the product twice by a sum.
# Ctrl-Enter runs it; the menu above has every example.
let x = var 2
let square = x * x
let loss = square + square
backward(loss)
print "x grad {grad(x)}"
draw(loss)
`;

const state = {
  worker: null,
  ready: false,
  bootStarted: 0,
  run: null, // {id, started, text, parts}
  queued: null,
  nextId: 1,
  errorMark: null,
  name: DEFAULT_NAME,
  resourceRequests: [],
};
const api = (window.playground = { readyAt: null, lastRun: null, manifest, restarts: 0 });
// The URLs the current worker fetched (for tests: performance entries of a worker are its own).
api.workerResources = () =>
  new Promise((resolve) => {
    state.resourceRequests.push(resolve);
    state.worker.postMessage({ type: "resources" });
  });

// ---- the worker ---------------------------------------------------------------------------

function startWorker() {
  state.ready = false;
  state.bootStarted = performance.now();
  document.body.dataset.ready = "false";
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => onWorkerMessage(worker, event.data);
  worker.onerror = (event) => {
    if (worker !== state.worker) return;
    setStatus("failed", `Python could not start: ${event.message || "the worker failed"}`);
  };
  worker.postMessage({ type: "boot", manifest: { ...manifest, examples: undefined, lexicon: undefined } });
  state.worker = worker;
}

function onWorkerMessage(worker, message) {
  if (worker !== state.worker) return; // a stopped worker's last words
  if (message.type === "ready") {
    state.ready = true;
    document.body.dataset.ready = "true";
    if (api.readyAt === null) api.readyAt = performance.now();
    api.bootSeconds = message.seconds;
    api.bootMarks = message.marks;
    const v = message.versions;
    $("#versions").textContent = `scalarlang ${v.scalarlang}, Python ${v.python} (Pyodide ${v.pyodide || manifest.versions?.pyodide}), lark ${v.lark}, rich ${v.rich}`;
    if (state.queued) {
      const queued = state.queued;
      state.queued = null;
      startRun(queued.text, queued.name);
    } else if (!state.run) {
      setStatus("ready", api.restarts ? "Ready again: a fresh Python." : "Ready: Ctrl-Enter runs the program.");
    }
    registerServiceWorker();
  } else if (message.type === "resources") {
    for (const resolve of state.resourceRequests.splice(0)) resolve(message.names);
  } else if (message.type === "failed") {
    setStatus("failed", `Python could not start: ${message.message}`);
  } else if (state.run && message.id === state.run.id) {
    if (message.type === "parts") showParts(message.parts);
    else if (message.type === "done") finishRun(message);
  }
}

// ---- running ------------------------------------------------------------------------------

function run() {
  if (state.run) return;
  const text = editor.value;
  clearOutput();
  setErrorMark(null);
  if (!state.ready) {
    state.queued = { text, name: state.name };
    setStatus("starting", "Starting Python… the program runs as soon as it is ready.");
    setRunning(true);
    return;
  }
  startRun(text, state.name);
}

function startRun(text, name) {
  const id = state.nextId++;
  state.run = { id, started: performance.now(), text, name, output: [] };
  output.dataset.state = "running";
  delete output.dataset.status;
  delete output.dataset.errorKind;
  setRunning(true);
  setStatus("running", "Running…");
  tickRunning(id);
  state.worker.postMessage({ type: "run", id, text, name });
}

function tickRunning(id) {
  setTimeout(() => {
    if (!state.run || state.run.id !== id) return;
    const seconds = (performance.now() - state.run.started) / 1000;
    setStatus("running", `Running… ${seconds.toFixed(1)} s (Stop ends it)`);
    tickRunning(id);
  }, 500);
}

function finishRun(message) {
  const current = state.run;
  state.run = null;
  setRunning(false);
  const seconds = (performance.now() - current.started) / 1000;
  if (message.left_out) {
    addNotice(`${message.left_out} more parts of output were left out (more than ${Math.round(message.sent / 1e6)} MB were shown).`);
  }
  output.dataset.state = "done";
  output.dataset.status = String(message.status);
  const error = message.error;
  if (error) output.dataset.errorKind = error.kind;
  api.lastRun = { text: current.output.join(""), status: message.status, error, seconds, pythonSeconds: message.seconds };
  if (error) {
    setStatus("error", "");
    const where = error.line ? ` at line ${error.line}, column ${error.column}` : "";
    statusLine.append(`error[${error.kind}]${where}: ${error.message} (exit status ${message.status}) `);
    if (error.start !== undefined) {
      setErrorMark({ start: error.start, end: error.end, title: `error[${error.kind}]: ${error.message}`, line: error.line, column: error.column });
      const show = document.createElement("button");
      show.type = "button";
      show.className = "link";
      show.textContent = "show in the program";
      show.addEventListener("click", () => selectSpan(error.start, error.end));
      statusLine.append(show);
    }
  } else {
    setStatus("done", `Done in ${formatSeconds(seconds)} (exit status ${message.status}).`);
  }
}

function stop() {
  if (!state.run && !state.queued) return;
  const seconds = state.run ? (performance.now() - state.run.started) / 1000 : 0;
  state.worker.terminate();
  state.run = null;
  state.queued = null;
  api.restarts += 1;
  setRunning(false);
  output.dataset.state = "stopped";
  addNotice(`Stopped after ${formatSeconds(seconds)}: the program was ended where it was.`);
  api.lastRun = { text: outputTextValue(), status: null, error: null, seconds, stopped: true };
  setStatus("stopped", `Stopped after ${formatSeconds(seconds)}: the worker running Python was ended. A fresh one is starting…`);
  startWorker();
}

function setRunning(running) {
  runButton.disabled = running;
  stopButton.disabled = !running;
}

function formatSeconds(seconds) {
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`;
}

function setStatus(kind, text) {
  statusLine.dataset.state = kind;
  statusLine.textContent = text;
}

// ---- output -------------------------------------------------------------------------------

function clearOutput() {
  output.replaceChildren();
  outputText.textContent = "";
  output.dataset.state = "empty";
}

function showParts(parts) {
  const run = state.run;
  for (const part of parts) {
    const box = document.createElement("div");
    box.className = `part ${part.kind}`;
    box.innerHTML = part.kind === "picture" ? part.svg : part.html;
    if (part.kind === "walk") activateScripts(box);
    output.append(box);
    run.output.push(part.text);
    outputText.append(part.text);
  }
}

// Scripts set with innerHTML do not run: the walk player's script is put back as a new one.
function activateScripts(box) {
  for (const old of box.querySelectorAll("script")) {
    if (old.type && old.type !== "text/javascript") continue;
    const script = document.createElement("script");
    script.textContent = old.textContent;
    old.replaceWith(script);
  }
}

function addNotice(text) {
  const box = document.createElement("div");
  box.className = "part notice";
  box.textContent = text;
  output.append(box);
}

function outputTextValue() {
  return outputText.textContent;
}

// ---- the editor ---------------------------------------------------------------------------

function setProgram(text, name) {
  editor.value = text;
  state.name = name || DEFAULT_NAME;
  fileName.textContent = state.name;
  picker.value = manifest.examples.some((e) => e.file === state.name && e.text === text) ? state.name : "";
  setErrorMark(null);
  render();
}

function render() {
  const text = editor.value;
  // A final newline needs a line after it in the copy, or the two scroll differently.
  highlighted.innerHTML = highlightHtml(tokens(text), text, state.errorMark) + "\n ";
  syncScroll();
}

function setErrorMark(mark) {
  state.errorMark = mark;
  render();
}

function syncScroll() {
  const pre = highlighted.parentElement;
  pre.scrollTop = editor.scrollTop;
  pre.scrollLeft = editor.scrollLeft;
}

function selectSpan(start, end) {
  editor.focus();
  editor.setSelectionRange(start, Math.max(start, end));
  // Scroll the line into view: the textarea scrolls to the caret on its own only when typing.
  const line = editor.value.slice(0, start).split("\n").length;
  const lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 17;
  const top = (line - 1) * lineHeight;
  if (top < editor.scrollTop || top > editor.scrollTop + editor.clientHeight - 2 * lineHeight) {
    editor.scrollTop = Math.max(0, top - editor.clientHeight / 3);
  }
  syncScroll();
}

let tabLeaves = false;
editor.addEventListener("input", () => {
  if (state.errorMark) state.errorMark = null; // the span no longer points at what failed
  if (picker.value) picker.value = "";
  render();
});
editor.addEventListener("scroll", syncScroll);
editor.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    run();
    return;
  }
  if (event.key === "Escape") {
    tabLeaves = true;
    return;
  }
  if (event.key === "Tab" && !tabLeaves && !event.ctrlKey && !event.altKey && !event.metaKey) {
    event.preventDefault();
    if (!event.shiftKey) document.execCommand("insertText", false, "  ");
    return;
  }
  tabLeaves = false;
});
editor.addEventListener("blur", () => { tabLeaves = false; });
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target !== editor) {
    event.preventDefault();
    run();
  }
});

// ---- examples and sharing -----------------------------------------------------------------

for (const example of manifest.examples) {
  const option = document.createElement("option");
  option.value = example.file;
  option.textContent = example.about ? `${example.name}: ${example.about}` : example.name;
  picker.append(option);
}
picker.addEventListener("change", () => {
  const example = manifest.examples.find((e) => e.file === picker.value);
  if (example) {
    setProgram(example.text, example.file);
    clearOutput();
    setStatus(state.ready ? "ready" : statusLine.dataset.state, state.ready ? `${example.file}: Ctrl-Enter runs it.` : statusLine.textContent);
  }
});

// The fragment: #program=BASE64URL(UTF-8 text)[&file=NAME]. A fragment is never sent to a
// server, so a shared program stays between the people who have the link.
function encodeProgram(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeProgram(encoded) {
  const base64 = encoded.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function shareLink() {
  const params = new URLSearchParams();
  params.set("program", encodeProgram(editor.value));
  if (state.name !== DEFAULT_NAME) params.set("file", state.name);
  return `${location.origin}${location.pathname}#${params.toString()}`;
}

function programFromFragment() {
  if (!location.hash) return null;
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has("program")) return null;
  try {
    return { text: decodeProgram(params.get("program")), name: params.get("file") || DEFAULT_NAME };
  } catch {
    setStatus(statusLine.dataset.state, "This link's program could not be read (it was cut short?).");
    return null;
  }
}

$("#share").addEventListener("click", async () => {
  const link = shareLink();
  history.replaceState(null, "", link);
  const box = $("#share-box");
  box.hidden = false;
  const field = $("#share-link");
  field.value = link;
  field.focus();
  field.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(link);
    copied = true;
  } catch {
    copied = false;
  }
  $("#share-note").textContent = copied ? "copied to the clipboard" : "select it and copy it";
});
window.addEventListener("hashchange", () => {
  const shared = programFromFragment();
  if (shared) setProgram(shared.text, shared.name);
});
$("#about-link").addEventListener("click", (event) => {
  event.preventDefault();
  $("#about").hidden = !$("#about").hidden;
});
runButton.addEventListener("click", run);
stopButton.addEventListener("click", stop);

// ---- working offline ----------------------------------------------------------------------

// Once Python is ready every file has been fetched: the service worker (sw.js) then keeps
// them, so that the page loads and runs with no network (and Stop's fresh worker starts
// from them too).
let registered = false;
function registerServiceWorker() {
  if (registered || !("serviceWorker" in navigator) || !window.isSecureContext) return;
  registered = true;
  navigator.serviceWorker.register("sw.js").catch((error) => console.warn("offline copy unavailable:", error));
}

// ---- start --------------------------------------------------------------------------------

startWorker();
const shared = programFromFragment();
if (shared) {
  setProgram(shared.text, shared.name);
  setStatus("starting", "Starting Python… (the program is the one in the link: Run runs it)");
} else {
  setProgram(DEFAULT_PROGRAM, DEFAULT_NAME);
}
