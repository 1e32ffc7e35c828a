"""The parser of `.sad` programs: lark's LALR parser, through its public API.

- ``grammars/scalarlang.lark`` (found by ``lexicon``) is loaded once with ``Lark.open``:
  LALR, lark's contextual lexer, and lark's own cache of the analysed grammar for start-up.
- ``layout.Layout`` (a ``PostLex``) applies the layout rules the grammar cannot say.
- ``builder.Builder`` (a ``Transformer``, run as the parser reduces) builds the AST, so the
  parse makes no tree of lark's and nothing recurses over the program.
- A syntax error is one of lark's exceptions; ``syntax_errors`` words it from what lark's
  ``InteractiveParser`` says the parser would have taken there (``accepts()``).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from typing import Any

from .collector import paused_collector
from .diagnostics import Diagnostic, LanguageError
from .lexicon import GRAMMAR_PATH, KEYWORDS
from .paths import user_dir
from .source import Source
from .syntax_errors import (
    MAX_NESTING,
    diagnostic,
    position,
    span_at,
    unexpected_character,
    unexpected_token,
)
from .tree import Expr, ExprStatement, Program

# ---- public API -------------------------------------------------------------------------


def parse_program(source: Source, *, freeze: bool = False) -> Program:
    """Parse a whole program; any syntax problem raises ``LanguageError``, and the memory
    running out ``MemoryError`` (nothing else). With ``freeze``, all that the collector tracks
    once the parse is done (lark and its tables, loaded by the first parse, and the tree) is
    moved out of its later scans (`gc.freeze`): for a process that keeps it all until it exits."""
    try:
        return _parse(source.text, freeze)
    except MemoryError:
        raise  # (its caller reports it once the parser's frames are freed: a diagnostic needs memory)
    except Exception as exc:  # every failure becomes one of our diagnostics
        raise LanguageError(diagnostic(exc, source)) from None


def parse_expression(source: Source) -> Expr:
    """Parse a text that must hold exactly one expression (e.g. `x*y + 1`)."""
    program = parse_program(source)
    statements = program.statements
    if len(statements) == 1 and isinstance(statements[0], ExprStatement):
        return statements[0].expr
    span = statements[0].span if statements else span_at(source.text, len(source.text), 0)
    raise LanguageError(Diagnostic("syntax-error", "expected a single expression", span, source))


def is_incomplete(error: LanguageError | Diagnostic) -> bool:
    """Whether a syntax error is input that ended while a parenthesis, bracket or brace was
    open: the REPL then reads another line instead of reporting it. (Strings never span
    lines, so an open string is a real error.)"""
    diagnostic = error.diagnostic if isinstance(error, LanguageError) else error
    return bool(diagnostic.fields.get("incomplete"))


# ---- the parser -----------------------------------------------------------------------------

@functools.cache
def _parser() -> Any:
    """The lark parser, built (or loaded from lark's cache) on first use: importing this
    module imports no lark (`scalarlang --help` and the highlighter never parse)."""
    from lark import Lark

    from .builder import Builder
    from .layout import Layout

    return Lark.open(
        str(GRAMMAR_PATH),
        parser="lalr",
        lexer="contextual",
        postlex=Layout(),
        transformer=Builder(),
        maybe_placeholders=True,
        cache=_cache_file(),
    )


def _cache_file() -> str | bool:
    """Where lark keeps the analysed grammar between runs: the user's cache directory, one file
    per grammar text (lark also checks a hash of grammar and options inside it). False when
    there is no writable place; a shared temp dir is not used because lark unpickles the file."""
    import lark

    folder = user_dir("cache")
    if folder is None:
        return False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(GRAMMAR_PATH.read_bytes()).hexdigest()[:20]
    except (OSError, RuntimeError):
        return False
    version = f"lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return str(folder / f"grammar-{digest}-{version}.lark-cache")


def _parse(text: str, freeze: bool) -> Program:
    # Tokens, spans and AST nodes make no reference cycles, so reference counting frees all
    # that is dropped; the cyclic collector would only rescan the growing AST, again and
    # again: 100,000 statements parsed in 12.6 s with it, 5.3 s without. The first parse also
    # imports lark and loads the parser (long-lived objects, none of them garbage): paused too.
    with paused_collector(freeze):
        return _parse_paused(text)


def _parse_paused(text: str) -> Program:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    from .source import spans_of

    parser = _parser()
    layout = parser.options.postlex
    layout.text = text
    try:
        with spans_of(text):
            return parser.parse(text)
    except UnexpectedToken as exc:
        token = exc.token
        if token.type == "TEXT":  # lark's fallback lexer read on from a `"` or `}`
            token = _token_at(text, token.start_pos)
        elif token.type == "SPEC_AND_RBRACE":  # a `:` outside a hole (`d = {a: b}`)
            token = _colon_at(text, token.start_pos)
        interactive = exc.interactive_parser
        expected = interactive.accepts() - _LAYOUT_ONLY
        raise unexpected_token(token, expected, interactive.parser_state.value_stack, text) from None
    except UnexpectedCharacters as exc:
        raise unexpected_character(text, exc.pos_in_stream or 0) from None
    finally:
        layout.text = ""


def _colon_at(text: str, start: int) -> Any:
    from lark import Token

    line, column = position(text, start)
    return Token("_COLON", ":", start, line, column, line, column + 1, start + 1)


# Terminals never worth naming in what was expected: the layout's (the parser takes it only
# where the layout puts it) and a hole's format spec (with its `}`: saying `}` is enough).
_LAYOUT_ONLY = frozenset({"_NEWLINES_BEFORE_ELSE", "SPEC_AND_RBRACE"})


def _token_at(text: str, start: int) -> Any:
    """The token that starts at ``start``, whatever the parser's state: lark's lexer of every
    terminal, on the text from there (after a blank, so that no string's text can start)."""
    from lark import Token
    from lark.exceptions import UnexpectedCharacters

    parser = _parser()
    layout = parser.options.postlex
    layout.text = " " + text[start:]
    try:
        first = next(iter(parser.lex(layout.text)))
    except UnexpectedCharacters:  # no token starts there
        raise unexpected_character(text, start) from None
    finally:
        layout.text = text
    line, column = position(text, start)
    end = start + len(first)
    end_line, end_column = position(text, end)
    return Token(first.type, str(first), start, line, column, end_line, end_column, end)


__all__ = [
    "GRAMMAR_PATH",
    "KEYWORDS",
    "MAX_NESTING",
    "is_incomplete",
    "parse_expression",
    "parse_program",
]
