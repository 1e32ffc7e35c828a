"""Hints for the habits of Python and micrograd users: the `.sad` form of what they typed.

Each hint is a note (``help: ...``) added to an error that happened anyway; it never changes
what is an error. ``character_hint`` answers a character no token starts with (``^``, ``.``),
``token_hint`` a token the parser did not take (``def f(x):``, ``for i in range(3):``,
``w -= ...``, ``while x:``, a slice's ``:``); ``call_hint`` a call of a Python function `.sad`
does not have (``range(n)``, ``ord(c)``, ``str(x)``, ``diff(y, x)``), ``arity_hint`` a built-in
given another library's arguments (``grad(y, x)``) and ``name_hint`` a Python word used as
a name (``True``, ``continue``); a built-in followed by a value is a call without its
parentheses (``tanh x``), and ``f"{x}"`` an f-string.
"""

from __future__ import annotations

import re
from typing import Any

from .bare_calls import BARE_CALLS, NOT_AN_ARGUMENT, bare_call_hint

_ATTRIBUTE = re.compile(r"\.[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(\()?")
_WORD_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9.]+)[ \t]*\Z")
_OPERAND_AFTER = re.compile(r"[ \t]*(-?[A-Za-z_][A-Za-z0-9_]*|-?[0-9.]+)")
_FIRST_WORD = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)")


def character_hint(text: str, pos: int) -> tuple[str, ...]:
    """A note for a character that starts no token, at ``text[pos]``."""
    char = text[pos]
    before = _line_before(text, pos)
    if char == "^":
        left = _WORD_BEFORE.search(before)
        right = _OPERAND_AFTER.match(text, pos + 1)
        example = f"{left.group(1)} ** {right.group(1)}" if left and right else "x ** 2"
        return (f"help: a power is written with `**`: `{example}`",)
    if char == ".":
        return _attribute_hint(text, pos, before)
    if char in "&|":
        return (_NO_AND_OR,)
    if char == "'":
        # Python's 'abc' (a quote closed on the line): `.sad` has one kind of quote.
        quoted = _SINGLE_QUOTED.match(text, pos)
        if quoted:
            example = '"' + quoted.group(1) + '"' if '"' not in quoted.group(1) else '"abc"'
            return (f"help: a text is written in double quotes: `{example}`",)
        return ()
    if char.isalpha() or char.isdigit():  # a letter or digit outside ASCII
        return ("help: names are ASCII letters, digits and `_`: `[A-Za-z_][A-Za-z0-9_]*`",)
    return ()


_SINGLE_QUOTED = re.compile(r"'([^'\n\\]{0,60})'")
_NO_AND_OR = "help: an `if` compares two values; for more than one condition, nest `if`s"


# Python modules whose functions have `.sad` built-ins of the same name (`np.dot`, `math.exp`).
_MODULES = {"np", "numpy", "math", "random", "torch", "F", "nn"}
_BUILT_IN_FORMS = {
    "dot": "`dot(a, b)`", "exp": "`exp(x)`", "log": "`log(x)`", "tanh": "`tanh(x)`",
    "sqrt": "`sqrt(x)`", "relu": "`relu(x)`", "sigmoid": "`sigmoid(x)`", "abs": "`abs(x)`",
    "sum": "`sum(xs)`", "mean": "`mean(xs)`", "max": "`max(xs)` (or `max(a, b)`)", "min": "`min(xs)` (or `min(a, b)`)",
    "uniform": "`uniform(a, b)` (the session's generator; `random_seed(N)` seeds it)",
    "gauss": "`gauss(mu, sigma)` (the session's generator; `random_seed(N)` seeds it)",
    "seed": "`random_seed(N)`",
    "shuffle": "`let L = shuffle(L)`: a new list, L's items in random.shuffle's order (the session's generator)",
    # Classifiers and language models: functions of one list of logits (no `dim`).
    "argmax": "`argmax(xs)` (the index of the first largest item)", "argmin": "`argmin(xs)`",
    "logsumexp": "`logsumexp(xs)` (of one list: no `dim`)", "softmax": "`softmax(xs)` (of one list: no `dim`)",
    "log_softmax": "`[x - logsumexp(xs) for x in xs]`",
    "cross_entropy": "`cross_entropy(logits, target)` for one example (a list of logits, the index of the right "
    "class); over examples, `mean([cross_entropy(L[i], T[i]) for i in 0..len(T)])`",
    "one_hot": "`one_hot(i, n)`",
    "choices": "`sample(P)`: an index drawn with probabilities P, as `random.choices(range(len(P)), weights=P)[0]`",
    "multinomial": "`sample(P)`: an index drawn with probabilities P (the session's generator)",
    "random": "`uniform(a, b)`, `gauss(mu, sigma)` or `sample(P)` (the session's generator; `random_seed(N)` seeds it)",
    # Tensors (`torch.tensor`, `np.zeros`, `torch.matmul`).
    "tensor": "`tensor(L)` (of a rectangular list)", "array": "`tensor(L)` (of a rectangular list)",
    "randn": "`randn(S, …)` (the session's generator)", "rand": "`rand(S, …)` (the session's generator)",
    "zeros": "`zeros(S, …)`", "ones": "`ones(S, …)`", "transpose": "`transpose(T)`", "reshape": "`reshape(T, S, …)`",
    "matmul": "the operator `A @ B`",
}


def _attribute_hint(text: str, pos: int, before: str) -> tuple[str, ...]:
    """`x.grad`, `x.backward()`, `ws.append(w)`, `np.dot(a, b)`: functions in `.sad`."""
    attribute = _ATTRIBUTE.match(text, pos)
    owner = _WORD_BEFORE.search(before)
    if attribute is not None and owner is None and before.rstrip().endswith("]"):
        # `[1, 2].append(3)`, `W[0].size`: a list before the dot
        if attribute.group(1) in ("append", "extend"):
            return ("help: lists never change: a longer one is `L + [item]` (`let L = L + [item]`)",)
        return ("help: `.sad` has no attributes or methods: call a function of the list, like `len(L)`",)
    if attribute is not None and owner is None and before.rstrip().endswith('"'):
        # `"abc".upper()`, `", ".join(names)`: a text before the dot
        literal = _STRING_BEFORE.search(before.rstrip())
        return (_text_method_hint(attribute.group(1), literal.group(0) if literal else '"..."', "T"),)
    if attribute is None or owner is None:
        return ()
    name, x = attribute.group(1), owner.group(1)
    if name in _TEXT_METHODS and x not in _MODULES:
        return (_text_method_hint(name, x, x),)
    if x in _MODULES:
        form = _BUILT_IN_FORMS.get(name)
        if form is not None:
            return (f"help: `.sad` has no modules: the built-in is {form}",)
        return ("help: `.sad` has no modules; the built-in functions are called by name, like `tanh(x)`",)
    forms = {
        "append": f"lists never change: a longer one is `{x} + [item]` (`let {x} = {x} + [item]`)",
        "extend": f"lists never change: a longer one is `{x} + more` (`let {x} = {x} + more`)",
        "grad": f"a stored gradient is `grad({x})`",
        "backward": f"a backward pass is `backward({x})`",
        "zero_grad": f"gradients are reset with `zero_grad({x})` (or `zero_grad` for every name)",
        "data": f"a value is `value({x})`; a gradient step is `descend {x} by LR`",
        "item": f"a value is `value({x})`",
        "tanh": f"functions are called: `tanh({x})`",
        "exp": f"functions are called: `exp({x})`",
        "log": f"functions are called: `log({x})`",
        "relu": f"functions are called: `relu({x})`",
        # Seeing the chain rule: statements of their own.
        "explain": f"`explain({x})` shows its pass adjoint and its stored gradient as sums",
        "paths": _paths_hint(x, _argument(text, attribute.end()) if attribute.group(2) else None),
        "walk": f"`walk({x})` is `backward({x})` shown edge by edge",
    }
    if name in forms:
        return (f"help: {forms[name]}",)
    return (f"help: `.sad` has no attributes or methods: call a function, like `{name}({x})`",)


# Python's methods of `str`, each answered with what `.sad` has (texts have no methods).
_TEXT_METHODS = frozenset((
    "split", "splitlines", "join", "lower", "upper", "strip", "lstrip", "rstrip", "replace", "startswith",
    "endswith", "find", "index", "count", "format", "title", "capitalize", "isalpha", "isdigit", "encode",
    "decode",
))
_STRING_BEFORE = re.compile(r'"(?:[^"\\]|\\.)*"\Z')
_TEXT_FUNCTIONS = "`len`, `lines`, `chars`, `join`, `encode` and `decode` (and `T[I]`, `T + U`, `T == U`)"


def _text_method_hint(name: str, text: str, operand: str) -> str:
    """What to write for Python's ``text.name(...)``."""
    if name in ("split", "splitlines"):
        return (f"help: texts have no methods: `lines({text})` splits a text at its line ends;"
                f" its characters are `[c for c in {text}]`")
    if name == "join":
        return f"help: texts have no methods: `join(L, {text})` joins the texts of a list with {text} between them"
    if name == "format":
        return 'help: texts have no methods: a value goes into a text through a hole, `"loss {loss}"`'
    if name in ("encode", "decode"):
        return (f"help: texts have no methods: `encode({operand}, VOCAB)` gives the indices of a text's characters"
                " in a vocabulary (`chars(T)`), `decode(L, VOCAB)` the text back")
    return f"help: texts have no methods, and `.sad` has no `{name}`: the functions of texts are {_TEXT_FUNCTIONS}"


def _paths_hint(output: str, variable: str | None) -> str:
    if variable is None:
        return f"`paths({output}, X)` lists the paths from `{output}` down to X"
    return f"`paths({output}, {variable})` lists the paths from `{output}` down to `{variable}`"


def _argument(text: str, pos: int) -> str | None:
    """The name right after ``(`` at ``pos`` (`loss.paths(x)`: `x`), if there is one."""
    match = _FIRST_WORD.match(text, pos)
    return match.group(1) if match else None


def token_hint(tok: Any, expected: set[str], stack: list, text: str) -> tuple[str, ...]:
    """A note for a token the parser did not take (``$END`` and ``_NL`` included)."""
    kind = tok.type
    before = _line_before(text, tok.start_pos)
    first = _FIRST_WORD.match(before)
    first_word = first.group(1) if first else None
    header = _open_header(stack)

    if first_word in ("import", "from") and before.strip() == first_word:
        return (_NOTHING_TO_IMPORT,)
    if kind == "RPAR" and _ZERO_GRAD_CALL.search(before):
        return ("help: `zero_grad` alone (no parentheses) zeroes every bound name's gradient;"
                " `zero_grad(EXPR)` the graph of EXPR",)
    if kind == "NAME" and first_word is not None and before.strip() == first_word:
        meant = _misspelled_keyword(first_word)  # `ler z = 3`
        if meant is not None:
            return (f"help: did you mean `{meant}`?",)
    if kind == "_EQUAL" and header == "FN":
        return ("help: a function's parameters are in parentheses, even none: `fn one() = 1`",)
    if kind == "_EQUAL":
        previous: Any = stack[-1] if stack else None  # has a `type` when `op` is not None
        op = getattr(previous, "type", None)
        if op in ("PLUS", "MINUS", "STAR", "SLASH") and previous.end_pos == tok.start_pos:
            name = _WORD_BEFORE.search(before[: len(before) - 1].rstrip())
            x = name.group(1) if name else "w"
            return (
                f"help: `.sad` has no `{previous}=`: write `let {x} = {x} {previous} ...`;"
                f" a gradient step is `descend {x} by LR`",
            )
        if before.rstrip().endswith("]"):  # `ws[0] = 2`
            return ("help: lists never change: make a new one, like `let ws = [2, ws[1]]`;"
                    " a gradient step of a list of variables is `descend ws by LR`",)
        function = _open_call(stack)
        after = text[tok.end_pos : tok.end_pos + 1]
        if function is not None and op == "NAME" and after not in ("<", ">"):  # `softmax(x, dim=0)`, `gradcheck(l, x, step=1e-4)`
            return (_keyword_hint(function, str(previous)),)
        return ("help: bind a name with `let NAME = EXPR`; compare with `assert A == B`",)
    if _STARTS_WITH["def"].search(before):
        return ("help: a function is `fn f(x) = EXPR`: one expression, no `:` and no `return`",)
    if kind == "_COLON" and header == "WHILE":
        return (f"help: a loop's body is a block in braces: `{_python_while(before)} {{ ... }}`",)
    if kind == "_COLON" and _innermost(stack) == "LSQB":
        return (
            "help: `.sad` has no slices: the items from i to j are `[L[k] for k in i..j]`,"
            " the characters of a text `join([T[k] for k in i..j])`",
        )
    if _STARTS_WITH["return"].search(before):
        return ("help: a function's body is the expression after `=`: `fn f(x) = x * x`",)
    if kind == "_COLON" and header == "FOR":
        return (f"help: a loop's body is a block in braces: `{_python_for(before)} {{ ... }}`",)
    if kind == "NAME" and str(tok) in ("and", "or", "not") and header in ("IF", None):
        return (_NO_AND_OR,)
    if kind == "NAME" and str(tok) in ("and", "or", "not") and header == "WHILE":
        return ("help: `while` runs while its condition is not 0; comparisons are 1 or 0, so two conditions"
                " that must both hold multiply: `while (a < 3) * (b < 2) { ... }`",)
    if kind == "NAME" and str(tok) == "elif":
        return ("help: write `else if`: `if A > B { ... } else if A < B { ... }`",)
    if kind == "LBRACE" and header == "IF":
        return ("help: an `if` compares two values: `if A > B { ... }`",)
    if kind == "_COLON" and "LBRACE" in expected:
        return ("help: a block is in braces, not after `:`: `if A > B { ... }`",)
    if kind == "_NL" and "LBRACE" in expected:
        return ("help: a block's `{` goes on the same line as its header: `repeat 3 {`",)
    if kind == "LPAR" and first_word == "let" and "_EQUAL" in expected:
        return ("help: a function is defined with `fn NAME(P, ...) = EXPR`",)
    if kind == "LBRACE" and header == "FN":
        return ("help: a function's body is one expression after `=`: `fn f(x) = x * x`",)
    if kind == "ELSE":
        return ("help: `else` follows the `}` of an `if`: `if A > B { ... } else { ... }`",)
    if _TEXT_FIRST.match(before) and expected & {"_NL", "$END", "_SEMI", "RBRACE"}:
        return ('help: a text on its own is a value line; `print "..."` prints it, `let s = "..."` names it',)
    if kind == "DOTDOT":
        return ("help: `A..B` is a range of a `for` loop: `for i in 0..3 { ... }`",)
    if kind == "QUOTE" and stack and getattr(stack[-1], "type", None) == "NAME" \
            and str(stack[-1]).lower() in ("f", "rf", "fr") and stack[-1].end_pos == tok.start_pos:
        quoted = _QUOTED.match(text, tok.start_pos)  # Python's f"{x}"
        example = quoted.group(0) if quoted else '"x is {x}"'
        return (f"help: `.sad` has no f-strings: every text takes `{{EXPR}}` holes, `{example}`",)
    if kind in _STATEMENT_STARTS and expected & {"_NL", "_SEMI"} and _whole_statement(before, first_word):
        example = f": `{before.strip()}; {tok} ...`" if len(before.strip()) <= 40 else ""
        return (f"help: two statements on one line are separated by `;`{example}",)
    if kind in ("NAME", "NUMBER", "QUOTE") and header not in ("IF", "WHILE", "FOR", "REPEAT") and stack:
        called: Any = stack[-1]  # `tanh x`, `grad x`, `backward loss`: a call without its parentheses
        if (getattr(called, "type", None) == "NAME" and str(called) in BARE_CALLS
                and called.end_pos < tok.start_pos and str(tok) != str(called)  # (not a doubled word)
                and not NOT_AN_ARGUMENT.match(text, tok.end_pos)):  # (`sum x = 2`, `value f(x)`)
            return (bare_call_hint(str(called), tok.start_pos, text, enclosed=_innermost(stack) is not None),)
    return ()


_QUOTED = re.compile(r'"[^"\n]{0,40}"')
# The tokens that start a statement (and nothing else).
_STATEMENT_STARTS = frozenset({"LET", "PRINT", "ASSERT", "EXPECT", "FN", "REPEAT", "FOR", "DESCEND", "QUIET", "WHILE"})


def _whole_statement(before: str, first_word: str | None) -> bool:
    """``before`` (a line up to a statement's keyword) reads as a statement of its own: `let x =
    var 2 let y = 3`, `backward(loss) print x`, `zero_grad let`. (After a lone word, `x let = 2`,
    `grad assert(…)`, words in the wrong order are as likely: no hint.)"""
    words = before.split()
    if words == ["zero_grad"]:
        return True
    return len(words) > 1 and first_word in _STATEMENT_WORDS or before.rstrip().endswith(")")


_NOTHING_TO_IMPORT = ("help: nothing needs importing: `exp`, `log`, `tanh`, `sqrt`, `relu`, `dot`, `sum`, `uniform`"
                      " and the rest are built in (`:help` lists them)")
_ZERO_GRAD_CALL = re.compile(r"\bzero_grad[ \t]*\([ \t]*\Z")
# Words that start a statement: a name one letter off one of them, followed by another word, is
# a misspelled keyword (`ler z = 3`, `pritn x`).
_STATEMENT_WORDS = ("let", "fn", "print", "assert", "expect", "repeat", "for", "if", "while", "descend", "quiet",
                    "zero_grad")


def _misspelled_keyword(word: str) -> str | None:
    """The statement keyword ``word`` is one typo from (a letter changed, added, dropped, or two
    swapped), if any."""
    if word in _STATEMENT_WORDS:
        return None
    return next((keyword for keyword in _STATEMENT_WORDS if _one_typo(word, keyword)), None)


def _one_typo(word: str, keyword: str) -> bool:
    if abs(len(word) - len(keyword)) > 1 or len(keyword) < 3:
        return False
    if len(word) == len(keyword):
        different = [i for i in range(len(word)) if word[i] != keyword[i]]
        if len(different) == 1:
            return True
        i = different[0] if different else 0
        return len(different) == 2 and different[1] == i + 1 and word[i] == keyword[i + 1] and word[i + 1] == keyword[i]
    shorter, longer = (word, keyword) if len(word) < len(keyword) else (keyword, word)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


_PYTHON_FOR = re.compile(
    r"for[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t]+range[ \t]*\([ \t]*([^,()]+?)[ \t]*"
    r"(?:,[ \t]*([^,()]+?)[ \t]*)?\)"
)


def _open_call(stack: list) -> str | None:
    """The function whose call's arguments are being parsed, if any: the name before the
    innermost `(` still open (an open `[` or `{` after it: none)."""
    for position in range(len(stack) - 1, 0, -1):
        kind = getattr(stack[position], "type", None)
        if kind in ("LSQB", "LBRACE"):
            return None
        if kind == "LPAR":
            before = stack[position - 1]
            return str(before) if getattr(before, "type", None) == "NAME" else None
    return None


def _keyword_hint(function: str, keyword: str) -> str:
    """`f(x, dim=0)`: PyTorch's dimension arguments, or a named argument written with `=`."""
    if keyword in ("dim", "axis", "keepdim", "keepdims"):
        return (f"help: `{function}` works along the one list it is given, so it takes no `{keyword}`; "
                f"for each row of a table, `[{function}(row) for row in W]`")
    return f"help: a named argument is written `{keyword}: VALUE`, not `{keyword}=VALUE` (as in `gradcheck(loss, x, step: 1e-4)`)"


def _python_for(line: str) -> str:
    """`for i in range(3)` -> `for i in 0..3` (`range(a, b)` -> `a..b`); else an example."""
    match = _PYTHON_FOR.search(line)
    if match is None:
        return " ".join(line.split()) or "for i in 0..3"
    name, first, second = match.groups()
    start, stop = (first, second) if second is not None else ("0", first)
    return f"for {name} in {start}..{stop}"


# A statement that starts with a text (`"loss {loss}" print`): the text was meant to be printed.
_TEXT_FIRST = re.compile(r'(?:^|[;{])[ \t]*"')


def _python_while(line: str) -> str:
    """`while True:` -> `while 1`; `while x < 3:` -> `while x < 3` (what is before it on its
    line, `repeat 3 {`, left out)."""
    header = " ".join(re.split(r"[{;]", line)[-1].split()) or "while x < 3"
    return re.sub(r"\bTrue\b", "1", header)


# A Python word at the start of a statement (or of a function's body), then the token the
# parser did not take: `def f(`, `return x`.
_STARTS_WITH = {
    "def": re.compile(r"(?:^|[;{])[ \t]*def[ \t]+\Z"),
    "return": re.compile(r"(?:^|[;{=])[ \t]*return[ \t]+\Z"),
}


def _open_header(stack: list) -> str | None:
    """The block statement whose header is being parsed (`for`, `if`, `fn` ...), if any: its
    keyword is on the parser's stack with no block opened after it."""
    for value in reversed(stack):
        kind = getattr(value, "type", None)
        if kind in ("LBRACE", "RBRACE"):
            return None
        if kind in ("FOR", "IF", "REPEAT", "FN", "DESCEND", "WHILE"):
            return kind
    return None


def _innermost(stack: list) -> str | None:
    """The kind of the innermost bracket still open on the parser's stack (`LSQB`, `LPAR`)."""
    depth = 0
    for value in reversed(stack):
        kind = getattr(value, "type", None)
        if kind in ("RPAR", "RSQB"):
            depth += 1
        elif kind in ("LPAR", "LSQB"):
            if depth == 0:
                return kind
            depth -= 1
    return None


def _line_before(text: str, pos: int) -> str:
    return text[text.rfind("\n", 0, pos) + 1 : pos]


def range_hint(call: Any) -> str:
    """The `.sad` range for Python's ``range(n)`` or ``range(a, b)`` (a `tree.Call`)."""
    bounds = [_number_text(arg) for arg in call.args[:2]]
    if len(bounds) == 1:
        bounds.insert(0, "0")
    if len(bounds) != 2:
        bounds = ["0", "n"]
    return f"help: count with a range: `{bounds[0]}..{bounds[1]}` (the end not included), as in `for i in {bounds[0]}..{bounds[1]}`"


def call_hint(call: Any, argument: str | None = None) -> tuple[str, ...]:
    """A note for a call of a function `.sad` does not have that Python does (a `tree.Call`;
    ``argument``: its first argument's source text, when it is short)."""
    name = call.function
    argument = argument or "x"
    if name == "range":
        return (range_hint(call),)
    if name in _DERIVATIVE_WORDS:
        return (gradient_hint(call),)
    forms = {
        "ord": f"a character's index is its place in a vocabulary: `encode({argument}, vocab)[0]`"
        " (`let vocab = chars(text)`)",
        "chr": f"the character at an index of a vocabulary is `vocab[{argument}]`, or `decode([{argument}], vocab)`",
        "list": f"the characters of a text are `[c for c in {argument}]`; its distinct ones, sorted, `chars({argument})`",
        "str": f'a value goes into a text through a hole: `"{{{argument}}}"`',
        "int": f"the whole number at or below a value is `floor({argument})`; `a // b` divides to one",
        "print": "`print` is a statement: `print x, \"text\"` (no parentheses needed)",
        "open": 'a file\'s text is `read_text("FILE")`, a CSV file\'s numbers `read_table("FILE.csv")`',
        "input": "`.sad` programs read files, not the keyboard: `read_text(\"FILE\")`",
    }
    form = forms.get(name)
    return (f"help: {form}",) if form is not None else ()


# PyTorch's `torch.autograd.grad(y, x)`, sympy's `diff(y, x)`: a derivative asked for by name.
_DERIVATIVE_WORDS = frozenset(("derivative", "diff", "gradient"))


def gradient_hint(call: Any) -> str:
    """dy/dx asked for as a function of y and x (`grad(y, x)`, `derivative(y, x)`): in `.sad`
    a backward pass from y, then x's stored gradient, in the call's own names where it has them."""
    args = call.args
    output = args[0].name if len(args) == 2 and hasattr(args[0], "name") else "OUT"
    wrt = args[1].name if len(args) == 2 and hasattr(args[1], "name") else "X"
    return (f"help: the derivative of {output} with respect to {wrt} is `backward({output})`, "
            f"then `grad({wrt})`: its gradient from that pass")


def arity_hint(call: Any) -> tuple[str, ...]:
    """A note for a built-in given another count of arguments, as another library's function of
    the same name takes them: PyTorch's `autograd.grad(y, x)` (the built-in's forms otherwise)."""
    if call.function == "grad" and len(call.args) == 2:
        return (gradient_hint(call),)
    return ()


_PYTHON_NAMES = {
    "True": "comparisons are 1 or 0: write `1` for True",
    "False": "comparisons are 1 or 0: write `0` for False",
    "None": "`.sad` has no None: every name holds a value",
    "continue": "`.sad` has no `continue`: put the rest of the loop's body in an `if`",
    "pass": "`.sad` has no `pass`: a block may be empty, `{ }`",
}


def name_hint(name: str) -> tuple[str, ...]:
    """A note for a Python word used as a name (`True`, `continue`)."""
    hint = _PYTHON_NAMES.get(name)
    return (f"help: {hint}",) if hint is not None else ()


def _number_text(node: Any) -> str:
    value = getattr(node, "value", None)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    name = getattr(node, "name", None)
    return name if isinstance(name, str) else "n"
