// The playground page: the editor (a textarea under a highlighted copy of its text), Run and
// Stop, the example picker, the output (rich's HTML tables, SVG pictures, walk players), the
// error's span marked in the editor, and share links (the program in the URL's fragment,
// which browsers never send to a server).
//
// The program is kept in the browser's local storage (a reload shows it again), with the one it
// replaced: the picker's "(your program)" brings that back, "start over" the starting program.
// Python runs in worker.js. Stop terminates that worker (nothing else can stop a loop that
// runs there) and starts a fresh one, as does a crash of Python. What tests and the benchmark
// read:
// body[data-ready] ("true" once Python is ready; window.playground.readyAt: ms since the
// navigation started), #status[data-state] (starting, ready, running, done, error, stopped,
// failed), #output[data-state] and [data-status] (the exit status), [data-error-kind], and
// window.playground.lastRun (the text of the run, its status, its error, how many batches of
// output it came in).
import { highlightHtml, makeLexer } from "./highlight.js";
import { decodeProgram, encodeProgram, readKept, writeKept } from "./kept.js";
import { addNotice, clearOutput, outputTextValue, showPart } from "./output.js";

const manifest = JSON.parse(document.getElementById("manifest").textContent);
const $ = (selector) => document.querySelector(selector);
const editor = $("#code");
const highlighted = $("#highlight");
const output = $("#output");
const statusLine = $("#status");
const runButton = $("#run");
const stopButton = $("#stop");
const picker = $("#examples");
const fileName = $("#file-name");
const startOverButton = $("#start-over");
const tokens = makeLexer(manifest.lexicon);
// A Mac's keyboard says Cmd where others say Ctrl (both run the program everywhere).
const IS_MAC = /Mac|iPhone|iPad|iPod/.test(navigator.userAgentData?.platform || navigator.platform || "");
const RUN_KEY = IS_MAC ? "Cmd-Enter" : "Ctrl-Enter";
const DEFAULT_NAME = "playground.sad";
const START = "start"; // the picker's value for the starting program
// Lines short enough for the editor at a laptop's width.
const DEFAULT_PROGRAM = `# The reused square: x is used twice by a
# product, the product twice by a sum.
# Run it, change it, or pick an example above.
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
  own: false, // the editor holds a program of the user's (typed, or from a link)
  draft: null, // {text, name}: the user's program that the one shown replaced
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
      setStatus("ready", api.restarts ? "Ready again: a fresh Python." : `Ready: ${RUN_KEY} runs the program.`);
    }
    registerServiceWorker();
  } else if (message.type === "resources") {
    for (const resolve of state.resourceRequests.splice(0)) resolve(message.names);
  } else if (message.type === "failed") {
    setStatus("failed", `Python could not start: ${message.message}`);
  } else if (message.type === "crashed") {
    crashed(message);
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
  state.run = { id, started: performance.now(), text, name, output: [], batches: 0 };
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
  api.lastRun = { text: current.output.join(""), status: message.status, error, seconds, pythonSeconds: message.seconds, batches: current.batches };
  if (error) {
    setStatus("error", "");
    const where = error.line ? ` at line ${error.line}, column ${error.column}` : "";
    statusLine.append(`error[${error.kind}]${where}: ${error.message} (exit status ${message.status}) `);
    if (error.start !== undefined) {
      setErrorMark({ start: error.start, end: error.end, title: `error[${error.kind}]: ${error.message}`, line: error.line, column: error.column });
      revealMark(); // however far down the program it is
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

// Python ended with a fatal error (in the browser: the JavaScript stack ran out inside it). It
// cannot run anything more: as after Stop, a fresh worker starts.
function crashed(message) {
  const current = state.run;
  const seconds = current ? (performance.now() - current.started) / 1000 : 0;
  state.worker.terminate();
  state.run = null;
  state.queued = null;
  api.restarts += 1;
  setRunning(false);
  output.dataset.state = "done";
  output.dataset.status = "1";
  output.dataset.errorKind = "internal-error";
  addNotice(`Python ended: ${message.message}. In the browser the stack is small: letting go of a graph `
    + "thousands of nodes deep during a run (an unrolled loop's result, bound again) runs out of it. "
    + "The scalarlang command has no such limit.");
  const error = { kind: "internal-error", message: message.message };
  api.lastRun = { text: current ? current.output.join("") : "", status: 1, error, seconds, crashed: true, batches: current ? current.batches : 0 };
  setStatus("failed", `Python ended (${message.message}): a fresh one is starting…`);
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

function showParts(parts) {
  const run = state.run;
  run.batches += 1;
  for (const part of parts) {
    run.output.push(part.text);
    showPart(part);
  }
}

// ---- the editor ---------------------------------------------------------------------------

// Shows `text` as the program `name`; `own`: whether it is the user's (typed, or from a link)
// rather than an example or the starting program. The user's program it replaces is kept as
// the draft, which the picker's "(your program)" brings back.
function setProgram(text, name, own) {
  if (state.own && editor.value !== text) state.draft = { text: editor.value, name: state.name };
  editor.value = text;
  editor.scrollTop = 0;
  editor.scrollLeft = 0;
  state.name = name || DEFAULT_NAME;
  state.own = own;
  setErrorMark(null);
  programChanged();
}

// Whether a program is the user's: anything but an example or the starting program as they are.
function isOwn(text, name) {
  return !(text === DEFAULT_PROGRAM || manifest.examples.some((e) => e.file === name && e.text === text));
}

// After any change of the program: its name, the picker's choice and "start over" follow
// it, and it is kept for the next visit.
function programChanged() {
  fileName.textContent = state.name;
  const example = manifest.examples.find((e) => e.file === state.name && e.text === editor.value);
  picker.value = state.own ? "" : example ? example.file : editor.value === DEFAULT_PROGRAM ? START : "";
  yourProgram.disabled = !state.own && !state.draft;
  startOverButton.hidden = editor.value === DEFAULT_PROGRAM;
  writeKept({ text: editor.value, name: state.name, own: state.own, draft: state.draft });
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

// Scrolls the editor to the error's mark when it is out of sight (a third of the way down, as
// selectSpan does), without moving the caret: the program ran from Run or a key anywhere.
function revealMark() {
  const mark = highlighted.querySelector("mark.sad-error");
  if (!mark) return;
  const { offsetTop: top, offsetLeft: left, offsetHeight: height, offsetWidth: width } = mark;
  if (top < editor.scrollTop || top + height > editor.scrollTop + editor.clientHeight) {
    editor.scrollTop = Math.max(0, top - editor.clientHeight / 3);
  }
  if (left < editor.scrollLeft || left + Math.min(width, editor.clientWidth / 2) > editor.scrollLeft + editor.clientWidth) {
    editor.scrollLeft = Math.max(0, left - editor.clientWidth / 3);
  }
  syncScroll();
}

let tabLeaves = false;
editor.addEventListener("input", () => {
  if (state.errorMark) state.errorMark = null; // the span no longer points at what failed
  // Typed over, the program is the user's: no longer named after the example it was, and no
  // longer the one a share link (in the box, in the address bar) holds.
  state.own = true;
  state.name = DEFAULT_NAME;
  forgetShareLink();
  programChanged();
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

// ---- examples, the starting program, sharing ----------------------------------------------

const yourProgram = picker.querySelector('option[value=""]');
picker.append(new Option("(the starting program)", START));
for (const example of manifest.examples) {
  picker.append(new Option(example.about ? `${example.name}: ${example.about}` : example.name, example.file));
}
picker.addEventListener("change", () => {
  const example = manifest.examples.find((e) => e.file === picker.value);
  if (example) {
    choose(example.text, example.file, false, example.file);
  } else if (picker.value === START) {
    startOver();
  } else if (state.draft) {
    const draft = state.draft;
    state.draft = null;
    choose(draft.text, draft.name, true, "Your program");
  }
});
startOverButton.addEventListener("click", startOver);

function startOver() {
  choose(DEFAULT_PROGRAM, DEFAULT_NAME, false, "The starting program");
}

function choose(text, name, own, what) {
  setProgram(text, name, own);
  forgetShareLink();
  clearOutput();
  if (state.ready && !state.run) setStatus("ready", `${what}: ${RUN_KEY} runs it.`);
}

function shareLink() {
  const params = new URLSearchParams();
  params.set("program", encodeProgram(editor.value));
  if (state.name !== DEFAULT_NAME) params.set("file", state.name);
  return `${location.origin}${location.pathname}#${params.toString()}`;
}

// The program changed: the link shown and the address bar's hold the old one (a reload would
// bring it back). Share makes a new one.
function forgetShareLink() {
  $("#share-box").hidden = true;
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

function programFromFragment() {
  if (!location.hash) return null;
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has("program")) return null;
  try {
    const text = decodeProgram(params.get("program"));
    const name = params.get("file") || DEFAULT_NAME;
    return { text, name, own: isOwn(text, name) };
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
  if (shared) setProgram(shared.text, shared.name, shared.own);
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

$("#run-key").textContent = IS_MAC ? "Cmd-Enter (or Ctrl-Enter)" : "Ctrl-Enter";
runButton.title = `Run (${RUN_KEY})`;
editor.setAttribute("aria-label", `.sad program (${RUN_KEY} runs it)`);
startWorker();
// What this browser kept is the program shown before a link's, which replaces it (and keeps
// it as the draft, when it was the user's).
const kept = readKept();
if (kept) {
  editor.value = kept.text;
  Object.assign(state, { name: kept.name, own: kept.own || isOwn(kept.text, kept.name), draft: kept.draft });
}
const shared = programFromFragment();
if (shared) {
  setProgram(shared.text, shared.name, shared.own);
  setStatus("starting", "Starting Python… (the program is the one in the link: Run runs it)");
} else if (kept) {
  setProgram(editor.value, state.name, state.own);
} else {
  setProgram(DEFAULT_PROGRAM, DEFAULT_NAME, false);
}
