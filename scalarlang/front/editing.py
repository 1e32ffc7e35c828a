"""What the prompt does while an input is edited: whether it is complete (Enter runs it, a
syntax error included, or opens a new line while a bracket is open), Tab completion, and
highlighting.

The completer and the lexer are guarded: a fault of theirs is kept and reported after the
input (`ReplCore.background_fault`), so a bug in them never ends the session.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.lexers import Lexer, PygmentsLexer, RegexSync

from ..interpreter.library.registry import STATEMENT_FUNCTIONS, VALUE_FUNCTIONS
from ..interpreter.failures import RUNTIME_KINDS
from ..language.diagnostics import Diagnostic, LanguageError
from ..language.lexicon import KEYWORDS
from ..language.parser import is_incomplete, parse_program
from ..language.source import Source
from .highlight import SadLexer
from .repl_core import META_COMMANDS, command_named

# Inputs longer than this are not parsed while editing (the parser takes about a second for
# 20,000 characters): Enter then counts parentheses instead, and errors show when it runs.
PARSE_LIMIT = 4_000


# ---- reading input: complete, continued, or a syntax error ------------------------------------


class InputCheck:
    """What the parser makes of the text being edited (complete, continued while a bracket
    is open, or a syntax error, which Enter runs too); the last answer is remembered, so a
    text is parsed once however often Enter asks."""

    COMPLETE, INCOMPLETE, ERROR = "complete", "incomplete", "error"

    def __init__(self, limit: int = PARSE_LIMIT):
        self.limit = limit
        self._last: tuple[str, str, Diagnostic | None] | None = None

    def __call__(self, text: str) -> tuple[str, Diagnostic | None]:
        if self._last is not None and self._last[0] == text:
            return self._last[1], self._last[2]
        state, diagnostic = self._check(text)
        self._last = (text, state, diagnostic)
        return state, diagnostic

    def _check(self, text: str) -> tuple[str, Diagnostic | None]:
        if not text.strip() or text.lstrip().startswith(":"):
            return self.COMPLETE, None
        if len(text) > self.limit:
            return (self.INCOMPLETE if _open_parentheses(text) else self.COMPLETE), None
        try:
            parse_program(Source("<repl>", text))
        except LanguageError as error:
            if is_incomplete(error):
                return self.INCOMPLETE, error.diagnostic
            if error.diagnostic.kind == "internal-error":
                return self.COMPLETE, None  # let it run: the session reports it properly
            return self.ERROR, error.diagnostic
        except Exception:
            return self.COMPLETE, None
        return self.COMPLETE, None


_BRACKET_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[()\[\]{}]')


def _open_parentheses(text: str) -> bool:
    """Whether a `(`, `[` or `{` is left open, outside strings and comments (for inputs too
    long to parse)."""
    depth = 0
    for match in _BRACKET_TOKENS.finditer(text):
        token = match.group(0)
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth = max(depth - 1, 0)
    return depth > 0


def open_blocks(text: str) -> int:
    """How many block braces are open at the end of ``text`` (outside strings and comments):
    the indentation of a new line."""
    depth = 0
    for match in _BRACKET_TOKENS.finditer(text):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth = max(depth - 1, 0)
    return depth


# ---- completion and highlighting, each guarded against its own bugs ------------------------


_WORD_BEFORE_CURSOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# `expect ` then the (partial) kind being typed: Tab offers error kinds there.
_EXPECT_KIND = re.compile(r"(?:^|[^A-Za-z0-9_])expect[ \t]+([a-z-]*)\Z")


class SadCompleter(Completer):
    """Keywords, built-in functions, meta-commands and the names bound when Tab is pressed;
    after `:help `, the help page's topics (``topics``, read when Tab is pressed)."""

    def __init__(self, names: Callable[[], Iterable[str]], topics: Callable[[], Iterable[str]] = lambda: ()):
        self.names = names
        self.topics = topics
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.lstrip().startswith(":") and "\n" not in before:
            yield from self._meta(before.lstrip(), complete_event)
            return
        line = document.current_line_before_cursor
        if _in_string_text(line):
            return
        expecting = _EXPECT_KIND.search(line)
        if expecting is not None:  # `expect ` + Tab: the error kinds, not keywords
            kind = expecting.group(1)
            yield from _completions(kind, [(name, "error kind") for name in RUNTIME_KINDS])
            return
        match = _WORD_BEFORE_CURSOR.search(line)
        word = match.group(0) if match else ""
        start = len(line) - len(word)
        if start and (line[start - 1].isalnum() or line[start - 1] == "."):
            return  # inside a number (`1e`, `2.`)
        yield from _completions(word, self._candidates())

    def _candidates(self) -> list[tuple[str, str]]:
        candidates = [(word, "keyword") for word in KEYWORDS]
        candidates += [(name, "function") for name in VALUE_FUNCTIONS]
        candidates += [(name, "statement") for name in STATEMENT_FUNCTIONS]
        candidates += [(name, "name") for name in self.names()]
        return candidates

    def _meta(self, text: str, complete_event: CompleteEvent) -> Iterator[Completion]:
        word, space, argument = text[1:].partition(" ")
        if not space:
            for name, (parameter, about) in META_COMMANDS.items():
                if name.startswith(word):
                    yield Completion(name, -len(word), display=f":{name}", display_meta=about)
            return
        command = command_named(word)
        if command == "help":  # a section's word or any form or built-in on the page
            words = [(topic, "topic") for topic in self.topics()]
            words += [(name, "function") for name in (*VALUE_FUNCTIONS, *STATEMENT_FUNCTIONS)]
            yield from _completions(argument.strip(), words)
        elif command == "graph":
            yield from _completions(argument.strip(), [(name, "name") for name in self.names()])
        elif command == "load":
            argument = argument.lstrip()
            yield from self._paths.get_completions(Document(argument, len(argument)), complete_event)
        elif command == "draw":  # :draw NAME [FILE]
            name, space, file = argument.lstrip().partition(" ")
            if not space:
                yield from _completions(name, [(bound, "name") for bound in self.names()])
            else:
                file = file.lstrip()
                yield from self._paths.get_completions(Document(file, len(file)), complete_event)


def _completions(word: str, candidates: Iterable[tuple[str, str]]) -> Iterator[Completion]:
    seen = set()
    for text, kind in sorted(candidates):
        if text.startswith(word) and text not in seen:
            seen.add(text)
            yield Completion(text, -len(word), display_meta=kind)


def _in_string_text(line: str) -> bool:
    """Whether the end of ``line`` is inside a string's text (not in a ``{...}`` hole)."""
    in_string, hole, index = False, False, 0
    while index < len(line):
        char = line[index]
        if not in_string:
            if char == "#":
                return True  # a comment: nothing to complete either
            in_string = char == '"'
        elif hole:
            if char == "}":
                hole = False
            elif char == '"':
                in_string = hole = False
        elif char == "\\":
            index += 1
        elif char == '"':
            in_string = False
        elif char == "{":
            if line.startswith("{{", index):
                index += 1
            else:
                hole = True
        index += 1
    return in_string and not hole


class GuardedCompleter(Completer):
    """Any completer; if it raises, there are no completions and the fault is reported later."""

    def __init__(self, inner: Completer, report: Callable[[str, BaseException], None]):
        self.inner = inner
        self.report = report

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        try:
            yield from self.inner.get_completions(document, complete_event)
        except Exception as error:
            self.report("completing", error)


class ReplLexer(Lexer):
    """`.sad` colours for statements, one style for a meta-command line; if the lexer raises,
    the line is shown plain and the fault is reported later."""

    def __init__(self, report: Callable[[str, BaseException], None], inner: Lexer | None = None):
        self.report = report
        # Every line can be lexed on its own (highlight.py): only the lines shown are lexed.
        self.inner = inner or PygmentsLexer(SadLexer, sync_from_start=False, syntax_sync=RegexSync("^"))

    def lex_document(self, document: Document) -> Callable[[int], list]:
        lines = document.lines
        if document.text.lstrip().startswith(":"):
            return lambda number: [("class:meta-command", lines[number])] if number < len(lines) else []
        try:
            get_line = self.inner.lex_document(document)
        except Exception as error:
            self.report("highlighting", error)
            get_line = None

        def line(number: int) -> list:
            if get_line is not None:
                try:
                    return get_line(number)
                except Exception as error:
                    self.report("highlighting", error)
            return [("", lines[number])] if 0 <= number < len(lines) else []

        return line

    def invalidation_hash(self):
        try:
            return self.inner.invalidation_hash()
        except Exception:
            return id(self)
