"""The wording of syntax errors: what the layout, the builder and lark reject, as Diagnostics.

The layout and the builder raise ``Reject`` (kind, message, span, notes); lark's parser raises
``UnexpectedToken``, which ``unexpected_token`` turns into a ``Reject`` that says what was found,
what would have done (in words: "an expression", "`)`"), and, for the habits of Python and
micrograd users, the `.sad` form (``hints``). ``diagnostic`` is the one place where anything
raised while parsing becomes a ``Diagnostic``.
"""

from __future__ import annotations

from typing import Any

from .diagnostics import Diagnostic, Related
from .lexicon import KEYWORDS, TERMINALS
from .source import Source, Span, tok_span

# Levels of parentheses and brackets (every `(` and `[`: calls, lists, indexing), unary minus,
# `var`/`const`; and, counted apart, of statements: blocks, `expect`, `quiet` and `else if`.
# Deeper input is the error `too-deep`: the interpreter walks the AST with explicit stacks,
# but renderers and Python's own dataclass repr/eq do not.
MAX_NESTING = 1000


class Reject(Exception):
    """A problem found by the lexer or the builder; turned into a Diagnostic in one place."""

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span,
        fields: dict | None = None,
        notes: tuple = (),
        related: tuple[Related, ...] = (),
    ):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.span = span
        self.fields = fields or {}
        self.notes = notes
        self.related = related


def too_deep(span: Span, what: str = "expression nests") -> Reject:
    return Reject(
        "too-deep", f"{what} deeper than {MAX_NESTING} levels", span, {"limit": MAX_NESTING}
    )


def syntax_error(
    message: str, span: Span, notes: tuple = (), related: tuple[Related, ...] = (), **fields: Any
) -> Reject:
    return Reject("syntax-error", message, span, fields, notes, related)


def diagnostic(exc: BaseException, source: Source) -> Diagnostic:
    """The one place where anything raised while parsing becomes a Diagnostic."""
    from lark.exceptions import VisitError

    if isinstance(exc, VisitError):  # not expected with an inline transformer; be safe
        exc = exc.orig_exc
    if isinstance(exc, Reject):
        return Diagnostic(exc.kind, exc.message, exc.span, source, exc.fields, exc.notes, exc.related)
    if isinstance(exc, RecursionError):  # not expected: nothing here recurses; be safe anyway
        exc = too_deep(end_span(source.text))
        return Diagnostic(exc.kind, exc.message, exc.span, source, exc.fields)
    return Diagnostic(
        "internal-error", f"the parser failed: {type(exc).__name__}: {exc}", None, source
    )


# ---- the lexer's and the builder's words ---------------------------------------------------


def unexpected_character(text: str, pos: int) -> Reject:
    char = text[pos]
    if char == "\\":
        message = 'unexpected `\\` (inside a string it starts an escape: `\\"`, `\\\\` or `\\n`)'
    else:
        message = f"unexpected character {quote_char(char)}"
    from .hints import character_hint  # (on first use: a program that parses needs no hints)

    return syntax_error(message, span_at(text, pos, 1), character_hint(text, pos))


# Tokens after which a keyword read as a NAME stands where only a name fits (not an operand).
_NAME_LISTS = {"LET", "FN", "FOR", "DESCEND", "_COMMA", "LPAR"}


def keyword_as_name(tok: Any, previous: str | None, bracket: Any = None) -> Reject:
    """The lexer reads a keyword as a NAME only where a name fits and the keyword does not:
    after `let`, in a list of names, or `var`/`const` as an operand (they take the whole
    expression on their right, so they only start one)."""
    word = str(tok)
    notes: tuple[str, ...]
    if word == "by" and previous == "DESCEND":
        message = "`descend` names the variables it steps, then `by` the rate"
        notes = ("help: `descend w, b by 0.1`",)
    elif word == "else" and previous not in _NAME_LISTS:
        message = "`else` must follow the `}` of an `if`"
        notes = ("help: `if A > B { ... } else { ... }`",)
    elif word in ("var", "const") and previous not in _NAME_LISTS:
        message = f"`{word}` applies to the whole expression on its right"
        notes = (f"help: write `({word} ...)` to use it inside a larger expression",)
    else:
        message, notes = f"`{word}` is a keyword and cannot be used as a name", ()
    span = tok_span(tok)
    return syntax_error(message, span, notes, _still_open(tok, span, [bracket] if bracket else []))


# ---- what lark's parser did not take ---------------------------------------------------------


def unexpected_token(tok: Any, expected: set[str], stack: list, text: str) -> Reject:
    """lark's parser did not take ``tok``: say what was found and what would have done
    (``expected``: the terminals it would have taken, lark's ``accepts()``; ``stack``: the
    parser's values, whose unreduced tokens tell what is open)."""
    stack = list(stack)
    if tok.type == "$END":
        found, span = "end of input", end_span(text)
    elif tok.type == "_NL":
        found, span = "end of line", span_at(text, tok.start_pos, 1)
    else:
        found, span = quote_text(str(tok)), tok_span(tok)
    at_end = tok.type in ("$END", "_NL")
    opened = open_brackets(stack)

    special = _special_message(tok, found, at_end, expected, opened, text, span)
    if special is not None:
        return syntax_error(*special)

    message = f"unexpected {found}"
    if expected:
        message += f", expected {describe_expected(expected)}"
    from .hints import token_hint  # (on first use)

    notes = token_hint(tok, expected, stack, text)
    related = _still_open(tok, span, opened)
    if tok.type == "$END" and opened and all(t.type != "QUOTE" for t in opened):
        return syntax_error(message, span, notes, related, incomplete=True)
    return syntax_error(message, span, notes, related)


def _special_message(tok, found, at_end, expected, opened, text, span):
    """(message, span, notes) for mistakes that the found/expected pair explains badly."""
    innermost = opened[-1].type if opened else None
    in_hole = innermost == "LBRACE" and _is_hole(opened)
    if innermost == "QUOTE":  # between a string's quotes
        if found == "`}`" and text[tok.end_pos : _line_end(text, tok.end_pos)].strip():
            return "a single `}` in a string must be doubled: `}}`", span, ()
        if at_end or found == "`}`":  # `}` last on its line: the closing quote is missing
            where = span_at(text, opened[-1].start_pos, 1)
            return 'unterminated string: it must end with `"` on the same line', where, ()
    if in_hole:
        if found == "`}`" and _last_value_is(opened[-1], tok, text):
            return "empty `{}` in a string (write `{{}}` for literal braces)", span, ()
        if at_end or found == '`"`':
            where = span_at(text, opened[-1].start_pos, 1)
            return "unclosed `{` in a string (write `{{` for a literal brace)", where, ()
    if tok.type == "RBRACE" and not any(t.type == "LBRACE" for t in opened):
        return "unexpected `}`: no block is open", span, ()
    if found == "`within`":
        return "`within` is only allowed in `assert A == B within TOLERANCE`", span, ()
    return None


def _still_open(tok: Any, span: Span, opened: list) -> tuple[Related, ...]:
    """Where the innermost bracket still open was opened, when the error (at ``span``) is found
    on a later line: a `(` or `[` left open lets the statement run on into the next lines
    (their newlines are dropped), and a block's `{` left open is found missing at the end of
    the input. (A string's `"` and a hole's `{` are where their own errors are shown.)"""
    if not opened or span.line <= opened[-1].line:
        return ()
    bracket = opened[-1]
    block_at_end = bracket.type == "LBRACE" and tok.type == "$END" and not _is_hole(opened)
    if bracket.type not in ("LPAR", "LSQB") and not block_at_end:
        return ()
    return (Related(f"the `{bracket}` opened here is not closed", tok_span(bracket)),)


def _is_hole(opened: list) -> bool:
    """Whether the innermost open `{` is a string's hole (`"... {`), not a block's."""
    return len(opened) > 1 and opened[-2].type == "QUOTE"


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _last_value_is(brace: Any, tok: Any, text: str) -> bool:
    """Whether only blanks stand between the hole's `{` and this `}`."""
    return not text[brace.end_pos : tok.start_pos].strip()


def open_brackets(stack: list) -> list:
    """The brackets left open on the parser's stack, outermost first: `(`, `[`, `{` (a block
    or a string's hole) and `"` (a string) tokens. Reduced values on the stack are balanced;
    a string's closing quote may still be there, unreduced."""
    opened: list = []
    for value in stack:
        kind = getattr(value, "type", None)
        if kind in ("LPAR", "LSQB", "LBRACE"):
            opened.append(value)
        elif kind in ("RPAR", "RSQB", "RBRACE", "SPEC_AND_RBRACE"):
            if opened:
                opened.pop()
        elif kind == "QUOTE":
            if opened and opened[-1].type == "QUOTE":
                opened.pop()
            else:
                opened.append(value)
    return opened


# Groups of terminals said as one phrase, then single terminals, in the order they are listed.
_EXPRESSION_START = {"NAME", "NUMBER", "INF", "NAN", "LPAR", "LSQB", "MINUS", "VAR", "CONST", "QUOTE"}
# The grammar's keywords (read from it: a new statement's keyword is here without a word) but
# those that only continue one.
_KEYWORD_TERMINALS = {
    name: value for name, (kind, value) in TERMINALS.items() if kind == "string" and value in KEYWORDS
}
_STATEMENT_START = (set(_KEYWORD_TERMINALS) - {"WITHIN", "IN", "ELSE", "BY"}) | _EXPRESSION_START
_TABLE_ENTRY = {"NUMBER", "INF", "NAN", "MINUS"}
_OPERATORS = {"PLUS", "MINUS", "STAR", "SLASH", "DSLASH", "PERCENT", "AT", "POW"}
_COMPARISONS = {"EQ", "NE", "LT", "LE", "GT", "GE"}
_ENDS = {"_NL", "_SEMI", "$END"}
_FRIENDLY = {
    "QUOTE": "a string",
    "WITHIN": "`within`",
    "RPAR": "`)`",
    "RSQB": "`]`",
    "_COMMA": "`,`",
    "RBRACE": "`}`",
    "DOTDOT": "`..`",
    "LBRACE": "`{`",
    "LPAR": "`(`",
    "LSQB": "`[`",
    "_EQUAL": "`=`",
    "_COLON": "`:`",
    "IN": "`in`",
    "BY": "`by`",
    "ELSE": "`else`",
    "NAME": "a name",
    "NUMBER": "a number",
    "KIND": "an error kind (kebab-case, like `no-gradient`)",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "DSLASH": "`//`",
    "PERCENT": "`%`",
    "AT": "`@`",
    "POW": "`**`",
    "EQ": "`==`",
    "NE": "`!=`",
    "LT": "`<`",
    "LE": "`<=`",
    "GT": "`>`",
    "GE": "`>=`",
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
    "QUIET": "`quiet`",
    "FN": "`fn`",
    "REPEAT": "`repeat`",
    "FOR": "`for`",
    "IF": "`if`",
    "DESCEND": "`descend`",
    "WHILE": "`while`",
    "BREAK": "`break`",
}
_FRIENDLY_ORDER = list(_FRIENDLY)


def describe_expected(expected: set[str]) -> str:
    """`{"RPAR", "_COMMA", "PLUS", ...}` -> "an operator, `)` or `,`" (always in one order)."""
    left = set(expected)
    phrases = []
    if "LET" in left:  # the start of a line, where a blank line would also do
        phrases.append("a statement")
        left -= _STATEMENT_START | _ENDS
    elif {"NAME", "NUMBER"} <= left:
        phrases.append("an expression")
        left -= _EXPRESSION_START
    elif {"NUMBER", "INF"} <= left:  # a table's entry
        phrases.append("a number")
        left -= _TABLE_ENTRY
    if {"PLUS", "STAR"} <= left or {"PLUS", "MINUS"} <= left:
        phrases.append("an operator")
        # After a name `(` would make a call and `[` index it: not worth saying. Where the
        # expression could also end, a comparison is one more operator; where it cannot (an
        # `assert` or an `if` needs one), the comparison gets its own phrase.
        can_end = bool(left - _OPERATORS - _COMPARISONS - {"LPAR", "LSQB"})
        left -= _OPERATORS | {"LPAR", "LSQB"} | (_COMPARISONS if can_end else set())
    if {"EQ", "NE"} <= left:
        phrases.append("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")
        left -= _COMPARISONS
    ends = _ENDS & left
    left -= _ENDS
    phrases += [_FRIENDLY[name] for name in _FRIENDLY_ORDER if name in left]
    phrases += sorted(f"`{_KEYWORD_TERMINALS.get(name, name)}`" for name in left if name not in _FRIENDLY)
    if ends - {"$END"}:
        phrases.append("the end of the statement")
    elif ends:
        phrases.append("end of input")
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " or " + phrases[-1]


# ---- spans for error positions --------------------------------------------------------------


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset (counting lines by `\\n`, as lark does)."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def span_at(text: str, start: int, width: int) -> Span:
    end = min(start + width, len(text))
    line, column = position(text, start)
    end_line, end_column = position(text, end)
    return Span(start, end, line, column, end_line, end_column)


def end_span(text: str) -> Span:
    """Where "end of input" is shown: just after the last thing that is not whitespace."""
    return span_at(text, len(text.rstrip()), 0)


def printable(char: str) -> str:
    return char if char.isprintable() else f"U+{ord(char):04X}"


def quote_char(char: str) -> str:
    if char.isprintable() and not char.isspace() and char != "`":
        return f"`{char}`"
    return f"U+{ord(char):04X}"


def quote_text(word: str, limit: int = 30) -> str:
    return f"`{word if len(word) <= limit else word[: limit - 1] + '…'}`"
