"""About 3,000 short, mostly broken `.sad` programs for the recorded-diagnostics guard.

``programs()`` returns the same list of texts every time, on every platform and Python version
that the project supports: it depends only on ``SEED`` (one ``random.Random``, drawn from with
``randrange``/``choice``/``shuffle``, whose sequences are stable across Python versions), on the
lists in this file and on the bytes of ``examples/*.sad`` (read in sorted order, undecoded
newlines kept). ``tests/fixtures/diagnostics.json`` was recorded from these texts by
``tests/record_diagnostics.py``; ``tests/test_diagnostics_recorded.py`` checks that the texts
still come out the same (a change here or in an example is *generator drift*: re-record from a
checkout of the parser you trust, not from the code under test).

What the programs cover (each group in ``_GROUPS``, in this order):

- token mutations (deleted, duplicated, swapped with a neighbour or any token, replaced by a
  token of the vocabulary, a token inserted; one to three at a time) of single lines of the
  examples, of windows of 2-8 consecutive lines of the examples (so that a broken statement
  also follows statements the parser has seen whole), and of snippets written here; strings
  are tokenised whole or piece by piece;
- texts cut at a random point (brackets, braces, strings and holes left open) and lines joined;
- the habits of Python and micrograd users, keywords used as names, strings, tables, newlines
  inside brackets and between `}` and `else`, `expect KIND:` with bad kinds, unicode and
  control characters, a BOM, CRLF, `\\r` alone, tabs, empty and blank texts, random token soup,
  and what the builder rejects after the parser took it (a name twice, a range bound to two
  names, a positional argument after a named one, a number rounded to 0, rows of two widths);
- nesting at, just beyond and far beyond the 1000 levels of the parser (the only long texts).

The loop bounds of the examples (`0..300`, `0..4000`) are cut to `0..3` before they are used:
a program that parses is run by the recorder and the test, and must run in a moment.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

SEED = 20_251_204
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# ---- tokens --------------------------------------------------------------------------------

_NUMBER = r"(?:[0-9]+(?:\.(?!\.)[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_REST = (
    r"#[^\n]*|\r?\n|[ \t]+|\*\*|\.\.|==|!=|<=|>=|\{\{|\}\}|[A-Za-z_][A-Za-z0-9_]*|"
    + _NUMBER
    + r"|\\.|."
)
# Strings whole, or every piece of them a token of its own.
_TOKEN_WHOLE = re.compile(r'"(?:[^"\\\n]|\\.)*"|' + _REST, re.DOTALL)
_TOKEN_PIECES = re.compile(_REST, re.DOTALL)

KEYWORDS = [
    "let", "var", "const", "print", "assert", "expect", "zero_grad", "within", "inf", "nan",
    "fn", "repeat", "for", "in", "if", "else", "descend", "by", "quiet",
]
NUMBERS = [
    "0", "1", "2", "3", "0.5", ".5", "2.", "1e-3", "1e308", "1e309", "1e-320", "1e-400", "1e400",
    "0e-999", "1.5e307", "007", "inf", "nan", "10", "-1",
]
NAMES = [
    "x", "y", "w", "b", "loss", "data", "step", "grad", "value", "backward", "tanh", "exp",
    "log", "relu", "sigmoid", "detach", "gradcheck", "graph", "len", "sum", "mean", "max",
    "sqrt", "f", "predict", "lose", "_", "x1", "range", "def", "while", "return", "and", "or",
    "not", "elif", "True", "None", "self",
]
PUNCTUATION = [
    "(", ")", "[", "]", "{", "}", ",", ";", ":", "=", "==", "!=", "<", "<=", ">", ">=", "+", "-",
    "*", "/", "%", "**", "..", ".", "^", "&", "&&", "|", "||", "!", "@", "$", "?", "~", "'",
    '"', "\\", "#", "{{", "}}", "-=", "+=", "->", "=>", ":=",
]
OTHERS = [
    "\n", "\n\n", ";", "\t", " ", '"a"', '"{x}"', '"{"', '"}"', '"{{}}"', "no-gradient",
    "syntax-error", "é", "λ", "\x00", "\x07", "\r", "\ufeff", "# note",
]
VOCABULARY = KEYWORDS + NUMBERS + NAMES + PUNCTUATION + OTHERS

KINDS = [
    "no-gradient", "undefined-name", "syntax-error", "too-deep", "non-finite-seed",
    "assertion-failed", "internal-error", "io-error", "wrong-arguments",
]
BAD_KINDS = [
    "No-Gradient", "no_gradient", "nogradient", "no--gradient", "-no-gradient", "no-gradient-",
    "1-kind", "kind2", "NO-GRADIENT", "no gradient", '"no-gradient"', "(no-gradient)",
    "no-gradient()", "é-kind", "kind.x", "no-gradiënt", "let", "var", "in", "x-1", "a-b-c-d-e",
    "", " ", "no-gradient no-gradient", "*", "no-", "-", "--",
]


def tokens_of(text: str, pieces: bool = False) -> list[str]:
    return (_TOKEN_PIECES if pieces else _TOKEN_WHOLE).findall(text)


def _significant(tokens: list[str]) -> list[int]:
    return [i for i, token in enumerate(tokens) if not token.isspace()]


def mutate_tokens(tokens: list[str], rng: random.Random) -> list[str]:
    """One mutation: delete, duplicate, swap (neighbours or any two), replace or insert."""
    tokens = list(tokens)
    places = _significant(tokens)
    if not places:
        return tokens + [rng.choice(VOCABULARY)]
    which = rng.randrange(len(places))
    i = places[which]
    operation = rng.choice(["delete", "duplicate", "swap-near", "swap", "replace", "insert", "insert"])
    if operation == "delete":
        del tokens[i]
    elif operation == "duplicate":
        tokens.insert(i, tokens[i] + rng.choice(["", " "]))
    elif operation == "swap-near":
        k = places[min(which + 1, len(places) - 1)]
        tokens[i], tokens[k] = tokens[k], tokens[i]
    elif operation == "swap":
        k = rng.choice(places)
        tokens[i], tokens[k] = tokens[k], tokens[i]
    elif operation == "replace":
        pool = NUMBERS if re.fullmatch(_NUMBER, tokens[i]) and rng.randrange(2) else VOCABULARY
        tokens[i] = rng.choice(pool)
    else:
        spaced = rng.choice(["", " ", " "])
        tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(VOCABULARY) + spaced)
    return tokens


def mutate(text: str, rng: random.Random, times: int | None = None) -> str:
    tokens = tokens_of(text, pieces=rng.randrange(3) == 0)
    for _ in range(times if times is not None else rng.choice([1, 1, 1, 2, 2, 3])):
        tokens = mutate_tokens(tokens, rng)
    return "".join(tokens)


def cut(text: str, rng: random.Random) -> str:
    """The text up to a random point (at least one character, never all of it)."""
    if len(text) < 2:
        return text
    return text[: 1 + rng.randrange(len(text) - 1)]


# ---- sources -------------------------------------------------------------------------------


def example_texts() -> list[str]:
    texts = []
    for path in sorted(EXAMPLES.glob("*.sad")):
        text = path.read_bytes().decode("utf-8")
        texts.append(re.sub(r"\.\.[0-9]{2,}", "..3", text))  # short loops: see the docstring
    return texts


def example_lines(texts: list[str]) -> list[str]:
    """Every line of the examples that is not blank and not only a comment."""
    return [
        line
        for text in texts
        for line in text.split("\n")
        if line.strip() and not line.lstrip().startswith("#")
    ]


def example_window(texts: list[str], rng: random.Random, most: int = 8) -> str:
    """2 to ``most`` consecutive lines of one example, its comment lines left out."""
    lines = [line for line in rng.choice(texts).split("\n") if not line.lstrip().startswith("#")]
    size = 2 + rng.randrange(most - 1)
    start = rng.randrange(max(1, len(lines) - size))
    return "\n".join(lines[start : start + size])


# Small valid programs (each alone parses), for the mutations.
SNIPPETS = [
    "let x = var 2\nlet loss = x * x + 3 * x\nbackward(loss)",
    "backward(loss, 2)",
    "zero_grad",
    "zero_grad(loss)",
    'print "x {x} grad {grad(x)}", x, loss',
    'print "braces {{literal}} and {x + 1}"',
    "assert value(x) == 2 within 1e-9",
    "assert grad(x) != 0",
    "assert -x ** 2 <= 3 % 2",
    "expect no-gradient: grad(const 1)",
    "expect undefined-name: lose + 1",
    "quiet backward(loss)",
    "quiet expect no-gradient: grad(const 1)",
    "fn f(x, y) = x * y + exp(-x) ** 2",
    "fn one() = 1\none()",
    "repeat 3 { let x = x + 1 }",
    "repeat 2 {\n  let y = y * 2\n  print y\n}",
    'for i in 0..3 { print "i {i}" }',
    "for x, y in [(1, 2), (3, 4)] { print x, y }",
    "for x in [1, -2.5, inf] { x }",
    "let data = [(1, 3), (2, 5),]\nfor a, b in data { a + b }",
    'if x > 1 { print "big" } else if x < 0 { print "neg" } else { print "small" }',
    'if x == 1 {\n  print "one"\n}\nelse {\n  print "other"\n}',
    "descend w, b by 0.1",
    "gradcheck(loss, x, tolerance: 1e-6)",
    "gradcheck(loss, x, 1e-4, 1e-6)",
    "let t = tanh(x); let s = sigmoid(t); relu(s)",
    "let m = max(x, 2) - min(x, 1) + abs(-x) + sqrt(x)",
    "let n = sum(1, 2, 3) / mean(1, 2)",
    "-x ** 2",
    "2 ** 3 ** 2",
    "x % 3",
    "let y = var -2",
    "let z = const 1 + 2",
    "let s = (\n  x +\n  1\n)",
    "graph(loss)",
    "let big = 1.5e307 * .5",
    "value(x) * len([1, 2])",
    "let w = var 0.5\nlet b = var 0\nfn predict(x) = w * x + b\nbackward(predict(2))\ndescend w, b by 0.1",
    "let x = var 2; let y = x * x; backward(y); print grad(x)",
    "print \"\\\"quoted\\\" \\\\ and \\n\"",
    "# only a comment\nlet x = 1 # and another",
    "for i in 0..2 {\n  if i % 2 == 0 { print i }\n}",
]

HABITS = [
    "x.grad", "x.backward()", "loss.backward()", "x.zero_grad()", "x.data", "x.item()",
    "x.tanh()", "x.exp()", "x.relu()", "x.foo", "x . grad", "print(x.grad)", "2.grad",
    "let y = x ^ 2", "let y = x^-1", "let y = 2 ^ x", "y = x * 2", "x = 1", "w -= 0.1 * grad(w)",
    "w += 1", "w *= 2", "w /= 2", "w -= lr", "let w -= 1", "def f(x):", "def f(x): return x * x",
    "def f(x):\n    return x * x", "def f(x) = x", "fn f(x): x * x", "fn f x = x", "fn f = x",
    "fn f(x) { x * x }", "fn f(x) = return x", "let f(x) = x * x", "return x",
    "for i in range(3):", "for i in range(3): print i", "for i in range(1, 4):\n  print i",
    "for i in range(3) { print i }", "for i in 3 { }", "for i in 0..3:", "for i in 0..3 print i",
    "for (i in 0..3) { }", "while x < 3:", "while x < 3 { }", "while True:", "if x > 1:",
    "if x > 1: print x", "if x > 1 {\n} else:", "if x > 1 and x < 3 { }", "if x > 1 or x < 3 { }",
    "if not x > 1 { }", "if x > 1 && x < 3 { }", "if x > 1 || x < 3 { }", "if x { }",
    "if (x > 1) { }", "if x > 1 { } elif x < 0 { }", "elif x > 1 { }", "else { }", "else:",
    "} else {", "if x > 1\n{\n}", "repeat 3\n{\n}", "print(\"hello\")", 'print "a" + "b"',
    "print 'single'", "let x = True", "let x = None", "import math", "from micrograd import Value",
    "x = Value(2.0)", "let x = Value(2.0)", "let xs = [x, x]", "let xs = []", "x[0]",
    "let x = [i for i in range(3)]", "let x = 2 // 3", "let x = !x", "x @ y", "assert x",
    "assert x == 1 within", "assert x < 1 within 0.1", "let y = x.grad * 2", "backward loss",
    "backward(loss", 'print "{x.grad}"', "lambda x: x", "let x = 1 if y else 2",
    "x++", "let x: float = 1", "let x = 1,", "print x,", "let x == 1", "let = 1", "let x",
    "let x =", "var x = 1", "const x = 1", "x := 1", "let x = var(2)", "let x = -(-x)",
    "descend w by 0.1 * grad(w)", "descend w, by 0.1", "descend (w, b) by 0.1", "zero_grad()",
    "zero_grad x", "gradcheck(loss, x, step=1e-4)", "gradcheck(loss, x, tolerance: 1, 2)",
]

KEYWORD_TEMPLATES = [
    "let {k} = 1", "let x = {k}", "let x = {k} + 1", "let x = 1 + {k}", "fn {k}(x) = x",
    "fn f({k}) = 1", "fn f(x, {k}) = x", "for {k} in 0..3 {{ }}", "for x, {k} in [(1, 2)] {{ }}",
    "descend {k} by 0.1", "descend w, {k} by 0.1", "descend w by {k}", "{k}(x)", "print {k}",
    "{k}", "x + {k}", "let y = f({k})", "gradcheck(loss, x, {k}: 1)", "let x = ({k})",
    'print "{{{k}}}"', "x * {k} * y",
]
KEYWORD_SPECIALS = [
    "let let = 1", "let x = var", "let x = const", "descend w by", "let by = 2", "descend by 0.1",
    "descend w b by 0.1", "descend w, b, by 0.1", "let x = var var 1", "let x = 1 + var 2",
    "let x = 2 * const 3", "let x = (var 2) * var", "let in = [1]", "for in in 0..3 { }",
    "if else > 1 { }", "let else = 1", "let x = 1 else 2", "print within", "assert within == 1",
    "let inf = 1", "let nan = 2", "let x = inf inf", "fn fn() = 1", "let quiet = 1",
    "quiet quiet", "quiet", "expect", "let zero_grad = 1", "zero_grad(zero_grad)",
]

STRINGS = [
    'print "{x"', 'print "{}"', 'print "{ }"', 'print "a } b"', 'print "a }"', 'print "}"',
    'print "\\q"', 'print "\\"', 'print "abc', 'print "abc\\\\"', 'print "{{"', 'print "}}"',
    'print "{{x}}"', 'print "{{x}"', 'print "{x}}"', 'print "{x}} tail"', 'print "{x +}"',
    'print "{x y}"', 'print "{let x = 1}"', 'print "{"a"}"', 'print "{(}"', 'print "{x)"',
    'print "{x]"', 'print "{x" + 1', 'print "{[1, 2]}"', 'print "{1, 2}"', 'print "{ {x} }"',
    'print "tab\there"', 'print "ctrl\x01"', 'print "\\n ok"', 'print "\\t"', 'print "\\u00e9"',
    'print "\\{"', 'print "{x}" "{y}"', 'print "a" "b"', 'print "a",', 'print , "a"', "print",
    'let s = "text"', '"just a string"', 'x + "a"', 'f("a", "{b")', 'print "{x:.2f}"',
    'print f"{x}"', "print 'a'", 'print "é λ {x}"', 'print "{x.grad}"', 'print "{x ^ 2}"',
    'print "{1e-400}"', 'print "{var}"', 'print "{let}"', 'print "{var x}"',
    'print "unterminated {x} ...', 'print "a\\', 'print "{\\"}"', 'print "{x}\nmore"',
    'print "a" + 1', 'print "{x}", "{', 'print "{x #}"', 'print "# not a comment {x}"',
    'print "{{{x}}}"', 'print "{{{x}"', 'print "{x}}}"', 'print "{-}"', 'print "{f(}"',
    'print "{f("a")}"', 'print "{"}"', 'print "{\n}"', 'print "{(1\n)}"', 'print "\\\\{x}"',
    'print "a\\"b', 'print ""', 'print "", ""', 'print "\x7f"', 'print "\x1b[1m"',
    'print "{x}\\q"', 'print "\\q{x"', 'print "{x\\q}"', 'expect no-gradient: print "{"',
    'if x > 1 { print "{" }', 'repeat 2 { print "a }', 'let x = "{x}"', 'draw(x, "{")',
]

TABLES = [
    "let t = [1, (2, 3)]", "let t = [x]", "let t = [(1,2),(3)]", "let t = [1,,2]", "let t = []",
    "let t = [,]", "let t = [1,]", "let t = [(1,)]", "let t = [()]", "let t = [(1, 2), (3, 4, 5)]",
    "let t = [(1, 2)  (3, 4)]", "let t = [1 2]", "let t = [-1, --2]", "let t = [-inf, nan, +1]",
    "let t = [1 + 2]", "let t = [[1, 2]]", "let t = [(1, (2, 3))]", "let t = [1e-400]",
    "let t = [1, 2", "let t = [(1, 2]", "let t = [(1, 2), (3, 4)", "let t = 1, 2",
    "for x in [1, 2] { }", "for x, y in [(1, 2), (3)] { }", "for x in [x] { }", "[1, 2]",
    "print [1, 2]", "len([1, 2])", "let t = [1, 2][0]", 'let t = ["a"]', "let t = [var 1]",
    "let t = [(1; 2)]", "let t = [\n (1, 2),\n (3, 4)\n]", "let t = [(1, 2),\n (3)]",
    "let t = [1, 2]]", "let t = ]", "let t = [)", "let t = [(1, 2)]\nlet u = t + 1",
    "for x, y in [(1, 2, 3)] { }", "let t = [(1, 2), (3, 4),,]", "let t = [-(1)]",
    "let t = [1.5e307, 1e309]", "let t = [(inf, -nan)]", "let t = [x, 1]", "let t = [1, x]",
    "let t = [(1, x)]", "let t = [f(1)]", "for x in [1, 2]\n{ }", "let t = [1] [2]",
]

NEWLINE_CASES = [
    "let x = (1 +\n 2)", "let x = (1\n+ 2)", 'print "a",\n x', "let t = [1,\n 2,\n 3]",
    "let t = [(1,\n 2),\n (3, 4)]", "f(\n x,\n y\n)", "if x > 1 {\n print 1\n}\n\nelse {\n print 2\n}",
    "if x > 1 {\n}\n# comment\nelse {\n}", "if x > 1 {\n}\n\n\n  else if x < 0 {\n}\nelse {\n}",
    "if x > 1 { }\n\nelse\n{ }", "repeat 2 {\n}\nelse { }", "for i in 0..3 {\n}\nelse {\n}",
    "}\nelse { }", "let x = (\n\n\n", "let x = (1,\n2", "let x = [\n", 'print "a\nb"',
    'let x = ("a\n")', "let x = (1\nlet y = 2", "let x = (1\n\n\nlet y = 2)", "let x = 1 +\n2",
    "let x =\n1", "let x\n= 1", "backward(\nloss\n,\n2\n)", "if x > 1\n{ }", "if x >\n1 { }",
    "if x > 1 { } else\n{ }", "if x > 1 { }\r\nelse { }", "if x > 1 { }\n\r\nelse { }",
    "if x > 1 { }\n;\nelse { }", "if x > 1 { }; else { }", "if x > 1 { } else if x < 1 { }\n\nelse if x == 1 { }",
    "descend w,\n b by 0.1", "for x,\n y in data { }", "fn f(x,\n y) = x", "fn f(x) =\n x",
    "let x = (1 # comment\n + 2)", "let x = [1 # c\n]", "assert (x\n== 1)", "gradcheck(loss,\n x,\n tolerance: 1)",
    "print \"{(x\n)}\"", "let x = (\n)", "let x = 1\n\n\n\n)", "if x > 1 {\n  let y = (1\n}\n",
]

# What the parser accepts but the builder then rejects (names twice, a range's names, named
# arguments, numbers rounded to 0, row widths, escapes).
BUILDER_CASES = [
    "fn f(x, x) = x", "fn f(x, y, x) = 1", "for a, a in [(1, 2)] { }", "descend w, w by 0.1",
    "descend w, b, w by 1", "for a, b in 0..3 { }", "for a, b, c in 1..2 { }",
    "for i in range(3) { }", "for i in range(1, 4) { }", "for i in range(n) { }",
    "for i in range(1, 2, 3) { }", "for i in range(2.5) { }", "for i in x + 1 { }",
    "for i in f(x) { }", "gradcheck(loss, tolerance: 1, x)", "f(a: 1, 2)", "f(a: 1, b: 2)",
    "f(a: 1, a: 2)", "f(1, a: 2, b)", "let x = 1e-400", "let x = 0.0000e-999", "let x = 5e-324",
    "let x = 2e-324", "let x = 1e-324", "let x = 0e-400", "let x = 1e309",
    "let x = 1" + "0" * 400, "let x = 0." + "0" * 400 + "1", "let t = [(1, 2), (3,)]",
    "let t = [(1,), (2, 3)]", "let t = [1, (2,)]", "let t = [(1, 2, 3), (4, 5), (6,)]",
    'print "\\a"', 'print "ok \\é"', 'print "\\\x01"', 'print "{x} \\z {y}"',
]

NESTING_KIND_PREFIX = "expect x: "


def _nesting() -> list[str]:
    programs: list[str] = []
    for n in (1000, 1001):
        programs.append("let x = " + "(" * n + "1" + ")" * n)
        programs.append("let x = " + "-" * n + "1")
        programs.append("let x = " + "var " * n + "1")
        programs.append("let x = " + "exp(" * n + "1" + ")" * n)
        programs.append("repeat 1 {\n" * n + "}\n" * n)
        programs.append(NESTING_KIND_PREFIX * n + "1")
        programs.append("quiet " * n + "1")
        programs.append("if 1 < 2 {\n}" + " else if 1 < 2 {\n}" * (n - 1))  # n levels
    programs += [
        "let x = " + "(" * 1000 + "1" + ")" * 999,
        "zero_grad(" + "(" * 999 + "x" + ")" * 999 + ")",
        "zero_grad(" + "(" * 1000 + "x" + ")" * 1000 + ")",
        "let x = " + "-(" * 600 + "1" + ")" * 600,
        "let x = " + "const " * 500 + "-" * 501 + "1",
        "let x = " + "const -(" * 400 + "1" + ")" * 400,
        "let x = 2" + " ** 2" * 1001,
        "let x = f(" + "g(x: " * 1001 + "1" + ")" * 1002,
        "(" * 5000,
        "[" * 1001,
        "{" * 1001,
        "let x = " + "(" * 1500 + "\n" * 3 + "1",
        "repeat 1 { " * 1001 + "}" * 1001,
        "quiet " * 500 + NESTING_KIND_PREFIX * 501 + "1",
        'print "{' + "(" * 1001 + "x" + ")" * 1001 + '}"',
    ]
    return programs


UNICODE_CHARS = [
    "é", "λ", "π", "ß", "Ж", "名", "٣", "²", "\u00a0", "\u200b", "\u2028", "\ufeff", "\x00",
    "\x01", "\x07", "\x1b", "\x7f", "\x85", "\t", "\r", "\v", "\f", "“", "”", "−", "×", "…",
    "🙂", "ｘ", "\u0301", "\ud7ff", "\U0010ffff",
]

BLANK_TEXTS = [
    "", " ", "\n", "\n\n", "\t", " \t \n", "\r\n", "\r", ";", ";;", "# c", "#", "\n# c\n",
    "\ufeff", "\ufeff\n", "   \n   ", "\f", "\v", "\x00", "\n" * 50, " ;\n; ", "\r\n\r\n",
]


# ---- groups ----------------------------------------------------------------------------------


def _example_lines(rng, texts, lines):
    return [mutate(rng.choice(lines), rng) for _ in range(800)]


def _example_windows(rng, texts, lines):
    return [mutate(example_window(texts, rng), rng) for _ in range(250)]


def _snippets(rng, texts, lines):
    return [mutate(rng.choice(SNIPPETS), rng) for _ in range(450)]


def _cuts(rng, texts, lines):
    out = []
    for _ in range(260):
        source = rng.randrange(4)
        if source == 0:
            text = rng.choice(lines)
        elif source == 1:
            text = example_window(texts, rng, 4)
        elif source == 2:
            text = rng.choice(SNIPPETS)
        else:
            text = rng.choice(STRINGS + NEWLINE_CASES)
        out.append(cut(text, rng))
    return out


def _joined(rng, texts, lines):
    out = []
    for _ in range(100):
        parts = example_window(texts, rng, 4).split("\n")
        if rng.randrange(3) == 0:
            parts = rng.choice(SNIPPETS).split("\n") + parts
        k = rng.randrange(max(1, len(parts) - 1))
        glue = rng.choice([" ", "", "  ", "\t"])
        parts[k : k + 2] = [glue.join(parts[k : k + 2])]
        out.append("\n".join(parts))
    return out


def _habits(rng, texts, lines):
    out = []
    for habit in HABITS:
        out.append(habit)
        out.append("let x = var 2\n" + habit)
        out.append("repeat 2 {\n  " + habit.replace("\n", "\n  ") + "\n}")
        if rng.randrange(2):
            out.append(habit + "\nlet z = 1")
    return out


def _keywords(rng, texts, lines):
    pairs = [(t, k) for t in KEYWORD_TEMPLATES for k in KEYWORDS]
    rng.shuffle(pairs)
    return KEYWORD_SPECIALS + [t.format(k=k) for t, k in pairs[:230]]


def _strings(rng, texts, lines):
    out = list(STRINGS)
    string_lines = [line for line in lines if '"' in line]
    for _ in range(120):
        text = rng.choice(STRINGS[:60] + string_lines)
        out.append(mutate(text, rng, 1) if rng.randrange(2) else cut(text, rng))
    return out


def _tables(rng, texts, lines):
    out = list(TABLES)
    entries = ["1", "-2.5", "inf", "nan", "-inf", "x", "(1, 2)", "(3)", "()", "", "(1, 2, 3)", "1e-400", "[1]", '"a"']
    for _ in range(70):
        row = [rng.choice(entries) for _ in range(rng.randrange(4))]
        body = rng.choice([", ", ",", " ", ",\n "]).join(row)
        head = rng.choice(["let t = ", "for a, b in ", "for a in ", "print ", ""])
        tail = " { }" if head.startswith("for") else ""
        out.append(head + "[" + body + rng.choice(["]", "]", ",]", "", ")"]) + tail)
    return out


def _newlines(rng, texts, lines):
    out = list(NEWLINE_CASES)
    for _ in range(40):
        tokens = tokens_of(rng.choice(SNIPPETS + TABLES[:20]))
        places = [i for i, token in enumerate(tokens) if token in ("(", "[", ",", "{", "}", "+", "*")]
        if places:
            i = rng.choice(places)
            tokens.insert(i + rng.randrange(2), rng.choice(["\n", "\n\n", "\r\n", "\n# c\n"]))
        out.append("".join(tokens))
    return out


def _expects(rng, texts, lines):
    statements = ["grad(const 1)", "1", "let x = 1", "backward(loss)", "", "expect no-gradient: 1", "print 1"]
    out = [
        "expect no-gradient 1", "expect no-gradient:", "expect no-gradient:: 1", "expect no-gradient; 1",
        "expect no-gradient:\n 1", "expect : 1", "expect no-gradient: let x =", "expect: 1",
        "expect no-gradient: repeat 2 { }", "expect no-gradient: { }", "expect no-gradient: fn f() = 1",
        "quiet expect no-gradient: quiet 1", "expect\nno-gradient: 1", "expect no-gradient\n: 1",
        "expect no-gradient :1", "expect no - gradient: 1", "expect no-gradient: 1 ; 2",
    ]
    for _ in range(70):
        kind = rng.choice(BAD_KINDS + KINDS)
        out.append(f"expect {kind}: {rng.choice(statements)}")
    return out


def _unicode(rng, texts, lines):
    out = [
        "\ufefflet x = 1", "\ufefflet x = (1", "let x = 1\r\nlet y = (2\r\nlet z = 3",
        "let x = 1\r\nlet y = x +\r\n", "let x = 1\rlet y = 2", "let x = 1\r\rlet y = (",
        "\tlet x = 1\n\tlet y = x *", "let\tx\t=\t1\t+", "let café = 1", "let λ = 2", "let x² = 3",
        "let x = 1 − 2", "let x = 2 × 3", "print “a”", "let x = ｘ", "let x\u00a0= 1",
        "let x = 1\u2028let y = 2", "let x = 1\x85let y = 2", "let x = 1\x00", "\x00",
        "let x = \u200b1", "let x = 1 # café λ\nlet y = (", 'print "café {λ}"', "let x = 1\u0301",
        "if x > 1 {\r\n  print 1\r\n}\r\nelse {\r\n}", "let t = [1,\r\n 2\r\n", "print \"a\r\"",
    ]
    for _ in range(110):
        text = rng.choice(SNIPPETS + lines[:80])
        tokens = tokens_of(text)
        char = rng.choice(UNICODE_CHARS)
        if rng.randrange(4) == 0:
            text = text.replace("\n", rng.choice(["\r\n", "\r", "\n\r"]))
        else:
            i = rng.randrange(len(tokens) + 1)
            text = "".join(tokens[:i]) + char + "".join(tokens[i:])
        out.append(text)
    return out


def _blank(rng, texts, lines):
    return list(BLANK_TEXTS)


def _soup(rng, texts, lines):
    out = []
    for _ in range(110):
        count = 1 + rng.randrange(10)
        glue = rng.choice([" ", "", " "])
        out.append(glue.join(rng.choice(VOCABULARY) for _ in range(count)))
    return out


def _builder(rng, texts, lines):
    return list(BUILDER_CASES)


def _deep(rng, texts, lines):
    return _nesting()


_GROUPS = [
    _example_lines, _example_windows, _snippets, _cuts, _joined, _habits, _keywords, _strings,
    _tables, _newlines, _expects, _unicode, _blank, _soup, _builder, _deep,
]


def programs() -> list[str]:
    """The programs, in a fixed order, each once."""
    rng = random.Random(SEED)
    texts = example_texts()
    lines = example_lines(texts)
    seen: set[str] = set()
    out: list[str] = []
    for group in _GROUPS:
        for text in group(rng, texts, lines):
            if text not in seen:
                seen.add(text)
                out.append(text)
    return out


if __name__ == "__main__":
    import sys

    all_programs = programs()
    sys.stdout.write(f"{len(all_programs)} programs, {sum(map(len, all_programs))} characters\n")
