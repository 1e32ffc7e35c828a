"""The layout rules a grammar cannot say, as lark's `PostLex` (like its `Indenter`): the
tokens of the contextual lexer pass through `Layout.process` on their way to the parser.

- A newline inside `( ... )` or `[ ... ]` does not end a statement: it is dropped (lark lexes
  one in every parser state, `always_accept`, so that it can be dropped here).
- Keywords are not names: a keyword lexed as a NAME (where only a name fits, as after `let`)
  is an error, worded for the habit behind it (`var` inside an expression, `else` out of place).
- Keywords are whole words: where only a keyword fits, lark's lexer takes `in` out of `indata`;
  the whole word goes on as one NAME, which the parser then rejects with what it expected.
- Nesting is limited (`MAX_NESTING`): parentheses and brackets, and statements inside blocks,
  `expect`, `quiet` and `else if`. Deeper input is the error `too-deep` before the parser's
  stack grows.

One `Layout` serves every parse of its parser; the state of a parse lives in the generator,
and the text being parsed (for whole words) is set per thread before each parse.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any, cast

from lark import Token
from lark.lark import PostLex

from .lexicon import KEYWORDS, TERMINALS
from .source import tok_span
from .syntax_errors import MAX_NESTING, keyword_as_name, too_deep

_KEYWORDS = frozenset(KEYWORDS)
_KEYWORD_KINDS = frozenset(name for name, (kind, value) in TERMINALS.items() if value in _KEYWORDS)
_WORD_CHARACTER = re.compile(r"[A-Za-z0-9_]")
_REST_OF_WORD = re.compile(r"[A-Za-z0-9_]*")
# What the layout looks at; other tokens pass untouched.
_WATCHED = frozenset(
    ("LPAR", "RPAR", "LSQB", "RSQB", "LBRACE", "RBRACE", "SPEC_AND_RBRACE", "QUOTE", "_NL", "_SEMI", "EXPECT",
     "QUIET", "IF")
)
# What stays open, innermost last: a `(`, a `[`, a block's `{`, a string's `{` hole, a string,
# a string inside a hole (one more level of nesting, as a parenthesis is).
_PAREN, _BRACKET, _BLOCK, _HOLE, _STRING, _INNER_STRING = "(", "[", "{", "h", '"', "'"
_STRINGS = (_STRING, _INNER_STRING)


class Layout(PostLex):
    always_accept = ("_NL",)

    def __init__(self) -> None:
        self._current = threading.local()

    @property
    def text(self) -> str:
        """The text being parsed in this thread."""
        return getattr(self._current, "text", "")

    @text.setter
    def text(self, text: str) -> None:
        self._current.text = text

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        text = self.text
        guard = _Guard()
        previous: str | None = None  # the kind of the last token the parser was given
        for token in stream:
            kind = token.type
            if kind in _KEYWORD_KINDS and _WORD_CHARACTER.match(text, _end(token)):
                token = _whole_word(token, text)
                kind = "NAME"  # (the parser rejects it: only the keyword fitted here)
            elif kind in _WATCHED:
                if not guard.track(kind, token, previous):
                    continue  # a newline inside brackets
            elif kind == "NAME":
                if token in _KEYWORDS:
                    raise guard.keyword_as_name(token, previous)
            previous = kind
            yield token


def _end(token: Token) -> int:
    return cast(int, token.end_pos)  # lark's lexer sets every position of its tokens


def _whole_word(keyword: Token, text: str) -> Token:
    """The NAME of the whole word a keyword was lexed out of (`in` of `indata`)."""
    end = cast(re.Match, _REST_OF_WORD.match(text, _end(keyword))).end()  # (`*` matches anywhere)
    word = text[cast(int, keyword.start_pos) : end]
    return Token(
        "NAME", word, keyword.start_pos, keyword.line, keyword.column,
        keyword.line, cast(int, keyword.column) + len(word), end,
    )


class _Guard:
    """The brackets open now and the nesting of the statement being read, for one parse.

    A newline is dropped when the innermost open thing is `(` or `[` and no string is open
    (strings never span lines, even inside a hole's parentheses). ``level`` is the nesting of
    the statement being read: each block, `expect`, `quiet` and `else if` is one; a newline or
    `;` goes back to the level of the enclosing block.
    """

    __slots__ = ("block_levels", "brackets", "level", "open", "parens", "strings")

    def __init__(self) -> None:
        self.open: list[str] = []
        self.parens = self.strings = self.level = 0
        self.block_levels: list[int] = []  # the level inside each open block
        self.brackets: list[Any] = []  # the open `(` and `[` tokens, for an error to point back at

    def keyword_as_name(self, token: Any, previous: str | None) -> Exception:
        """The error for a keyword lexed as a NAME (where only a name fits)."""
        bracket = self.brackets[-1] if self.brackets and self.open[-1] in "([" else None
        return keyword_as_name(token, previous, bracket)

    def track(self, kind: str, token: Any, previous: str | None) -> bool:
        """Follow a bracket, separator or statement prefix; False for a token the parser must
        not see (a newline inside brackets)."""
        opened = self.open
        if kind == "_NL":
            if opened and opened[-1] in "([" and not self.strings:
                return False
            self.level = self.block_levels[-1] if self.block_levels else 0
        elif kind == "LPAR":
            opened.append(_PAREN)
            self.brackets.append(token)
            self.parens += 1
            if self.parens > MAX_NESTING:
                raise too_deep(tok_span(token))
        elif kind == "RPAR":
            if opened and opened[-1] == _PAREN:
                opened.pop()
                self.brackets.pop()
                self.parens -= 1
        elif kind == "QUOTE":
            if opened and opened[-1] in _STRINGS:
                if opened.pop() == _INNER_STRING:
                    self.parens -= 1
                self.strings -= 1
            elif opened and opened[-1] == _HOLE:  # a text inside a text's hole
                opened.append(_INNER_STRING)
                self.strings += 1
                self.parens += 1
                if self.parens > MAX_NESTING:
                    raise too_deep(tok_span(token))
            else:
                opened.append(_STRING)
                self.strings += 1
        elif kind == "LBRACE":
            if opened and opened[-1] in _STRINGS:
                opened.append(_HOLE)
            else:
                opened.append(_BLOCK)
                self._deeper(token, "blocks nest")
                self.block_levels.append(self.level)
        elif kind == "SPEC_AND_RBRACE":  # `:.3f}` closes a hole
            if opened and opened[-1] == _HOLE:
                opened.pop()
        elif kind == "RBRACE":
            if opened and opened[-1] == _BLOCK:
                self.level = self.block_levels.pop() - 1  # the header's level, for `else`
            if opened and opened[-1] in (_BLOCK, _HOLE):
                opened.pop()
        elif kind == "LSQB":
            opened.append(_BRACKET)
            self.brackets.append(token)
            self.parens += 1
            if self.parens > MAX_NESTING:
                raise too_deep(tok_span(token))
        elif kind == "RSQB":
            if opened and opened[-1] == _BRACKET:
                opened.pop()
                self.brackets.pop()
                self.parens -= 1
        elif kind == "_SEMI":
            self.level = self.block_levels[-1] if self.block_levels else 0
        elif kind == "IF":
            if previous == "ELSE":
                self._deeper(token, "`else if` chains nest")
        else:  # EXPECT, QUIET
            self._deeper(token, "statements nest")
        return True

    def _deeper(self, token: Any, what: str) -> None:
        self.level += 1
        if self.level > MAX_NESTING:
            raise too_deep(tok_span(token), what)
