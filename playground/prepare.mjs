// Build step of the playground, run by build.py in Node: boots the Pyodide of playground/dist
// as the page's worker does (the same wheels, unpacked with `unpackArchive`), then
//  - runs examples/reused_square.sad with sad_playground.py and prints its text (build.py
//    compares it with the golden file: the site is known to work before it is served);
//  - writes what the page's first run would otherwise compute: lark's cache of the analysed
//    grammar, and the bytecode of every module a run imports (unchecked-hash .pyc, Python
//    3.14's), as one zip unpacked over site-packages.
// Usage: node prepare.mjs DIST  (prints one JSON object on standard output)
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = path.resolve(process.argv[2]);
const manifest = JSON.parse(fs.readFileSync(path.join(dist, "manifest.json"), "utf8"));
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide", "pyodide.mjs")).href);
const quiet = { stdout: () => {}, stderr: (line) => process.stderr.write(line + "\n") };
const pyodide = await loadPyodide({ indexURL: path.join(dist, "pyodide") + path.sep, env: { HOME: "/home/pyodide" }, ...quiet });
const read = (name) => new Uint8Array(fs.readFileSync(path.join(dist, name)));
const sitePackages = pyodide.runPython("import sysconfig; '/' + sysconfig.get_path('purelib').lstrip('/')");
for (const wheel of manifest.wheels) {
  pyodide.unpackArchive(read(`wheels/${wheel}`), "wheel", { extractDir: sitePackages });
}
pyodide.FS.mkdirTree("/home/pyodide/examples");
for (const name of manifest.data) {
  pyodide.FS.writeFile(`/home/pyodide/examples/${name}`, read(`examples/${name}`));
}
pyodide.FS.writeFile("/home/pyodide/sad_playground.py", read("sad_playground.py"));
const example = fs.readFileSync(path.join(dist, "examples", "reused_square.sad"), "utf8");
pyodide.globals.set("example_text", example);
const result = pyodide.runPython(`
import compileall, glob, io, json, os, sys, zipfile
sys.path.insert(0, "/home/pyodide")
os.chdir("/home/pyodide/examples")
import sad_playground
sad_playground.warm()
texts = []
def post(message):
    message = json.loads(message)
    if message["type"] == "parts":
        texts.extend(part["text"] for part in message["parts"])
    else:
        texts.append(f"[exit status {message['status']}]\\n")
sad_playground.run(example_text, "examples/reused_square.sad", post)
caches = glob.glob(os.path.expanduser("~/.cache/scalarlang/*.lark-cache"))
assert len(caches) == 1, caches
import sysconfig
site = "/" + sysconfig.get_path("purelib").lstrip("/")
# The modules a run loaded from site-packages, compiled ahead (unchecked-hash .pyc: the
# sources unpacked from the wheels get new times, which checked .pyc would not match).
# The library's families of built-ins load on a built-in's first call: all compiled ahead.
loaded = sorted({m.__file__ for m in list(sys.modules.values())
                 if getattr(m, "__file__", None) and m.__file__.startswith(site + "/")}
                | set(glob.glob(site + "/scalarlang/interpreter/library/*.py")))
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
    import importlib.util, py_compile
    for source in loaded:
        target = importlib.util.cache_from_source(source)
        py_compile.compile(source, cfile=target, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        archive.write(target, os.path.relpath(target, site))
json.dumps({
    "text": "".join(texts),
    "versions": sad_playground.versions(),
    "lark_cache": caches[0],
    "site_packages": site,
    "modules": len(loaded),
    "bytecode": buffer.getvalue().hex(),
    "cache_bytes": open(caches[0], "rb").read().hex(),
})
`);
const out = JSON.parse(result);
fs.writeFileSync(path.join(dist, "python", "bytecode.zip"), Buffer.from(out.bytecode, "hex"));
fs.writeFileSync(path.join(dist, "python", "grammar.lark-cache"), Buffer.from(out.cache_bytes, "hex"));
delete out.bytecode;
delete out.cache_bytes;
process.stdout.write(JSON.stringify(out) + "\n");
