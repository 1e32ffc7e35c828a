"""The playground's editor highlighting (playground/highlight.js, run in Node) gives every
character the class that the REPL's Pygments lexer (scalarlang.front.highlight.SadLexer) gives
it, on every example and on broken text. Skipped without Node."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from scalarlang.front.highlight import SadLexer

ROOT = Path(__file__).resolve().parents[1]

# Pygments' token types as highlight.js's classes.
CLASSES = {
    Comment.Single: "comment", Keyword: "keyword", Keyword.Declaration: "keyword",
    Keyword.Constant: "constant", Name.Builtin: "builtin", Name.Variable: "variable",
    Name.Function: "function", Name.Exception: "kind", Name: "name", Number.Float: "number",
    String.Double: "string", String.Escape: "escape", String.Interpol: "interpol",
    Operator: "operator", Punctuation: "punctuation", Error: "error", Whitespace: "plain", Text: "plain",
}
BROKEN = [
    'print "unclosed {x\nlet y = 2\n',
    'print "a {x + "b"} c"\n',
    "let x = 3 $ 4 @ é\n",
    'print "bad \\q escape } and {{braces}}"\n',
    "expect non-finite-result: log(const 0)\n",
    "fn f(a, b) = a * b # trailing\nlet W = [[uniform(-1, 1) for j in range(3)] for i in 0..2]\n",
    "let x = 1e-3 ** 2.5e+2 // 7\n\t\f\r\n",
]


def merged(pairs):
    out: list[list[str]] = []
    for text, kind in pairs:
        if out and out[-1][1] == kind:
            out[-1][0] += text
        elif text:
            out.append([text, kind])
    return out


def pygments_classes(text: str):
    lexer = SadLexer(stripnl=False, ensurenl=False)
    return merged((value, CLASSES[token]) for _, token, value in lexer.get_tokens_unprocessed(text))


def javascript_classes(texts: list[str]):
    # playground/build.py's lexicon, the one the page is built with (loaded by its path: the
    # name `build` is also PyPI's build package).
    spec = importlib.util.spec_from_file_location("playground_build", ROOT / "playground" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    script = (
        "import { makeLexer } from " + json.dumps((ROOT / "playground" / "highlight.js").as_uri()) + ";\n"
        "let input = ''; process.stdin.on('data', (d) => { input += d; });\n"
        "process.stdin.on('end', () => { const { lexicon, texts } = JSON.parse(input);\n"
        "  const tokens = makeLexer(lexicon);\n"
        "  process.stdout.write(JSON.stringify(texts.map((t) => tokens(t)))); });\n"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps({"lexicon": build.lexicon(), "texts": texts}),
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [merged(pairs) for pairs in json.loads(done.stdout)]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js not found (the playground's build needs it too)")
def test_the_editor_colours_every_example_and_broken_text_as_the_repl_does():
    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples").glob("*.sad"))] + BROKEN
    for text, javascript in zip(texts, javascript_classes(texts)):
        assert "".join(piece for piece, _ in javascript) == text
        assert javascript == pygments_classes(text), text
