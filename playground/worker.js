// The playground's Web Worker: Python (Pyodide) with scalarlang, so that a long loop never
// freezes the page; the page's Stop ends this worker (terminate) and starts another.
//
// Messages from the page: {type: "boot", manifest} first (what build.py wrote: the wheels,
// the data files, the grammar cache), then {type: "run", id, text, name}.
// To the page: {type: "ready", seconds, versions}, {type: "parts", id, parts},
// {type: "done", id, status, error, seconds, ...} (sad_playground.py writes those two),
// {type: "failed", message} when Python could not start, {type: "crashed", id, message} when
// it suffered a fatal error (it can run nothing more).
//
// Every file comes from this site (relative URLs); Pyodide's lock file lists no packages.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const started = performance.now();
const here = (path) => new URL(path, import.meta.url).href;
const bytes = (path) =>
  fetch(here(path)).then((response) => {
    if (!response.ok) throw new Error(`${path}: ${response.status} ${response.statusText}`);
    return response.arrayBuffer();
  });

let receiveManifest;
const manifest = new Promise((resolve) => { receiveManifest = resolve; });
const queue = [];
let runProgram = null;

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "boot") receiveManifest(message.manifest);
  else if (message.type === "resources") {
    // What this worker fetched (resource timing): the tests check it all came from this site.
    self.postMessage({ type: "resources", names: performance.getEntriesByType("resource").map((entry) => entry.name) });
  }
  else if (message.type === "run") {
    if (runProgram) runProgram(message);
    else queue.push(message);
  }
};

async function boot() {
  // Python starts while the wheels and data download.
  const python = loadPyodide({
    indexURL: here("./pyodide/"),
    env: { HOME: "/home/pyodide" },
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
  });
  const { wheels, data, larkCache, bytecode } = await manifest;
  const downloads = Promise.all([
    Promise.all(wheels.map((name) => bytes(`wheels/${name}`))),
    Promise.all(data.map((name) => bytes(`examples/${name}`))),
    larkCache ? bytes(larkCache.file) : null,
    bytecode ? bytes(bytecode.file) : null,
    bytes("sad_playground.py"),
  ]);
  const pyodide = await python;
  const marks = { python: performance.now() - started };
  const [wheelBytes, dataBytes, cacheBytes, bytecodeBytes, runnerBytes] = await downloads;
  const sitePackages = pyodide.runPython("import sysconfig; '/' + sysconfig.get_path('purelib').lstrip('/')");
  wheelBytes.forEach((buffer) => pyodide.unpackArchive(buffer, "wheel", { extractDir: sitePackages }));
  if (bytecodeBytes) pyodide.unpackArchive(bytecodeBytes, "zip", { extractDir: sitePackages });
  pyodide.FS.mkdirTree("/home/pyodide/examples");
  data.forEach((name, index) => pyodide.FS.writeFile(`/home/pyodide/examples/${name}`, new Uint8Array(dataBytes[index])));
  if (cacheBytes) {
    pyodide.FS.mkdirTree(larkCache.path.slice(0, larkCache.path.lastIndexOf("/")));
    pyodide.FS.writeFile(larkCache.path, new Uint8Array(cacheBytes));
  }
  pyodide.FS.writeFile("/home/pyodide/sad_playground.py", new Uint8Array(runnerBytes));
  marks.files = performance.now() - started;
  pyodide.runPython(`
import os, sys
sys.path.insert(0, "/home/pyodide")
os.chdir("/home/pyodide/examples")  # read_table("moons.csv") finds the examples' data
import sad_playground
`);
  marks.imported = performance.now() - started;
  pyodide.runPython("sad_playground.warm()");
  marks.warm = performance.now() - started;
  const runner = pyodide.pyimport("sad_playground");
  const versions = runner.versions().toJs({ dict_converter: Object.fromEntries });
  runProgram = (message) => {
    const post = (json) => self.postMessage({ ...JSON.parse(json), id: message.id });
    try {
      runner.run(message.text, message.name, post).destroy();
    } catch (error) {
      if (error && error.pyodide_fatal_error) {
        // Python is beyond use (in a browser: the stack ran out inside it): the page starts
        // another worker.
        self.postMessage({ type: "crashed", id: message.id, message: String(error.message || error) });
        return;
      }
      post(JSON.stringify({ type: "done", status: 1, error: { kind: "internal-error", message: String(error) }, seconds: 0 }));
    }
  };
  self.postMessage({ type: "ready", seconds: (performance.now() - started) / 1000, marks, versions });
  while (queue.length) runProgram(queue.shift());
}

boot().catch((error) => self.postMessage({ type: "failed", message: String(error && error.stack || error) }));
