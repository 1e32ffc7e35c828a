#!/usr/bin/env python3
"""Build the playground: `python playground/build.py` writes playground/dist/, a static site
that runs `.sad` programs in the browser (Pyodide in a Web Worker), ready for any static host:

    python playground/build.py && python -m http.server -d playground/dist

What it takes, all pinned, nothing from a CDN:

- Pyodide from the npm registry (`npm pack pyodide@PYODIDE_VERSION`, checked against the
  registry's sha512 integrity pinned below): its runtime files, and a lock file that lists
  no packages (the page installs its own wheels; nothing is looked up elsewhere);
- the scalarlang wheel, built from this working tree with `python -m build --wheel` (in a
  copy, so that no build/ folder appears in the tree);
- the pure-Python wheels scalarlang needs at run time, `pip download`ed by the versions and
  hashes of playground/requirements.txt; the page installs them with Pyodide's public
  `unpackArchive` (no micropip);
- every examples/*.sad and its data files (read_table's CSV files, read_text's texts), the
  page's sources, and the `.sad` lexicon for the editor's highlighting
  (scalarlang.language.lexicon, the grammar's terminals, and the built-in names: what the
  REPL's highlighter uses);
- then, in Node with the built site's own Pyodide (prepare.mjs): a run of
  examples/reused_square.sad checked against its golden file, lark's grammar cache and the
  bytecode of the modules a run imports, shipped so that the page starts sooner.

Downloads are kept in playground/.cache/ (gitignored, like dist/), so a second build needs
no network. `--out DIR` writes elsewhere. Prints the size of the site at the end.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

PYODIDE_VERSION = "314.0.8"
PYODIDE_INTEGRITY = "sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ=="
PYODIDE_PYTHON = "3.14"  # the Python of that Pyodide: the wheels are downloaded for it
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
DIST = HERE / "dist"
# The page's own files, copied as they are (index.html gets the manifest written into it).
PAGE_FILES = ("index.html", "style.css", "playground.js", "highlight.js", "kept.js", "output.js", "worker.js", "sw.js", "sad_playground.py", "favicon.svg")
# What the wheel is built from (copied to a temporary folder first).
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in")
PACKAGE_FOLDERS = ("scalarlang", "grammars")
DATA_SUFFIXES = (".csv", ".txt")  # read_table's tables, read_text's texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DIST, help="the folder to write (default: playground/dist)")
    args = parser.parse_args(argv)
    try:
        build(args.out)
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 1
    return 0


class BuildError(Exception):
    pass


def build(out: Path) -> dict:
    started = time.perf_counter()
    for tool in ("npm", "node"):
        if shutil.which(tool) is None:
            raise BuildError(f"`{tool}` not found: the build takes Pyodide from the npm registry and checks it in Node (install Node.js and npm)")
    digest = inputs_digest()
    out = out.resolve()
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    CACHE.mkdir(exist_ok=True)

    step = _Steps(started)
    step("Pyodide", f"pyodide@{PYODIDE_VERSION} from the npm registry")
    pyodide_files(staging / "pyodide")
    step("wheels", "scalarlang from this tree, its dependencies from playground/requirements.txt")
    wheels = [scalarlang_wheel(staging / "wheels"), *dependency_wheels(staging / "wheels")]
    step("page", "sources, examples, lexicon, manifest")
    manifest = page(staging, wheels, digest)
    write_manifest(staging, manifest)  # (prepare.mjs reads it; written again with what it adds)
    step("check", "reused_square.sad in Node with this Pyodide; grammar cache and bytecode")
    prepared = prepare(staging)
    manifest["larkCache"] = {"file": "python/grammar.lark-cache", "path": prepared["lark_cache"]}
    manifest["bytecode"] = {"file": "python/bytecode.zip", "dir": prepared["site_packages"], "modules": prepared["modules"]}
    manifest["versions"] = {**prepared["versions"], "pyodide": PYODIDE_VERSION}
    write_manifest(staging, manifest)

    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    files, raw, packed = site_size(out)
    (out / "build.json").write_text(
        json.dumps({"digest": digest, "files": files, "bytes": raw, "gzip_bytes": packed, "versions": manifest["versions"]}, indent=2) + "\n"
    )
    step.done()
    print(f"{_display(out)}: {raw / 1e6:.1f} MB in {files} files ({packed / 1e6:.1f} MB gzipped), "
          f"built in {time.perf_counter() - started:.1f} s")
    print(f"serve it with: python -m http.server -d {_display(out)}  (then open http://127.0.0.1:8000/)")
    return manifest


class _Steps:
    def __init__(self, started: float):
        self.started = started
        self.last: tuple[str, float] | None = None

    def __call__(self, name: str, what: str) -> None:
        self.done()
        print(f"{name}: {what}", end="", flush=True)
        self.last = (name, time.perf_counter())

    def done(self) -> None:
        if self.last is not None:
            name, since = self.last
            print(f" ({time.perf_counter() - since:.1f} s)", flush=True)
            self.last = None


# ---- inputs -------------------------------------------------------------------------------

def input_files() -> list[Path]:
    """Everything a build depends on: their digest names the build (build.json, and the
    service worker's cache, so that a new build replaces what browsers kept of the old)."""
    files = [HERE / name for name in (*PAGE_FILES, "build.py", "prepare.mjs", "requirements.txt")]
    files += [ROOT / "pyproject.toml"]
    for folder in PACKAGE_FOLDERS:
        files += sorted(p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files += example_files() + data_files()
    return files


def inputs_digest() -> str:
    digest = hashlib.sha256()
    for path in input_files():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"(missing)")
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def example_files() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.sad"))


def data_files() -> list[Path]:
    return sorted(p for p in (ROOT / "examples").iterdir() if p.suffix in DATA_SUFFIXES)


# ---- Pyodide ------------------------------------------------------------------------------

def pyodide_files(target: Path) -> None:
    tarball = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not (tarball.exists() and _integrity(tarball) == PYODIDE_INTEGRITY):
        tarball.unlink(missing_ok=True)
        _run(["npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", str(CACHE), "--silent"], "npm pack")
        if not tarball.exists():
            raise BuildError(f"npm pack wrote no {tarball.name}")
        if _integrity(tarball) != PYODIDE_INTEGRITY:
            raise BuildError(f"{tarball.name} does not have the pinned integrity {PYODIDE_INTEGRITY}")
    target.mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        for name in (*PYODIDE_FILES, "pyodide-lock.json", "package.json"):
            member = archive.getmember(f"package/{name}")
            data = archive.extractfile(member).read()  # type: ignore[union-attr]
            if name == "package.json":
                if json.loads(data)["version"] != PYODIDE_VERSION:
                    raise BuildError(f"the npm package is not pyodide {PYODIDE_VERSION}")
                continue
            if name == "pyodide-lock.json":
                # The runtime's own description, and no packages: the page installs only its
                # wheels, so there is nothing to look up (and nothing to fetch from elsewhere).
                lock = json.loads(data)
                data = (json.dumps({"info": lock["info"], "packages": {}}, indent=1) + "\n").encode()
            (target / name).write_bytes(data)


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


# ---- wheels -------------------------------------------------------------------------------

def scalarlang_wheel(target: Path) -> str:
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="scalarlang-wheel-") as temporary:
        source = Path(temporary) / "src"
        source.mkdir()
        for name in PACKAGE_FILES:
            shutil.copy2(ROOT / name, source / name)
        for folder in PACKAGE_FOLDERS:
            shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        built = Path(temporary) / "wheel"
        _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(built), str(source)], "python -m build --wheel", cwd=Path(temporary))
        (wheel,) = built.glob("scalarlang-*-py3-none-any.whl")
        shutil.copy2(wheel, target / wheel.name)
        return wheel.name


def dependency_wheels(target: Path) -> list[str]:
    requirements = HERE / "requirements.txt"
    folder = CACHE / "wheels"
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--only-binary=:all:", "--require-hashes",
        "--python-version", PYODIDE_PYTHON, "--implementation", "py", "--abi", "none", "--platform", "any",
        "-r", str(requirements), "-d", str(folder),
    ]
    _run(command, "pip download")
    names = []
    for line in requirements.read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
        if not match:
            continue
        project, version = match[1].replace("-", "_").lower(), match[2]
        (wheel,) = [p for p in folder.glob("*.whl") if p.name.lower().startswith(f"{project}-{version}-")]
        if not wheel.name.endswith("-none-any.whl"):
            raise BuildError(f"{wheel.name} is not a pure-Python wheel")
        shutil.copy2(wheel, target / wheel.name)
        names.append(wheel.name)
    return names


# ---- the page -----------------------------------------------------------------------------

def page(target: Path, wheels: list[str], digest: str) -> dict:
    for name in PAGE_FILES:
        if name != "index.html":
            shutil.copy2(HERE / name, target / name)
    examples = target / "examples"
    examples.mkdir()
    listed = []
    for path in example_files():
        text = path.read_text(encoding="utf-8")
        shutil.copy2(path, examples / path.name)
        listed.append({"name": path.stem, "file": f"examples/{path.name}", "about": _about(text), "text": text})
    data = []
    for path in data_files():
        shutil.copy2(path, examples / path.name)
        data.append(path.name)
    (target / "sw.js").write_text((HERE / "sw.js").read_text(encoding="utf-8").replace("BUILD_ID", digest), encoding="utf-8")
    return {
        "build": digest,
        "wheels": wheels,
        "data": data,
        "examples": listed,
        "lexicon": lexicon(),
    }


def write_manifest(target: Path, manifest: dict) -> None:
    """manifest.json (the worker reads it) and the same data inside index.html (so the page
    has its examples and lexicon without waiting for another request)."""
    text = json.dumps(manifest, ensure_ascii=True, separators=(",", ":"))
    (target / "manifest.json").write_text(text + "\n", encoding="utf-8")
    template = (HERE / "index.html").read_text(encoding="utf-8")
    inline = text.replace("</", "<\\/")
    if template.count("MANIFEST_JSON") != 1:
        raise BuildError("index.html must hold MANIFEST_JSON once")
    (target / "index.html").write_text(template.replace("MANIFEST_JSON", inline), encoding="utf-8")


def _about(text: str) -> str:
    """An example's first sentence, for the picker: its opening comment (the lines up to the
    first blank comment line or code) joined, up to the first full stop, question or exclamation
    mark that ends a sentence (one followed by a space or the end). A sentence is never cut at a
    line break."""
    lines = []
    for line in text.splitlines():
        words = line.lstrip("#").strip()
        if not line.startswith("#") or not words:
            break
        lines.append(words)
    paragraph = " ".join(lines)
    end = re.search(r"[.!?](?=\s|$)", paragraph)
    return paragraph[: end.end()] if end else paragraph


def lexicon() -> dict:
    """The `.sad` tokens as JavaScript regular expressions: the grammar's own terminals
    (scalarlang.language.lexicon) and the built-in names, as front/highlight.py's lexer uses
    them (highlight.js mirrors its states)."""
    sys.path.insert(0, str(ROOT))
    try:
        from scalarlang.front import highlight
        from scalarlang.language import lexicon as terms
    finally:
        sys.path.remove(str(ROOT))
    return {
        "keywords": [word for word in terms.KEYWORDS if word not in terms.VALUE_KEYWORDS],
        "constants": list(terms.VALUE_KEYWORDS),
        "builtins": list(highlight.BUILTINS),
        "name": terms.NAME,
        "number": terms.NUMBER,
        "kind": terms.KIND,
        "operator": highlight._OPERATOR,
    }


# ---- the check in Node --------------------------------------------------------------------

def prepare(target: Path) -> dict:
    (target / "python").mkdir()
    output = _run(["node", str(HERE / "prepare.mjs"), str(target)], "node prepare.mjs")
    prepared = json.loads(output.strip().splitlines()[-1])
    golden = (ROOT / "examples" / "reused_square.out").read_text(encoding="utf-8")
    if prepared["text"] != golden:
        raise BuildError("examples/reused_square.sad in Pyodide does not print its golden output:\n" + prepared["text"])
    return prepared


# ---- helpers ------------------------------------------------------------------------------

def site_size(folder: Path) -> tuple[int, int, int]:
    """Files, bytes, and bytes gzipped (each file at level 6, as a server would send it)."""
    files = raw = packed = 0
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            files += 1
            raw += len(data)
            packed += len(gzip.compress(data, 6, mtime=0))
    return files, raw, packed


def _run(command: list[str], what: str, cwd: Path = CACHE) -> str:
    # Not run in playground/: `python -m build` would find this file as the module `build`.
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if completed.returncode != 0:
        raise BuildError(f"{what} failed (exit status {completed.returncode}):\n{completed.stdout[-3000:]}{completed.stderr[-3000:]}")
    return completed.stdout


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
