"""The REPL: a thin prompt_toolkit front end over the interpreter's `Interpreter`.

`ReplCore` has no terminal: it takes one input (a line, or several lines while a parenthesis,
bracket or brace was open), runs it with ``Interpreter.run(source, atomic=True)`` or handles a meta-command, and
prints through `Renderer`, the same rendering the script runner uses. `run_repl` puts one
`PromptSession` on top: file history, completion, highlighting with `highlight.SadLexer`, and
the parser deciding whether Enter runs the input or continues it on a new line.

This is the only module that imports prompt_toolkit; ``cli`` imports it only when standard
input is a terminal.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
import traceback
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, TextIO, cast

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.buffer import ValidationState
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import has_focus, is_searching
from prompt_toolkit.history import History
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.lexers import Lexer, PygmentsLexer, RegexSync
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.validation import ValidationError, Validator
from rich.text import Text

from .. import __version__
from ..language.diagnostics import Diagnostic, LanguageError
from ..engine.scalar import Scalar
from .highlight import SadLexer, prompt_toolkit_style_rules
from .history import history_path, open_history
from ..interpreter.core import STATEMENT_FUNCTIONS, VALUE_FUNCTIONS, Interpreter
from ..interpreter.kinds import RUNTIME_KINDS
from ..language.lexicon import KEYWORDS
from ..interpreter.outcomes import Drawn, Failed, Outcome
from ..render.text import STYLES, Renderer, make_console, value_line
from .runner import read_source
from ..language.source import Source, Span
from ..language.parser import is_incomplete, parse_program

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

PROMPT = "sad> "
CONTINUATION = "...> "
INDENT = "  "  # per open block, on each new line of an input
# Inputs longer than this are not parsed while editing (the parser takes about a second for
# 20,000 characters): Enter then counts parentheses instead, and errors show when it runs.
PARSE_LIMIT = 4_000

META_COMMANDS = {
    "help": ("", "this list"),
    "vars": ("", "every binding with its value and gradient"),
    "graph": ("NAME", "the graph of a bound name"),
    "draw": ("NAME [FILE]", "its picture: DOT text, or FILE (.svg, .png, .dot)"),
    "load": ("FILE", "run a .sad file into this session"),
    "reset": ("", "forget every binding"),
    "quit": ("", "leave (also Ctrl-D)"),
}
_META = re.compile(r"\s*:(\S*)\s*(.*?)\s*\Z", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_WORD_BEFORE_CURSOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# `expect ` then the (partial) kind being typed: Tab offers error kinds there.
_EXPECT_KIND = re.compile(r"(?:^|[^A-Za-z0-9_])expect[ \t]+([a-z-]*)\Z")


# ---- the core: no terminal ------------------------------------------------------------------


class ReplCore:
    """Runs REPL inputs against one `Interpreter` and prints what they did.

    ``out`` prints results; ``errors`` (default: ``out``) prints diagnostics and messages about
    our own faults. Each input is atomic: when it fails, every name and stored gradient is as
    it was before it.
    """

    def __init__(
        self,
        out: Renderer,
        errors: Renderer | None = None,
        *,
        session: Interpreter | None = None,
        debug: bool = False,
    ):
        self.session = session if session is not None else Interpreter()
        self.out = out
        self.errors = errors if errors is not None else out
        self.debug = debug
        self.count = 0  # inputs read so far; the source of input N is named `<repl:N>`
        self._reported: set[tuple[str, str]] = set()
        self._pending: list[tuple[str, BaseException]] = []
        self._pending_messages: list[str] = []

    # ---- one input ------------------------------------------------------------------------

    def handle(self, text: str) -> bool:
        """Run one input (statements or a meta-command); False when the user asked to leave."""
        self.report_background_faults()
        if not text.strip():
            return True
        self.count += 1
        try:
            if text.lstrip().startswith(":"):
                return self._meta(text)
            self.run(Source(self.source_name(), text))
        except KeyboardInterrupt:
            self.message("interrupted: nothing of this input was kept")
        except Exception as error:  # a bug of ours: report it, keep the session
            self.internal_error("running the input", error)
        return True

    def source_name(self) -> str:
        return f"<repl:{self.count}>"

    def run(self, source: Source, renderer: Renderer | None = None) -> bool:
        """Run ``source`` atomically and show its outcomes; True when nothing failed."""
        outcomes = self.session.run(source, atomic=True)
        shown = 0
        try:
            for outcome in outcomes:
                if isinstance(outcome, Failed):
                    self.show(outcome)
                    if shown:
                        self.message("the statements before it in this input were undone")
                    return False
                self.show(outcome, renderer)
                shown += 1
        finally:
            outcomes.close()  # stopped early (Ctrl-C while printing): the session undoes it
        return True

    def show(self, outcome: Outcome, renderer: Renderer | None = None) -> None:
        """Render one outcome; a fault while rendering is reported, never raised."""
        failed = isinstance(outcome, Failed)
        renderer = renderer or (self.errors if failed else self.out)
        try:
            renderer.outcome(outcome)
        except Exception as error:
            self.internal_error("showing the result", error)
        if isinstance(outcome, Failed) and outcome.traceback:
            if self.debug:
                self._write_traceback(outcome.traceback)
            else:
                self.message("run with --debug to see the traceback")

    # ---- meta-commands ----------------------------------------------------------------------

    def _meta(self, text: str) -> bool:
        match = cast("re.Match[str]", _META.match(text))  # matches any text that starts with `:`
        word, argument = match.group(1), match.group(2)
        command = _command_named(word)
        if command is None:
            known = ", ".join(f":{name} {parameter}".rstrip() for name, (parameter, _) in META_COMMANDS.items())
            close = difflib.get_close_matches(word, list(META_COMMANDS), n=1)
            notes = (f"the commands are {known}",) + ((f"did you mean `:{close[0]}`?",) if close else ())
            self.complain(f"unknown command `:{_shorten(word)}`", notes)
            return True
        parameter = META_COMMANDS[command][0]
        if not parameter and argument:
            self.complain(f"`:{command}` takes no argument")
            return True
        if parameter and not argument:
            self.complain(f"`:{command}` needs {'a file' if parameter == 'FILE' else 'a name'}: :{command} {parameter}")
            return True
        if command == "quit":
            return False
        if command == "help":
            self.help()
        elif command == "vars":
            self.show_vars()
        elif command == "graph":
            self.show_graph(text, match.start(2), argument)
        elif command == "draw":
            self.draw(text, match.start(2), argument)
        elif command == "load":
            self.load(argument)
        elif command == "reset":
            self.session.reset()
            self.message("the session is reset: no names are bound")
        return True

    def help(self) -> None:
        label = STYLES["label"]
        functions = " ".join(VALUE_FUNCTIONS)
        rows = [
            ("statements", "let NAME = EXPR · EXPR · print ITEM, ITEM … · zero_grad · zero_grad(EXPR)"),
            ("", "backward(EXPR) · backward(EXPR, SEED) · graph(EXPR)"),
            ("", "gradcheck(OUT, X, Y, …[, step: S][, tolerance: T]) · gradcheck(OUT, X, STEP, TOLERANCE)"),
            ("", "  (with 4 arguments Y, Z are variables if both are tracked, else STEP and TOLERANCE)"),
            ("", "assert A == B [within TOL] (also != < <= > >=) · expect KIND: STATEMENT · quiet STATEMENT"),
            ("", 'draw(EXPR) · draw(EXPR, "FILE") (FILE: .svg, .png or .dot)'),
            ("training", "fn NAME(P, …) = EXPR · descend NAME, … by LR · let NAME = [(1, 3), (2, 5), …]"),
            ("", "repeat N { … } · for i in A..B { … } · for x, y in TABLE { … } · if A OP B { … } else { … }"),
            ("expressions", "var EXPR · const EXPR · + - * / % ** · -a · ( … ) · 2.5 · 1e-3 · inf · nan · \"text {EXPR}\""),
            ("functions", functions),
            ("commands", "  ".join(f":{name}" + (f" {arg}" if arg else "") for name, (arg, _) in META_COMMANDS.items())),
        ]
        widest = max(len(arg) for arg, _ in META_COMMANDS.values())
        rows += [("", f":{name:<6} {arg:<{widest}} {about}") for name, (arg, about) in META_COMMANDS.items()]
        rows += [
            ("error kinds", "for `expect KIND: STATEMENT` (Tab completes them): " + " ".join(sorted(RUNTIME_KINDS))),
            ("keys", "Enter runs the input, or starts a new line while a `(`, `[` or `{` is open (indented in a block)"),
            ("", "Alt-Enter new line · Tab completes · Right takes the grey suggestion from history"),
            ("", "Up/Down history · Ctrl-C drops the input (or stops a long run) · Ctrl-D leaves"),
        ]
        for title, body in rows:
            self.out.line(Text.assemble((f"{title:<12}", label), body))

    def show_vars(self) -> None:
        bindings = self.session.bindings
        if not bindings:
            self.message("no names are bound yet")
            return
        for name, node in bindings.items():
            try:
                self.out.line(value_line(self.session.state_of(node, name)))
            except Exception as error:
                self.internal_error("showing the result", error)

    def show_graph(self, text: str, start: int, name: str) -> None:
        node = self._binding(text, start, name, "graph")
        if node is not None:
            self.show(self.session.graph_of(node, _span(text, start, start + len(name))))

    def draw(self, text: str, start: int, argument: str) -> None:
        """``:draw NAME [FILE]``: as the statement ``draw(NAME[, "FILE"])``."""
        from ..pictures import DrawingError, graph_picture, picture_format, write_picture

        name, _, file = argument.partition(" ")
        node = self._binding(text, start, name, "draw")
        if node is None:
            return
        source = Source(self.source_name(), text)
        file = file.strip()
        file_start = text.rfind(file) if file else start
        span = _span(text, file_start, file_start + len(file)) if file else _span(text, start, start + len(name))
        path = os.path.expanduser(_unquote(file)) if file else None
        try:
            picture = graph_picture(node, self.session.label_of)
            output_format = None if path is None else picture_format(path)
            if path is not None:
                write_picture(picture, path)
        except DrawingError as error:
            self.show(Failed(Diagnostic(error.kind, error.message, span, source, dict(error.fields))))
            return
        self.show(Drawn(span, self.session.label_of(node), picture, path, output_format))

    def _binding(self, text: str, start: int, name: str, command: str) -> Scalar | None:
        """The node bound to ``name``, else None once the error is shown."""
        source = Source(self.source_name(), text)
        span = _span(text, start, start + len(name))
        if not _NAME.match(name):
            self.complain(
                f"`:{command}` takes the name of a binding, not `{_shorten(name)}`",
                (f"for an expression, run `{command}(EXPR)`",),
            )
            return None
        node = self.session.lookup(name)
        if node is None:
            close = difflib.get_close_matches(name, list(self.session.bindings), n=1)
            notes = (f"help: did you mean `{close[0]}`?",) if close else ()
            diagnostic = Diagnostic("undefined-name", f"`{name}` is not defined", span, source, {"name": name}, notes)
            self.show(Failed(diagnostic))
            return None
        return node

    def load(self, argument: str) -> None:
        path = os.path.expanduser(_unquote(argument))
        item = read_source(path)
        if isinstance(item, Diagnostic):
            self.show(Failed(item))
            return
        before = self.session.bindings
        # A file runs as a script would print it: its `let`s are not echoed one by one.
        quiet = Renderer(self.out.console, row_limit=self.out.row_limit, echo_bindings=False)
        if self.run(item, quiet):
            bound = [name for name, node in self.session.bindings.items() if before.get(name) is not node]
            self.message(f"loaded {item.name}" + (f"; bound {', '.join(bound)}" if bound else ""))
        else:
            self.message(f"nothing of {item.name} was kept")

    # ---- messages -----------------------------------------------------------------------------

    def message(self, text: str) -> None:
        self.out.line(Text(text, STYLES["dim"]))

    def complain(self, text: str, notes: Iterable[str] = ()) -> None:
        self.errors.line(Text.assemble(("error", STYLES["error"]), (f": {text}", "bold")))
        for note in notes:
            self.errors.line(Text.assemble(("  = ", STYLES["arrow"]), (note, STYLES["note"])))

    def internal_error(self, where: str, error: BaseException) -> None:
        """A bug of ours: one short line (the traceback with --debug); the session goes on."""
        try:
            self.errors.line(
                Text.assemble(
                    ("error[internal-error]", STYLES["error"]),
                    f": while {where}: {type(error).__name__}: {error}; this is a bug in scalarlang",
                )
            )
            if self.debug:
                self._write_traceback("".join(traceback.format_exception(error)))
        except Exception:  # the console itself fails: last resort
            # (None only in a process without a console, where no REPL runs.)
            cast(TextIO, sys.__stderr__).write(f"scalarlang: internal error while {where}: {type(error).__name__}\n")

    def background_fault(self, where: str, error: BaseException) -> None:
        """A fault while the prompt is up (completer, lexer): kept, reported after the input."""
        self._pending.append((where, error))

    def later(self, text: str) -> None:
        """A message that arises while the prompt is up (the history file failing): printed
        once the prompt is gone, so that it does not garble the line being edited."""
        self._pending_messages.append(text)

    def report_background_faults(self) -> None:
        messages, self._pending_messages = self._pending_messages, []
        for text in messages:
            self.message(text)
        pending, self._pending = self._pending, []
        for where, error in pending:
            key = (where, type(error).__name__)
            if key in self._reported and not self.debug:
                continue
            self._reported.add(key)
            self.internal_error(where, error)

    def _write_traceback(self, text: str) -> None:
        file = self.errors.console.file
        file.write(text if text.endswith("\n") else text + "\n")
        file.flush()


def _command_named(word: str) -> str | None:
    """The meta-command ``word`` names, in full or by a prefix of one command only."""
    if word in META_COMMANDS:
        return word
    matches = [name for name in META_COMMANDS if word and name.startswith(word)]
    return matches[0] if len(matches) == 1 else None


def _span(text: str, start: int, end: int) -> Span:
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    end_line = text.count("\n", 0, end) + 1
    end_column = end - (text.rfind("\n", 0, end) + 1) + 1
    return Span(start, end, line, column, end_line, end_column)


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _shorten(text: str, limit: int = 30) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


class SadValidator(Validator):
    """Rejects input with a syntax error, at the error's position, before it is accepted.

    Input that only ended while parentheses were open is not an error (Enter continues it).
    """

    def __init__(self, check: InputCheck):
        self.check = check

    def validate(self, document: Document) -> None:
        state, diagnostic = self.check(document.text)
        if state != InputCheck.ERROR or diagnostic is None:
            return
        span = diagnostic.span
        where = f"line {span.line}, column {span.column}: " if span is not None else ""
        raise ValidationError(
            cursor_position=span.start if span is not None else len(document.text),
            message=f"{diagnostic.kind}: {where}{diagnostic.message} (Enter again runs it anyway)",
        )


# ---- completion and highlighting, each guarded against its own bugs ------------------------


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
        command = _command_named(word)
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


# ---- the prompt -------------------------------------------------------------------------------


def _style(color: bool) -> Style:
    rules = {
        "prompt": "bold",
        "continuation": "ansibrightblack",
        "meta-command": "bold ansiyellow",
        "validation-toolbar": "bg:ansired ansiwhite",
    }
    if color:
        rules.update(prompt_toolkit_style_rules())
        rules["prompt"] = "bold ansigreen"
    return Style.from_dict(rules)


def key_bindings(check: InputCheck) -> KeyBindings:
    """Enter runs the input when it is complete and continues it while a parenthesis, bracket
    or brace is open."""
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER) & ~is_searching

    @bindings.add("enter", filter=editing)
    def _enter(event) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None:
            buffer.complete_state = None
            if state.current_completion is not None:
                return  # Enter takes the chosen completion; the next Enter runs the input
        text = buffer.text
        if buffer.validation_state == ValidationState.INVALID:
            # Enter again on the text the validator rejected: run it and print the diagnostic.
            buffer.validation_state = ValidationState.VALID
            buffer.validation_error = None
            buffer.validate_and_handle()
            return
        status, _ = check(text)
        at_end = buffer.cursor_position == len(text)
        if status == InputCheck.INCOMPLETE and not (at_end and _ends_in_empty_lines(text)):
            buffer.insert_text("\n" + INDENT * _open_blocks(buffer.document.text_before_cursor))
            return
        buffer.validate_and_handle()

    @bindings.add("escape", "enter", filter=editing)
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("}", filter=editing)
    def _close_block(event) -> None:
        # A `}` typed first on a line goes back one indentation level, as editors do.
        buffer = event.current_buffer
        line = buffer.document.current_line_before_cursor
        if line.endswith(INDENT) and not line.strip():
            buffer.delete_before_cursor(len(INDENT))
        buffer.insert_text("}")

    return bindings


def _open_blocks(text: str) -> int:
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


def _ends_in_empty_lines(text: str) -> bool:
    """Two empty continuation lines: the user gives up on closing the parentheses; the input
    runs and the error says what is missing."""
    lines = text.split("\n")
    return len(lines) >= 3 and not lines[-1].strip() and not lines[-2].strip()


def _continuation(width: int, line_number: int, wrap_count: int) -> StyleAndTextTuples:
    # `...> ` starts each further line of the input; a line wrapped by the terminal gets blanks.
    return [("class:continuation", " " * width if wrap_count else CONTINUATION.rjust(width))]


def build_prompt_session(
    core: ReplCore,
    history: History,
    *,
    color: bool = True,
    completer: Completer | None = None,
    lexer: Lexer | None = None,
    input=None,
    output=None,
) -> PromptSession:
    """The one PromptSession of a REPL (``input``/``output`` for tests: pipe and dummy)."""
    check = InputCheck()
    return PromptSession(
        message=[("class:prompt", PROMPT)],
        prompt_continuation=_continuation,
        multiline=True,
        history=history,
        completer=GuardedCompleter(completer or SadCompleter(lambda: core.session.bindings), core.background_fault),
        complete_while_typing=False,
        auto_suggest=AutoSuggestFromHistory(),
        lexer=ReplLexer(core.background_fault, lexer) if color or lexer is not None else None,
        validator=SadValidator(check),
        validate_while_typing=False,
        key_bindings=key_bindings(check),
        style=_style(color),
        include_default_pygments_style=False,
        color_depth=None if color else ColorDepth.MONOCHROME,
        enable_history_search=False,
        input=input,
        output=output,
    )


def repl_loop(core: ReplCore, prompt: PromptSession) -> int:
    """Read, run and print until Ctrl-D or `:quit`; the exit status."""
    failures = 0
    while True:
        core.report_background_faults()
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            continue  # Ctrl-C drops the input being edited
        except EOFError:
            return 0
        except Exception as error:  # the prompt itself failed: report it, try again
            core.internal_error("reading the input", error)
            failures += 1
            if failures >= 3:
                return 1
            continue
        failures = 0
        if not core.handle(text):
            return 0


def run_repl(arguments) -> int:
    """``scalarlang`` with a terminal on standard input."""
    from prompt_toolkit.output.defaults import create_output

    width = getattr(arguments, "width", None) or None
    color = getattr(arguments, "color", "auto")
    debug = bool(getattr(arguments, "debug", False))
    out = Renderer(make_console(sys.stdout, width=width, color=color), echo_bindings=True)
    errors = Renderer(make_console(sys.stderr, width=width, color=color), echo_bindings=True)
    core = ReplCore(out, errors, debug=debug)
    if getattr(arguments, "draw", None):  # --draw DIR: every pass of the session is drawn too
        from ..pictures import PassDrawer

        core.session.pass_observer = PassDrawer(arguments.draw)
    core.message(f"scalarlang {__version__}: :help lists the statements and commands, Ctrl-D leaves")
    path = history_path(getattr(arguments, "history_file", None))
    warned: list[str] = []  # the history's trouble is told once, whenever it shows up

    def warn(text: str) -> None:
        if not warned:
            warned.append(text)
            core.later(text)

    history = open_history(path, warn)
    # The prompt is on a terminal (stderr's, if stdout is redirected): `--color never` alone
    # turns its highlighting off (prompt_toolkit itself also honours NO_COLOR).
    session = build_prompt_session(core, history, color=color != "never", output=create_output(always_prefer_tty=True))
    return repl_loop(core, session)


__all__ = [
    "CONTINUATION",
    "META_COMMANDS",
    "PROMPT",
    "GuardedCompleter",
    "InputCheck",
    "ReplCore",
    "ReplLexer",
    "SadCompleter",
    "SadValidator",
    "build_prompt_session",
    "history_path",
    "open_history",
    "repl_loop",
    "run_repl",
]
