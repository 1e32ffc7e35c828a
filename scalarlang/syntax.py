"""The parser of `.sad` programs: grammar loading, lark's parse -> our AST, lark errors -> ours.

The grammar is ``grammars/scalarlang.lark`` (LALR, contextual lexer). The AST is built while
the parser reduces (lark's inline transformer), so nothing here recurses over the program: a
chain ``x+x+...+x`` is one repetition folded left in a loop, and nesting is counted as it is
reduced and capped at ``MAX_NESTING``.

lark is imported, and its tables loaded (from a cache file when one matches the grammar), on
the first parse, so importing this module costs nothing.

Spans: every node's span is exactly the source text of that expression, so
``source.slice(node.span)`` is its label. Parentheses are not part of the inner node's span
(``(a+b)`` holds a ``+`` node whose text is ``a+b``) but they are part of the enclosing node's
span (the ``*`` of ``(a+b)*c`` has text ``(a+b)*c``) and of the statement's.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Any

from .ast import (
    Assert,
    Binary,
    Call,
    Expect,
    Expr,
    ExprStatement,
    Leaf,
    Let,
    Name,
    Number,
    Print,
    Program,
    StringLiteral,
    Text,
    Unary,
    ZeroGrad,
)
from .diagnostics import Diagnostic, LanguageError
from .source import Source, Span

# Levels of parentheses (every `(`, also a call's and zero_grad's), unary minus, `var`/`const`
# and `expect` nesting. Deeper input is the error `too-deep`: the interpreter walks the AST
# with explicit stacks, but renderers and Python's own dataclass repr/eq do not.
MAX_NESTING = 1000

KEYWORDS = ("let", "var", "const", "print", "assert", "expect", "zero_grad", "within", "inf", "nan")
_KEYWORD_SET = frozenset(KEYWORDS)

# A wheel holds the grammar inside the package (scalarlang/grammars/, pyproject's package-dir);
# a source checkout (pip install -e .) has it only in the top-level grammars/ folder.
_PACKAGED_GRAMMAR = Path(__file__).parent / "grammars" / "scalarlang.lark"
GRAMMAR_PATH = (
    _PACKAGED_GRAMMAR
    if _PACKAGED_GRAMMAR.is_file()
    else Path(__file__).parents[1] / "grammars" / "scalarlang.lark"
)


# ---- public API -------------------------------------------------------------------------


def parse_program(source: Source) -> Program:
    """Parse a whole program; any syntax problem raises ``LanguageError`` (and nothing else)."""
    try:
        return _parse(source.text)
    except Exception as exc:  # every failure becomes one of our diagnostics
        raise LanguageError(_diagnostic(exc, source)) from exc


def parse_expression(source: Source) -> Expr:
    """Parse a text that must hold exactly one expression (e.g. `x*y + 1`)."""
    program = parse_program(source)
    statements = program.statements
    if len(statements) == 1 and isinstance(statements[0], ExprStatement):
        return statements[0].expr
    span = statements[0].span if statements else _span_at(source.text, len(source.text), 0)
    raise LanguageError(Diagnostic("syntax-error", "expected a single expression", span, source))


def is_incomplete(error: LanguageError | Diagnostic) -> bool:
    """Whether a syntax error is input that ended while parentheses were open: the REPL then
    reads another line instead of reporting it. (Strings never span lines, so an open string is
    a real error.)"""
    diagnostic = error.diagnostic if isinstance(error, LanguageError) else error
    return bool(diagnostic.fields.get("incomplete"))


# ---- loading the parser -------------------------------------------------------------------


@functools.cache
def _parser() -> Any:
    """The lark parser, built (or loaded from the cache) on first use."""
    from lark import Lark

    return Lark.open(
        str(GRAMMAR_PATH),
        parser="lalr",
        lexer="contextual",
        transformer=_Builder(),
        maybe_placeholders=True,
        cache=_cache_file(),
    )


@functools.cache
def _lexer() -> _Lexer:
    parser = _parser()
    return _Lexer(parser.lexer_conf.terminals, parser.lexer_conf.ignore)


def _cache_file() -> str | bool:
    """Where lark keeps the LALR tables between runs: the user's cache directory, one file per
    grammar text (lark also checks a hash of grammar and options inside it). False when there
    is no writable place; a shared temp dir is not used because lark unpickles the file."""
    import lark

    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        folder = base / "scalarlang"
        folder.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(GRAMMAR_PATH.read_bytes()).hexdigest()[:20]
    except (OSError, RuntimeError):
        return False
    version = f"lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return str(folder / f"grammar-{digest}-{version}.lark-cache")


# ---- driving lark's LALR parser -------------------------------------------------------------


def _parse(text: str) -> Program:
    """Feed our lexer's tokens to lark's LALR parser; the builder makes the AST as it reduces.

    lark's own lexer is not used: for our grammar it costs more than parsing, mostly in one
    extra match per ignored space. `_Lexer` does what lark's contextual lexer does (only the
    terminals the parser's state can take, keywords resolved the same way) in one match per
    token.
    """
    from lark.exceptions import UnexpectedToken

    interactive = _parser().parse_interactive("")
    collecting = gc.isenabled()
    gc.disable()  # see below
    try:
        _feed(_lexer().tokens(text, interactive), interactive.parser_state)
        return interactive.feed_token(_end_token(text))
    except UnexpectedToken as exc:
        raise _unexpected_token(exc, interactive, text) from None
    finally:
        # Tokens, spans and AST nodes make no reference cycles, so reference counting frees
        # all that is dropped; the cyclic collector would only rescan the growing AST, again
        # and again (a third to almost half of the parse time of a 100,000-line program).
        if collecting:
            gc.enable()


def _feed(tokens: Any, parser_state: Any) -> None:
    """What lark's ``feed_token`` does for each token but the last ($END), on lark's own
    state and value stacks, with the table of `_actions` (a third of the time of a parse
    went to lark's per-token call layers and to hashing its rules in Python)."""
    from lark.exceptions import UnexpectedToken

    actions = _actions()
    state_stack = parser_state.state_stack
    value_stack = parser_state.value_stack
    for token in tokens:
        kind = token.type
        while True:
            action = actions[state_stack[-1]].get(kind)
            if action is None:
                states = parser_state.parse_conf.states
                expected = {s for s in states[state_stack[-1]] if s.isupper()}
                raise UnexpectedToken(token, expected, state=parser_state, interactive_parser=None)
            target, size, callback = action
            if callback is None:  # shift
                state_stack.append(target)
                value_stack.append(token)
                break
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value_stack.append(callback(children))
            state_stack.append(actions[state_stack[-1]][target][0])


@functools.cache
def _actions() -> dict:
    """lark's LALR table, each action unpacked once: ``state -> {symbol: (target, size,
    callback)}``; a shift is ``(next state, 0, None)``, a reduce ``(the rule's nonterminal,
    its length, its callback)`` and a goto, under a nonterminal, ``(next state, 0, None)``.
    (lark's callbacks are all for rules: the grammar has no terminal callbacks.)"""
    from lark.parsers.lalr_analysis import Shift

    parser = _parser().parser.parser.parser  # Lark -> frontend -> LALR_Parser -> _Parser
    callbacks = parser.callbacks
    return {
        state: {
            symbol: (arg, 0, None) if action is Shift else (arg.origin.name, len(arg.expansion), callbacks[arg])
            for symbol, (action, arg) in row.items()
        }
        for state, row in parser.parse_table.states.items()
    }


def _end_token(text: str) -> Any:
    from lark import Token

    line, column = _position(text, len(text))
    return Token("$END", "", len(text), line, column, line, column, len(text))


# ---- internal errors raised while lexing and reducing ---------------------------------------


class _Reject(Exception):
    """A problem found by the lexer or the builder; turned into a Diagnostic in one place."""

    def __init__(
        self, kind: str, message: str, span: Span, fields: dict | None = None, notes: tuple = ()
    ):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.span = span
        self.fields = fields or {}
        self.notes = notes


def _too_deep(span: Span) -> _Reject:
    return _Reject(
        "too-deep",
        f"expression nests deeper than {MAX_NESTING} levels",
        span,
        {"limit": MAX_NESTING},
    )


def _syntax_error(message: str, span: Span, notes: tuple = (), **fields: Any) -> _Reject:
    return _Reject("syntax-error", message, span, fields, notes)


def _tok_span(tok: Any) -> Span:
    return Span(tok.start_pos, tok.end_pos, tok.line, tok.column, tok.end_line, tok.end_column)


def _join(first: Span, last: Span) -> Span:
    return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)


# ---- the lexer ----------------------------------------------------------------------------


class _Mode:
    """The lexer for one set of terminals the parser can take next, as one of lark's
    contextual lexers would do it, in a single regex match per token: alternatives in lark's
    order, keywords found by NAME and renamed (lark's "unless"), and ignored terminals (spaces,
    comments) skipped as a prefix of the match unless something outranks them (inside a
    string, TEXT.2 does: there they are ordinary alternatives that the lexer drops)."""

    def __init__(self, terminals: list, ignore: set[str]):
        from lark.lexer import PatternStr

        terminals = sorted(
            terminals,
            key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name),
        )
        self.rename: dict[str, dict[str, str]] = {}  # regex terminal -> {word: string terminal}
        embedded = set()
        for rex in (t for t in terminals if not isinstance(t.pattern, PatternStr)):
            for term in terminals:
                if isinstance(term.pattern, PatternStr) and term.priority == rex.priority:
                    word = term.pattern.value
                    match = re.match(rex.pattern.to_regexp(), word)
                    if match and match.group(0) == word:
                        self.rename.setdefault(rex.name, {})[word] = term.name
                        embedded.add(term.name)
        kept = [t for t in terminals if t.name not in embedded]
        skipped = [t for t in kept if t.name in ignore]
        prefix = ""
        if skipped and all(t.priority <= min(s.priority for s in skipped) for t in kept):
            # Atomic, so that a failed match never backtracks into a comment.
            prefix = "(?>(?:" + "|".join(t.pattern.to_regexp() for t in skipped) + ")*)"
            kept = [t for t in kept if t.name not in ignore]
        alternatives = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in kept)
        self.regex = re.compile(f"{prefix}(?:{alternatives})")


class _Lexer:
    """Tokens for lark's LALR parser, each lexed with the mode of the parser's current state
    (what lark's contextual lexer does), so `non-finite-seed` is a KIND after `expect` and a
    subtraction elsewhere, and a keyword where only a name fits is a NAME (then rejected)."""

    # Only inside a string does TEXT make sense; elsewhere it would swallow any stray text.
    _CONTEXT_ONLY = ("TEXT",)

    def __init__(self, terminals: list, ignore: list[str]):
        self.terminals = {t.name: t for t in terminals}
        self.ignore = frozenset(ignore)
        self.modes: dict[Any, _Mode] = {}  # parser state -> mode
        self.by_names: dict[frozenset, _Mode] = {}  # many states take the same terminals
        everything = [t for t in terminals if t.name not in self._CONTEXT_ONLY]
        self.root = _Mode(everything, self.ignore)  # to say what is there when nothing fits
        ignored = "|".join(self.terminals[name].pattern.to_regexp() for name in ignore)
        self.skip = re.compile(f"(?:{ignored})*")

    def mode(self, state: Any, choices: dict) -> _Mode:
        """The mode for a parser state, from what that state can take (`choices`)."""
        mode = self.modes.get(state)
        if mode is None:
            # A newline is always lexed (the parser may not take it, inside parentheses).
            names = frozenset(n for n in choices if n in self.terminals) | {"_NL"} | self.ignore
            mode = self.by_names.get(names)
            if mode is None:
                mode = _Mode([self.terminals[n] for n in names], self.ignore)
                self.by_names[names] = mode
            self.modes[state] = mode
        return mode

    def tokens(self, text: str, interactive: Any):
        """The tokens of `text` for lark's interactive parser, whose state is read before
        each token; ends at the end of the text."""
        from lark import Token

        state_stack = interactive.parser_state.state_stack
        guard = _Guard()
        ignore = self.ignore
        pos, line, line_start = 0, 1, 0
        while True:
            state = state_stack[-1]
            mode = self.modes.get(state) or self.mode(state, interactive.choices())
            match = mode.regex.match(text, pos)
            if match is None:
                mode, match = self.root, self.unexpected(text, pos)
                if match is None:
                    return
            kind = match.lastgroup
            start, end = match.start(kind), match.end()
            if start > pos and (skipped := text.count("\n", pos, start)):
                line, line_start = line + skipped, text.rfind("\n", pos, start) + 1
            value = match.group(kind)
            rename = mode.rename.get(kind)
            if rename:
                kind = rename.get(value, kind)
            column = start - line_start + 1
            newlines = value.count("\n")
            if newlines:
                line_start = text.rfind("\n", start, end) + 1
                end_line, end_column = line + newlines, end - line_start + 1
            else:
                end_line, end_column = line, column + (end - start)
            token = Token(kind, value, start, line, column, end_line, end_column, end)
            pos, line = end, end_line
            if kind not in ignore and guard.admit(token):
                yield token

    def unexpected(self, text: str, pos: int) -> Any:
        """Nothing the parser takes is at `pos`: the root match of whatever token is there
        (the parser will reject it and say what it expected), None at the end of the text."""
        match = self.root.regex.match(text, pos)
        if match is not None:
            return match
        bad = self.skip.match(text, pos).end()
        if bad >= len(text):
            return None
        raise _unexpected_character(text, bad)


class _Guard:
    """What the grammar cannot say, checked token by token for one parse: newlines inside
    parentheses are dropped, keywords are not names, and `(` and `expect` nesting stops at
    MAX_NESTING before the parser stack grows."""

    __slots__ = ("expects", "in_string", "parens", "previous")

    def __init__(self):
        self.parens = self.expects = 0
        self.in_string = False
        self.previous = None

    def admit(self, token: Any) -> bool:
        kind = token.type
        if kind == "NAME":
            if token in _KEYWORD_SET:
                raise _keyword_as_name(token, self.previous)
        elif kind == "LPAR":
            self.parens += 1
            if self.parens > MAX_NESTING:
                raise _too_deep(_tok_span(token))
        elif kind == "RPAR":
            self.parens = max(self.parens - 1, 0)
        elif kind == "_NL":
            # A string never spans lines, even inside a `{...}` hole with parentheses.
            if self.parens and not self.in_string:
                return False
            self.expects = 0
        elif kind == "_SEMI":
            self.expects = 0
        elif kind == "QUOTE":
            self.in_string = not self.in_string
        elif kind == "EXPECT":
            self.expects += 1
            if self.expects > MAX_NESTING:
                raise _too_deep(_tok_span(token))
        self.previous = kind
        return True


def _keyword_as_name(tok: Any, previous: str | None) -> _Reject:
    """The lexer reads a keyword as a NAME only where a name fits and the keyword does not:
    after `let`, or `var`/`const` as an operand (they take the whole expression on their
    right, so they only start one)."""
    word = str(tok)
    if word in ("var", "const") and previous != "LET":
        message = f"`{word}` applies to the whole expression on its right"
        notes = (f"help: write `({word} ...)` to use it inside a larger expression",)
    else:
        message, notes = f"`{word}` is a keyword and cannot be used as a name", ()
    return _syntax_error(message, _tok_span(tok), notes)


# ---- the builder: lark's inline transformer -----------------------------------------------


class _Part:
    """An expression being built: its node, the span its parent covers (with any enclosing
    parentheses, which the node's own span leaves out) and its nesting depth."""

    __slots__ = ("depth", "node", "outer")

    def __init__(self, node: Expr, outer: Span, depth: int):
        self.node = node
        self.outer = outer
        self.depth = depth


def _nested(node: Expr, depth: int, opener: Any) -> _Part:
    """A node one level deeper than its deepest child; `opener` is the token blamed if that
    crosses the limit (the `-`, `var`, `(` or function name of the node)."""
    if depth > MAX_NESTING:
        raise _too_deep(_tok_span(opener))
    return _Part(node, node.span, depth)


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n"}
_TEXT_PIECE = re.compile(r"\\(.)|\{\{|\}\}", re.DOTALL)


def _decode_text(tok: Any) -> Text:
    """A TEXT token with escapes and doubled braces resolved."""

    def replace(match: re.Match) -> str:
        escaped = match.group(1)
        if escaped is None:
            return match.group(0)[0]
        if escaped in _ESCAPES:
            return _ESCAPES[escaped]
        start = tok.start_pos + match.start()  # a TEXT token never spans lines
        column = tok.column + match.start()
        raise _syntax_error(
            f"unknown escape `\\{_printable(escaped)}` in a string"
            ' (the escapes are `\\"`, `\\\\` and `\\n`; braces are doubled: `{{`, `}}`)',
            Span(start, start + 2, tok.line, column, tok.line, column + 2),
        )

    return Text(_tok_span(tok), _TEXT_PIECE.sub(replace, str(tok)))


class _Builder:
    """One method per grammar alias, each called by lark with the production's children as
    the parser reduces it. Expressions travel as `_Part`s; statements are finished nodes."""

    # -- program and statements

    def start(self, statements: list) -> Program:
        return Program(tuple(statements))

    def expr_stmt(self, children: list) -> ExprStatement:
        (part,) = children
        return ExprStatement(part.outer, part.node)

    def let_stmt(self, children: list) -> Let:
        keyword, name, part = children
        return Let(_join(_tok_span(keyword), part.outer), str(name), _tok_span(name), part.node)

    def print_stmt(self, children: list) -> Print:
        keyword, *items = children
        nodes = tuple(item if isinstance(item, StringLiteral) else item.node for item in items)
        last = items[-1]
        end = last.span if isinstance(last, StringLiteral) else last.outer
        return Print(_join(_tok_span(keyword), end), nodes)

    def zero_grad_all(self, children: list) -> ZeroGrad:
        return ZeroGrad(_tok_span(children[0]), None)

    def zero_grad_one(self, children: list) -> ZeroGrad:
        keyword, open_, part, close = children
        if part.depth + 1 > MAX_NESTING:  # every `(` is a level, as the lexer counts them
            raise _too_deep(_tok_span(open_))
        return ZeroGrad(_join(_tok_span(keyword), _tok_span(close)), part.node)

    def assert_stmt(self, children: list) -> Assert:
        keyword, left, op, right, *within = children  # within: [] or [WITHIN, tolerance]
        if within:
            tolerance = within[1]
            span = _join(_tok_span(keyword), tolerance.outer)
            return Assert(span, str(op), left.node, right.node, tolerance.node)
        return Assert(_join(_tok_span(keyword), right.outer), str(op), left.node, right.node, None)

    def expect_stmt(self, children: list) -> Expect:
        keyword, kind, statement = children
        span = _join(_tok_span(keyword), statement.span)
        return Expect(span, str(kind), _tok_span(kind), statement)

    # -- expressions

    def leaf(self, children: list) -> _Part:
        keyword, part = children
        node = Leaf(_join(_tok_span(keyword), part.outer), str(keyword), part.node)
        return _nested(node, part.depth + 1, keyword)

    def sum(self, children: list) -> _Part:
        """`a op b op c ...`, folded left in a loop: ((a op b) op c) ..."""
        acc = children[0]
        node, first, depth = acc.node, acc.outer, acc.depth
        for i in range(1, len(children), 2):
            right = children[i + 1]
            node = Binary(_join(first, right.outer), str(children[i]), node, right.node)
            depth = max(depth, right.depth)
        return _Part(node, node.span, depth)

    product = sum

    def neg(self, children: list) -> _Part:
        minus, part = children
        node = Unary(_join(_tok_span(minus), part.outer), "-", part.node)
        return _nested(node, part.depth + 1, minus)

    def number(self, children: list) -> _Part:
        (tok,) = children
        span = _tok_span(tok)
        return _Part(Number(span, float(tok)), span, 0)

    def name(self, children: list) -> _Part:
        (tok,) = children
        span = _tok_span(tok)
        return _Part(Name(span, str(tok)), span, 0)

    def call(self, children: list) -> _Part:
        function, _open, args, close = children
        args = args or []
        span = _join(_tok_span(function), _tok_span(close))
        node = Call(span, str(function), _tok_span(function), tuple(a.node for a in args))
        return _nested(node, max((a.depth for a in args), default=0) + 1, function)

    def args(self, parts: list) -> list:
        return parts

    def group(self, children: list) -> _Part:
        open_, part, close = children
        if part.depth + 1 > MAX_NESTING:
            raise _too_deep(_tok_span(open_))
        return _Part(part.node, _join(_tok_span(open_), _tok_span(close)), part.depth + 1)

    def string(self, children: list) -> StringLiteral:
        open_, *pieces, close = children
        parts = tuple(_decode_text(p) if not isinstance(p, _Part) else p.node for p in pieces)
        return StringLiteral(_join(_tok_span(open_), _tok_span(close)), parts)


# ---- errors -> our diagnostics ------------------------------------------------------------


def _diagnostic(exc: BaseException, source: Source) -> Diagnostic:
    """The one place where anything raised while parsing becomes a Diagnostic."""
    from lark.exceptions import VisitError

    if isinstance(exc, VisitError):  # not expected with an inline transformer; be safe
        exc = exc.orig_exc
    if isinstance(exc, _Reject):
        return Diagnostic(exc.kind, exc.message, exc.span, source, exc.fields, exc.notes)
    if isinstance(exc, RecursionError):  # not expected: nothing here recurses; be safe anyway
        exc = _too_deep(_end_span(source.text))
        return Diagnostic(exc.kind, exc.message, exc.span, source, exc.fields)
    return Diagnostic(
        "internal-error", f"the parser failed: {type(exc).__name__}: {exc}", None, source
    )


def _unexpected_character(text: str, pos: int) -> _Reject:
    char = text[pos]
    if char == "\\":
        message = 'unexpected `\\` (inside a string it starts an escape: `\\"`, `\\\\` or `\\n`)'
    else:
        message = f"unexpected character {_quote_char(char)}"
    return _syntax_error(message, _span_at(text, pos, 1))


def _unexpected_token(exc: Any, interactive: Any, text: str) -> _Reject:
    """lark's parser did not take a token: say what was found and what would have done."""
    tok = exc.token
    expected = _expected_terminals(exc, interactive)
    stack = list(interactive.parser_state.value_stack)
    if tok.type == "$END":
        found, span = "end of input", _end_span(text)
    elif tok.type == "_NL":
        found, span = "end of line", _span_at(text, tok.start_pos, 1)
    else:
        found, span = _quote_text(str(tok)), _tok_span(tok)
    at_end = tok.type in ("$END", "_NL")

    special = _special_message(found, at_end, expected, stack, text, span)
    if special is not None:
        return _syntax_error(*special)

    message = f"unexpected {found}"
    if expected:
        message += f", expected {_describe_expected(expected)}"
    notes: tuple = ()
    if found == "`=`":
        notes = ("help: bind a name with `let NAME = EXPR`; compare with `assert A == B`",)
    elif found == '`"`' and "LET" in expected:
        notes = ('help: a string is printed with `print "..."`',)
    if tok.type == "$END" and _open_paren(stack):
        return _syntax_error(message, span, notes, incomplete=True)
    return _syntax_error(message, span, notes)


def _special_message(found, at_end, expected, stack, text, span):
    """(message, span, notes) for mistakes that the found/expected pair explains badly."""
    if "TEXT" in expected:  # inside a string, between its quotes
        if found == "`}`":
            return "a single `}` in a string must be doubled: `}}`", span, ()
        if at_end:
            quote = _last_token(stack, "QUOTE")
            where = _span_at(text, quote.start_pos, 1) if quote is not None else span
            return 'unterminated string: it must end with `"` on the same line', where, ()
    if found == "`}`" and stack and getattr(stack[-1], "type", None) == "_LBRACE":
        return "empty `{}` in a string (write `{{}}` for literal braces)", span, ()
    if "_RBRACE" in expected and (at_end or found == '`"`'):
        brace = _last_token(stack, "_LBRACE")
        where = _span_at(text, brace.start_pos, 1) if brace is not None else span
        return "unclosed `{` in a string (write `{{` for a literal brace)", where, ()
    if found == "`within`":
        return "`within` is only allowed in `assert A == B within TOLERANCE`", span, ()
    return None


def _expected_terminals(exc: Any, interactive: Any) -> set[str]:
    """What the parser could have taken: lark's `accepts` (exact: each terminal tried on a
    copy of the parser state) when it can be computed, else the state's lookaheads."""
    try:
        return set(interactive.accepts())
    except Exception:  # noqa: BLE001 - only a worse message is at stake
        return set(exc.expected or ())


def _open_paren(stack: list) -> bool:
    """Whether an unreduced `(` is on the parser's stack and no string is open."""
    types = {getattr(v, "type", None) for v in stack}
    return "LPAR" in types and "QUOTE" not in types


def _last_token(stack: list, kind: str) -> Any:
    for value in reversed(stack):
        if getattr(value, "type", None) == kind:
            return value
    return None


# Groups of terminals said as one phrase, then single terminals, in the order they are listed.
_EXPRESSION_START = {"NAME", "NUMBER", "INF", "NAN", "LPAR", "MINUS", "VAR", "CONST"}
_STATEMENT_START = {"LET", "PRINT", "ASSERT", "EXPECT", "ZERO_GRAD"} | _EXPRESSION_START
_OPERATORS = {"PLUS", "MINUS", "STAR", "SLASH"}
_COMPARISONS = {"EQ", "NE", "LT", "LE", "GT", "GE"}
_FRIENDLY = {
    "QUOTE": "a string",
    "WITHIN": "`within`",
    "RPAR": "`)`",
    "_COMMA": "`,`",
    "_RBRACE": "`}`",
    "LPAR": "`(`",
    "_EQUAL": "`=`",
    "_COLON": "`:`",
    "NAME": "a name",
    "NUMBER": "a number",
    "KIND": "an error kind (kebab-case, like `no-gradient`)",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "EQ": "`==`",
    "NE": "`!=`",
    "LT": "`<`",
    "LE": "`<=`",
    "GT": "`>`",
    "GE": "`>=`",
    "_LBRACE": "`{`",
    "TEXT": "text",
    "VAR": "`var`",
    "CONST": "`const`",
    "INF": "`inf`",
    "NAN": "`nan`",
    "LET": "`let`",
    "PRINT": "`print`",
    "ASSERT": "`assert`",
    "EXPECT": "`expect`",
    "ZERO_GRAD": "`zero_grad`",
}
_FRIENDLY_ORDER = list(_FRIENDLY)


def _describe_expected(expected: set[str]) -> str:
    """`{"RPAR", "_COMMA", "PLUS", ...}` -> "an operator, `)` or `,`" (always in one order)."""
    left = set(expected)
    phrases = []
    if "LET" in left:  # the start of a line, where a blank line would also do
        phrases.append("a statement")
        left -= _STATEMENT_START | {"_NL", "_SEMI", "$END"}
    elif {"NAME", "NUMBER"} <= left:
        phrases.append("an expression")
        left -= _EXPRESSION_START
    if {"PLUS", "STAR"} <= left:
        phrases.append("an operator")
        left -= _OPERATORS | {"LPAR"}  # after a name `(` would make a call: not worth saying
    if {"EQ", "NE"} <= left:
        phrases.append("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")
        left -= _COMPARISONS
    ends = {"_NL", "_SEMI", "$END"} & left
    left -= {"_NL", "_SEMI", "$END"}
    phrases += [_FRIENDLY[name] for name in _FRIENDLY_ORDER if name in left]
    phrases += sorted(f"`{name}`" for name in left if name not in _FRIENDLY)
    if ends - {"$END"}:
        phrases.append("the end of the statement")
    elif ends:
        phrases.append("end of input")
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " or " + phrases[-1]


# ---- spans for error positions --------------------------------------------------------------


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset (counting lines by `\\n`, as lark does)."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _span_at(text: str, start: int, width: int) -> Span:
    end = min(start + width, len(text))
    line, column = _position(text, start)
    end_line, end_column = _position(text, end)
    return Span(start, end, line, column, end_line, end_column)


def _end_span(text: str) -> Span:
    """Where "end of input" is shown: just after the last thing that is not whitespace."""
    return _span_at(text, len(text.rstrip()), 0)


def _printable(char: str) -> str:
    return char if char.isprintable() else f"U+{ord(char):04X}"


def _quote_char(char: str) -> str:
    if char.isprintable() and not char.isspace() and char != "`":
        return f"`{char}`"
    return f"U+{ord(char):04X}"


def _quote_text(word: str, limit: int = 30) -> str:
    return f"`{word if len(word) <= limit else word[: limit - 1] + '…'}`"


__all__ = [
    "GRAMMAR_PATH",
    "KEYWORDS",
    "MAX_NESTING",
    "is_incomplete",
    "parse_expression",
    "parse_program",
]
