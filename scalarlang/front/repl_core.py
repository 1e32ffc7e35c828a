"""The REPL without a terminal: `ReplCore` runs one input against one `Interpreter` and prints
what it did.

An input is a line, or several lines while a parenthesis, bracket or brace was open; it runs
with ``Interpreter.run(source, atomic=True)`` or is a meta-command (`:help`, `:vars`, `:draw`,
...). Output goes through `Renderer`, the rendering the script runner uses. The prompt on top
(repl.py) and the tests drive the same core, so nothing here imports prompt_toolkit. A
`walk(...)` is shown edge by edge (walking.py), asking the injected ``read_key`` between edges.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
import traceback
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, TextIO, cast

from rich.text import Text

from ..engine.numbers import MAX_DIGITS, current_digits, digits, format_number
from ..interpreter.core import Interpreter
from ..interpreter.library.registry import help_rows
from ..interpreter.failures import RUNTIME_KINDS
from ..interpreter.outcomes import Drawn, Failed, Outcome, WalkShown, Warned
from ..interpreter.values import ListValue, TextValue, characters, shape_text, shorten, text_summary
from ..engine.tensor_text import is_tensor, tensor_summary
from ..language.diagnostics import Diagnostic
from ..language.source import Source, Span
from ..render.styles import STYLES
from ..render.text import Renderer, value_line
from .help_layout import Block, Heading, Paragraph, Row, language_blocks, lay_out, plain
from .runner import read_source
from .walking import KeyReader, show_walk

if TYPE_CHECKING:
    from ..engine.scalar import Scalar
    from ..engine.tensor_node import TensorNode

META_COMMANDS = {
    "help": ("[TOPIC]", "this list; one task or form: :help lists, :help plot, :help keys"),
    "vars": ("", "every binding with its value and gradient"),
    "graph": ("NAME", "the graph of a bound name"),
    "draw": ("NAME [FILE]", "its picture: a text tree, or FILE (.svg, .png, .dot)"),
    "load": ("FILE", "run a .sad file into this session"),
    "digits": ("[N]", "print numbers with N decimals (12: the chapter's); without N, short again"),
    "reset": ("", "forget every binding"),
    "quit": ("", "leave (also Ctrl-D)"),
}
# What the keys do, for `:help`.
KEYS = (
    Row("Enter", "runs the input, or starts a new line while a `(`, `[` or `{` is open (indented in a block); "
        "two empty lines run an unfinished input (the error says what is missing)"),
    Row("a syntax error", "Enter prints it under the input (with the `.sad` form of a Python habit) and gives a "
        "fresh prompt; the line is kept in history: Up brings it back to fix"),
    Row("Alt-Enter", "a new line"),
    Row("Tab", "completes keywords, built-ins, bound names, and error kinds after `expect`"),
    Row("Right", "takes the grey suggestion from history"),
    Row("Up · Down", "history"),
    Row("Ctrl-C", "drops the input, or stops a long run (nothing of the input is kept)"),
    Row("Ctrl-D", "leaves"),
    Row("in a walk", "Enter shows the next edge (a node over tensors), q the rest, Ctrl-C stops (the pass stays committed)"),
)


class AfterEnter(Protocol):
    """What the prompt settles before an input runs (repl.py's `EnterInterrupts`)."""

    def settle(self) -> None: ...

    def release(self) -> None: ...


_META = re.compile(r"\s*:(\S*)\s*(.*?)\s*\Z", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")



class ReplCore:
    """Runs REPL inputs against one `Interpreter` and prints what they did.

    ``out`` prints results; ``errors`` (default: ``out``) prints diagnostics and messages about
    our own faults. Each input is atomic: when it fails, every name and stored gradient is as
    it was before it. ``read_key`` (None: every step at once) is asked between the edges of a
    typed `walk(...)`: walking.py says what it returns. ``after_enter`` (set by the prompt on
    top, repl.py's `EnterInterrupts`) is settled before an input runs: it raises
    KeyboardInterrupt for a Ctrl-C typed just after the input's Enter.
    """

    def __init__(
        self,
        out: Renderer,
        errors: Renderer | None = None,
        *,
        session: Interpreter | None = None,
        debug: bool = False,
        read_key: KeyReader | None = None,
        pager: Callable[[str], None] | None = None,
    ):
        self.session = session if session is not None else Interpreter()
        self.session.keep_history()  # `explain` of a pass typed lines before it
        self.read_key = read_key
        self.pager = pager  # shows a long text a screen at a time (a terminal's); None: printed
        self.out = out
        self.errors = errors if errors is not None else out
        self.debug = debug
        self.digits = current_digits()  # None: short; `:digits N` sets it
        self.count = 0  # inputs read so far; the source of input N is named `<repl:N>`
        self._reported: set[tuple[str, str]] = set()
        self._pending: list[tuple[str, BaseException]] = []
        self._pending_messages: list[str] = []
        self.after_enter: AfterEnter | None = None

    # ---- one input ------------------------------------------------------------------------

    def handle(self, text: str) -> bool:
        """Run one input (statements or a meta-command); False when the user asked to leave."""
        self.report_background_faults()
        blank = not text.strip()
        if not blank:
            self.count += 1
        try:
            if self.after_enter is not None:
                self.after_enter.settle()
            if blank:
                return True
            with digits(self.digits):
                if text.lstrip().startswith(":"):
                    return self._meta(text)
                self.run(Source(self.source_name(), text))
        except KeyboardInterrupt:
            if not blank:
                self.message("interrupted: nothing of this input was kept")
        except MemoryError:
            self.out_of_memory("this input ran")
        except Exception as error:  # a bug of ours: report it, keep the session
            self.internal_error("running the input", error)
        return True

    def source_name(self) -> str:
        return f"<repl:{self.count}>"

    def run(self, source: Source, renderer: Renderer | None = None, *, walking: bool = True,
            undone: str = "the statements before it in this input were undone") -> bool:
        """Run ``source`` atomically and show its outcomes; True when nothing failed.
        ``walking``: a `walk` waits for ``read_key`` between edges (a loaded file's does not).
        ``undone``: said after a failure that followed shown outcomes (empty: the caller says it)."""
        self.session.text_width = self.out.console.width  # (a terminal's, as it is now)
        outcomes = self.session.run(source, atomic=True)
        shown = 0
        try:
            for outcome in outcomes:
                if isinstance(outcome, Failed):
                    self.show(_with_repl_hint(outcome, source.text))
                    if shown and undone:
                        self.message(undone)
                    return False
                if isinstance(outcome, WalkShown):
                    self.walk(outcome, renderer, self.read_key if walking else None)
                else:
                    self.show(outcome, renderer)
                shown += 1
        finally:
            outcomes.close()  # stopped early (Ctrl-C while printing): the session undoes it
        return True

    def show(self, outcome: Outcome, renderer: Renderer | None = None) -> None:
        """Render one outcome; a fault while rendering is reported, never raised."""
        failed = isinstance(outcome, (Failed, Warned))  # diagnostics: on the error console
        renderer = renderer or (self.errors if failed else self.out)
        try:
            renderer.outcome(outcome)
        except MemoryError:
            self.out_of_memory("the result was shown")
        except Exception as error:
            self.internal_error("showing the result", error)
        if isinstance(outcome, Failed) and outcome.traceback:
            if self.debug:
                self._write_traceback(outcome.traceback)
            else:
                self.message("run with --debug to see the traceback")

    def walk(self, walk: WalkShown, renderer: Renderer | None, read_key: KeyReader | None) -> None:
        """A walk's tables, then its edges one by one; Ctrl-C stops the display only (the pass
        is committed, and the rest of the input runs)."""
        try:
            show_walk(renderer or self.out, walk, read_key)
        except Exception as error:
            self.internal_error("showing the result", error)

    # ---- meta-commands ----------------------------------------------------------------------

    def _meta(self, text: str) -> bool:
        match = cast("re.Match[str]", _META.match(text))  # matches any text that starts with `:`
        word, argument = match.group(1), match.group(2)
        command = command_named(word)
        if command is None:
            known = ", ".join(f":{name} {parameter}".rstrip() for name, (parameter, _) in META_COMMANDS.items())
            close = difflib.get_close_matches(word, list(META_COMMANDS), n=1)
            notes = (f"the commands are {known}",) + ((f"did you mean `:{close[0]}`?",) if close else ())
            self.complain(f"unknown command `:{shorten(word, 30)}`", notes)
            return True
        parameter = META_COMMANDS[command][0]
        if not parameter and argument:
            self.complain(f"`:{command}` takes no argument")
            return True
        if parameter and not argument and not parameter.startswith("["):
            self.complain(f"`:{command}` needs {'a file' if parameter == 'FILE' else 'a name'}: :{command} {parameter}")
            return True
        if command == "quit":
            return False
        if command == "help":
            self.help(argument)
        elif command == "vars":
            self.show_vars()
        elif command == "graph":
            self.show_graph(text, match.start(2), argument)
        elif command == "draw":
            self.draw(text, match.start(2), argument)
        elif command == "load":
            self.load(argument)
        elif command == "digits":
            self.set_digits(argument)
        elif command == "reset":
            self.session.reset()
            self.message("the session is reset: no names are bound")
        return True

    def help(self, topic: str = "") -> None:
        """The language by task (its forms, then every built-in of the registry under its
        task), the commands, the error kinds and the keys, at the console's width; with a
        topic, its part of that page (help_topics.py). The whole page goes through ``pager``
        when there is one (a terminal) and the page is taller than the console."""
        from .help_topics import closest_topic, topic_blocks, topic_words

        blocks = self.help_blocks()
        if topic:
            chosen = topic_blocks(topic, blocks)
            if not chosen:
                meant = closest_topic(topic, blocks)
                self.complain(
                    f"no help topic `{shorten(topic, 30)}`",
                    (f"the topics: {', '.join(topic_words(blocks))}, or a form or built-in's name (`:help plot`)",)
                    + ((f"did you mean `:help {meant}`?",) if meant else ()),
                )
                return
            blocks = chosen
        lines = lay_out(blocks, self.out.console.width)
        if not topic and self.pager is not None and len(lines) > self.out.console.height - 2:
            self.pager(plain(lines))
            return
        roles = {"heading": STYLES["label"], "form": STYLES["header"], "text": ""}
        for line in lines:
            self.out.line(Text.assemble(*((text, roles[role]) for text, role in line)))

    def help_blocks(self) -> list[Block]:
        commands = [Row(f":{name} {parameter}".rstrip(), about) for name, (parameter, about) in META_COMMANDS.items()]
        return [
            *language_blocks(help_rows()),
            Heading("commands"), *commands,
            Heading("error kinds"),
            Paragraph("for `expect KIND: STATEMENT` (Tab completes them): " + " ".join(sorted(RUNTIME_KINDS))),
            Heading("keys"), *KEYS,
            Heading("more"), Paragraph("docs/language.md: the whole language; the README: examples"),
        ]

    def set_digits(self, argument: str) -> None:
        """``:digits N``: N decimals from now on; ``:digits``: whole numbers short, others with
        12 significant digits (the default)."""
        if not argument:
            self.digits = None
            self.message("numbers print short: 8, 0.5, 0.909364349205")
            return
        if not argument.isdigit() or int(argument) > MAX_DIGITS:
            self.complain(f"`:digits` takes a whole number from 0 to {MAX_DIGITS}, not `{shorten(argument, 30)}`")
            return
        self.digits = int(argument)
        with digits(self.digits):
            self.message(f"numbers print with {self.digits} decimals: {format_number(0.5)}")

    def show_vars(self) -> None:
        values = self.session.values
        if not values:
            self.message("no names are bound yet")
            return
        for name, value in values.items():
            try:
                if isinstance(value, ListValue):  # by its shape: `W1: 16 × 2 variables`
                    self.out.line(Text.assemble((name, STYLES["label"]), (f": {shape_text(value)}", STYLES["dim"])))
                elif is_tensor(value):  # by its shape: `W: 30 × 200 tensor variable`
                    self.out.line(Text.assemble((name, STYLES["label"]), (f": {tensor_summary(cast('TensorNode', value))}", STYLES["dim"])))
                elif isinstance(value, TextValue):  # `s: "hello" (a text of 5 characters)`
                    self.out.line(Text.assemble(
                        (name, STYLES["label"]), (f": {text_summary(value)} ({characters(len(value))})", STYLES["dim"])
                    ))
                else:
                    self.out.line(value_line(self.session.state_of(cast("Scalar", value), name)))
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
                f"`:{command}` takes the name of a binding, not `{shorten(name, 30)}`",
                (f"for an expression, run `{command}(EXPR)`",),
            )
            return None
        node = self.session.lookup(name)
        value = self.session.values.get(name)
        if isinstance(value, ListValue):
            self.complain(
                f"`{name}` is a list ({shape_text(value)}): `:{command}` shows the graph of one node",
                (f"help: `{command}({name}[0])`, or a fold of the list: `{command}(sum({name}))`",),
            )
            return None
        if isinstance(value, TextValue):
            self.complain(f"`{name}` is {characters(len(value))}, a constant with no graph: `:{command}` shows a node's")
            return None
        if node is None:
            close = difflib.get_close_matches(name, list(self.session.values), n=1)
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
        before = self.session.values
        # A file runs as a script would print it: its `let`s are not echoed one by one.
        quiet = Renderer(self.out.console, row_limit=self.out.row_limit, echo_bindings=False)
        # A failure's one message is the file's: nothing of it was kept, its earlier statements too.
        if self.run(item, quiet, walking=False, undone=""):
            bound = [name for name, value in self.session.values.items() if before.get(name) is not value]
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

    def out_of_memory(self, while_: str) -> None:
        """The memory ran out outside a statement (the session reports a statement's): the
        typed error, in the memory the reserve gives back; the session goes on."""
        from ..interpreter.failures import out_of_memory, release_reserve

        release_reserve()
        self.errors.outcome(Failed(out_of_memory(None, None, while_)))

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


# A word typed alone that is a command of other REPLs and shells, not a `.sad` name: what
# does it here (in place of a `did you mean` some built-in).
_REPL_WORDS = {
    "clear": "help: `:reset` forgets every binding; Ctrl-L clears the screen",
    "cls": "help: `:reset` forgets every binding; Ctrl-L clears the screen",
    "reset": "help: `:reset` forgets every binding",
    "exit": "help: Ctrl-D or `:quit` leaves",
    "quit": "help: Ctrl-D or `:quit` leaves",
    "help": "help: `:help` shows the language by task (`:help TOPIC`, one task)",
    "vars": "help: `:vars` shows every binding",
}


def _with_repl_hint(failed: Failed, text: str) -> Failed:
    """A word of other REPLs typed alone (`exit`), or called as Python calls it (`exit()`),
    gets what does it here."""
    diagnostic = failed.diagnostic
    word = text.strip()
    called = word.endswith("()")
    word = word[:-2].rstrip() if called else word
    hint = _REPL_WORDS.get(word)
    kind, field = ("unknown-function", "function") if called else ("undefined-name", "name")
    if hint is None or diagnostic.kind != kind or diagnostic.fields.get(field) != word:
        return failed
    return Failed(diagnostic.replaced(notes=(hint,)), failed.traceback, failed.static)


def command_named(word: str) -> str | None:
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

