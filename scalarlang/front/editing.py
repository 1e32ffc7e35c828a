"""What the prompt does while an input is edited: whether it is complete (Enter runs it or
opens a new line; the validator marks a syntax error), Tab completion, and highlighting.

The completer and the lexer are guarded: a fault of theirs is kept and reported after the
input (`ReplCore.background_fault`), so a bug in them never ends the session.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator

from prompt_toolkit.application.current import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.lexers import Lexer, PygmentsLexer, RegexSync
from prompt_toolkit.utils import get_cwidth
from prompt_toolkit.validation import ValidationError, Validator

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
    """What the parser makes of the text being edited; the last answer is remembered, so
    the Enter key and the validator parse a text once."""

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


class SadValidator(Validator):
    """Rejects input with a syntax error, at the error's position, before it is accepted: the
    cursor goes to the error and the toolbar under the input says what it is. Enter again on
    the same text runs it (repl.py), which prints the whole diagnostic.

    Input that only ended while parentheses were open is not an error (Enter continues it).
    """

    def __init__(self, check: InputCheck):
        self.check = check

    def validate(self, document: Document) -> None:
        state, diagnostic = self.check(document.text)
        if state != InputCheck.ERROR or diagnostic is None:
            return
        span = diagnostic.span
        raise HeldSyntaxError(span.start if span is not None else len(document.text), diagnostic)


class HeldSyntaxError(ValidationError):
    """The validator's error. prompt_toolkit's validation toolbar is one line, cut at the
    terminal's width, and reads ``message`` at each redraw: here ``message`` is the diagnostic
    fitted to the width of that moment (`toolbar_message`), a resized terminal included."""

    def __init__(self, cursor_position: int, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(cursor_position, toolbar_message(diagnostic))

    @property  # type: ignore[override]
    def message(self) -> str:
        return toolbar_message(self.diagnostic, _terminal_columns())

    @message.setter
    def message(self, value: str) -> None:
        pass  # always computed from the diagnostic


def _terminal_columns() -> int:
    try:
        return get_app().output.get_size().columns
    except Exception:
        return 80


# The parts of the toolbar's line after the message, and what Enter again does.
_SEPARATOR = " · "
ENTER_AGAIN = "Enter again: whole error"
# A help cut shorter than this many columns says too little to keep.
_FEWEST_HELP = 16


def toolbar_message(diagnostic: Diagnostic, columns: int | None = None) -> str:
    """The toolbar's line for a syntax error, at most ``columns`` wide (None: whole), in one
    form for every error: ``LINE:COLUMN: MESSAGE · help: HINT · Enter again: whole error``
    (the help, the `.sad` form of a Python habit, when the error has one). Narrower, its parts
    give way in one order: what Enter again does (:help and the README say it too), then the
    message's `, expected …` when there is a help, then the help is cut with `…` (dropped
    when too little of it would show), then the message is."""
    message = " ".join(diagnostic.message.split())
    found, comma, expected = message.partition(", expected ")
    expected = comma + expected
    span = diagnostic.span
    place = f"{span.line}:{span.column}: " if span is not None else ""
    helps = [" ".join(note.split()) for note in diagnostic.notes if note.startswith("help: ")]
    hint = helps[0] if helps else ""

    def line(expected: str, hint: str, enter: bool) -> str:
        parts = [place + found + expected, hint, ENTER_AGAIN if enter else ""]
        return _SEPARATOR.join(part for part in parts if part)

    whole = line(expected, hint, True)
    if columns is None or _width(whole) <= columns:
        return whole
    if not hint:
        return _shortened(line(expected, "", False), max(columns, 1))
    for shorter in (line(expected, hint, False), line("", hint, False)):
        if _width(shorter) <= columns:
            return shorter
    room = columns - _width(line("", "", False) + _SEPARATOR)
    if room >= _FEWEST_HELP:
        return line("", _shortened(hint, room), False)
    return _shortened(line("", "", False), max(columns, 1))


def _width(text: str) -> int:
    return sum(get_cwidth(char) for char in text)  # a terminal's columns (wide characters: 2)


def _shortened(text: str, columns: int) -> str:
    """``text`` in ``columns`` (at least 1): whole, or cut and ended with `…`."""
    if _width(text) <= columns:
        return text
    kept, used = [], 1
    for char in text:
        used += get_cwidth(char)
        if used > columns:
            break
        kept.append(char)
    return "".join(kept) + "…"


# ---- completion and highlighting, each guarded against its own bugs ------------------------


_WORD_BEFORE_CURSOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# `expect ` then the (partial) kind being typed: Tab offers error kinds there.
_EXPECT_KIND = re.compile(r"(?:^|[^A-Za-z0-9_])expect[ \t]+([a-z-]*)\Z")


class SadCompleter(Completer):
    """Keywords, built-in functions, meta-commands and the names bound when Tab is pressed."""

    def __init__(self, names: Callable[[], Iterable[str]]):
        self.names = names
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
        if command == "graph":
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
