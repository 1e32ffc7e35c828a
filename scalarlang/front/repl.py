"""The REPL's terminal front end: one prompt_toolkit `PromptSession` over a `ReplCore`.

`run_repl` makes the session (file history, completion, highlighting, the parser deciding
whether Enter runs the input or continues it on a new line) and loops: read, run, print.
Ctrl-C drops the input being edited, Ctrl-D leaves, and a fault while reading never ends
the session; a Ctrl-C however soon after Enter interrupts the input (`EnterInterrupts`). The
core that runs an input is `ReplCore` (repl_core.py), which has no terminal; this module, editing.py and history.py are the only ones that import
prompt_toolkit, and ``cli`` imports them only when standard input is a terminal. Between the
edges of a `walk(...)` the core asks `terminal_key_reader`'s reader for a key.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING, Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import Completer
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import has_focus, is_searching
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from .._version import __version__
from ..render.text import Renderer, make_console
from .editing import GuardedCompleter, InputCheck, ReplLexer, SadCompleter, open_blocks
from .help_topics import topic_words
from .highlight import prompt_toolkit_style_rules
from .history import history_path, open_history
from .repl_core import ReplCore

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

PROMPT = "sad> "
CONTINUATION = "...> "
INDENT = "  "  # per open block, on each new line of an input


def _style(color: bool) -> Style:
    rules = {
        "prompt": "bold",
        "continuation": "ansibrightblack",
        "meta-command": "bold ansiyellow",
    }
    if color:
        rules.update(prompt_toolkit_style_rules())
        rules["prompt"] = "bold ansigreen"
    return Style.from_dict(rules)


def key_bindings(check: InputCheck, interrupts: EnterInterrupts | None = None) -> KeyBindings:
    """Enter runs the input, a syntax error included, and continues it while a parenthesis,
    bracket or brace is open; when it runs one, ``interrupts`` holds SIGINT back until it runs."""
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER) & ~is_searching

    def accept(event) -> None:
        event.current_buffer.validate_and_handle()
        if interrupts is not None and event.app.is_done:  # accepted: the prompt returns it
            interrupts.hold(event.app.input)

    @bindings.add("enter", filter=editing)
    def _enter(event) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None:
            buffer.complete_state = None
            if state.current_completion is not None:
                return  # Enter takes the chosen completion; the next Enter runs the input
        text = buffer.text
        # A complete input runs, and so does one that does not parse: its diagnostic is
        # printed under it, a fresh prompt follows and Up brings the line back to fix, as in
        # Python's REPL. Only an open bracket or brace continues the input.
        status, _ = check(text)
        at_end = buffer.cursor_position == len(text)
        if status == InputCheck.INCOMPLETE and not (at_end and _ends_in_empty_lines(text)):
            buffer.insert_text("\n" + INDENT * open_blocks(buffer.document.text_before_cursor))
            return
        accept(event)

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


def _ends_in_empty_lines(text: str) -> bool:
    """Two empty continuation lines: the user gives up on closing the parentheses; the input
    runs and the error says what is missing."""
    lines = text.split("\n")
    return len(lines) >= 3 and not lines[-1].strip() and not lines[-2].strip()


def _completer(core: ReplCore) -> SadCompleter:
    """Tab's words: the bound names, and after `:help ` the help page's topics."""
    return SadCompleter(lambda: core.session.values, lambda: topic_words(core.help_blocks()))


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
    """The one PromptSession of a REPL (``input``/``output`` for tests: pipe and dummy). It
    gives ``core`` its `EnterInterrupts`."""
    check = InputCheck()
    core.after_enter = interrupts = EnterInterrupts()
    return PromptSession(
        message=[("class:prompt", PROMPT)],
        prompt_continuation=_continuation,
        multiline=True,
        history=history,
        completer=GuardedCompleter(completer or _completer(core), core.background_fault),
        complete_while_typing=False,
        auto_suggest=AutoSuggestFromHistory(),
        lexer=ReplLexer(core.background_fault, lexer) if color or lexer is not None else None,
        key_bindings=key_bindings(check, interrupts),
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
        try:
            core.report_background_faults()
            try:
                text = prompt.prompt()
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
        except KeyboardInterrupt:
            continue  # Ctrl-C drops the input being edited (or a second one the message of a first)
        finally:
            if core.after_enter is not None:
                core.after_enter.release()


class EnterInterrupts:
    """A Ctrl-C typed however soon after the Enter that ran an input interrupts that input.

    While prompt_toolkit reads, the terminal is in raw mode: Ctrl-C is a key, not a signal.
    After the Enter it takes tens of milliseconds before the terminal makes Ctrl-C a signal
    again; a Ctrl-C typed meanwhile was a key no one asked for, kept for the next prompt
    (prompt_toolkit's typeahead, or the terminal's unread input), where it dropped an empty
    line once the input had run to its end (issue 36). So an Enter that accepts an input holds
    SIGINT back (`hold`: blocked, a signal waits and is never lost), and before the input runs
    `settle` looks for a Ctrl-C among the keys typed since, then lets SIGINT through: either
    way the input is interrupted (KeyboardInterrupt). The keys typed after the Ctrl-C are kept
    for the next prompt; those before it are dropped, as a terminal drops its input on Ctrl-C.
    A Ctrl-C after a further Enter is the next input's: it stays typed ahead with the rest.
    """

    def __init__(self) -> None:
        self.input: Input | None = None  # the prompt's, once an Enter held SIGINT
        self.held = False

    def hold(self, input: Input) -> None:
        self.input = input
        if hasattr(signal, "pthread_sigmask") and not self.held:  # (not on Windows)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            self.held = True

    def settle(self) -> None:
        """Before the input runs: KeyboardInterrupt if a Ctrl-C was typed after its Enter."""
        typed = False
        try:
            if self.input is not None:
                keys = get_typeahead(self.input) + _unread_keys(self.input)
                at = _ctrl_c_before_enter(keys)
                typed = at is not None
                store_typeahead(self.input, keys if at is None else keys[at + 1 :])
        finally:
            self.release()  # a SIGINT held back meanwhile is raised here
        if typed:
            raise KeyboardInterrupt

    def release(self) -> None:
        if self.held:
            self.held = False
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _ctrl_c_before_enter(keys: list[KeyPress]) -> int | None:
    """Where the first Ctrl-C is among keys typed after an Enter, unless another Enter comes
    before it (then it is the next input's, typed ahead)."""
    for index, key in enumerate(keys):
        if key.key == Keys.ControlC:
            return index
        if key.key in (Keys.ControlM, Keys.ControlJ):
            return None
    return None


def _unread_keys(input: Input) -> list[KeyPress]:
    """The keys the terminal holds, typed while it was in raw mode, read in a mode where a
    Ctrl-C typed now is a signal (held back, while an Enter holds it)."""
    try:
        import termios
    except ImportError:  # pragma: no cover - Windows: no terminal modes to pass between
        return []
    try:
        fd = input.fileno()
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError, NotImplementedError):  # not a terminal: a test's pipe
        return input.read_keys()
    mode = list(saved)
    mode[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)  # ISIG kept
    mode[0] &= ~(termios.IXON | termios.ICRNL | termios.INLCR | termios.IGNCR)
    mode[6] = list(saved[6])
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    keys: list[KeyPress] = []
    try:
        while more := input.read_keys():
            keys += more
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
    return keys


WALK_PROMPT = "-- Enter: next step · q: the rest · Ctrl-C: stop --"
Q_ENTER_SECONDS = 0.3


def terminal_key_reader(stdin, hint) -> Callable[[], str]:
    """What the REPL's `walk` asks between edges: one key from the terminal (Enter, `q`, ...)
    without echo, with ``WALK_PROMPT`` on ``hint`` (a terminal's stream, or None) while it
    waits and erased after. Ctrl-C stays a signal (KeyboardInterrupt); Ctrl-D is `q`; the
    Enter that follows a `q` within `Q_ENTER_SECONDS` is taken too (`q` alone or `q` Enter
    alike), so it does not reach the next prompt. Without termios (Windows), a line of input."""
    try:
        import select
        import termios
        import tty
    except ImportError:  # pragma: no cover - POSIX terminals have termios
        return lambda: input(WALK_PROMPT + " ")
    fd = stdin.fileno()

    def read_key() -> str:
        if hint is not None:
            hint.write(WALK_PROMPT)
            hint.flush()
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd, termios.TCSANOW)  # a key at a time, no echo; Ctrl-C still signals
            typed = os.read(fd, 64)
            if typed.lower().endswith(b"q") and select.select([fd], [], [], Q_ENTER_SECONDS)[0]:
                typed += os.read(fd, 64)
        finally:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
            if hint is not None:
                hint.write("\r\x1b[K")
                hint.flush()
        if not typed or b"\x04" in typed:
            return "q"  # end of input, or Ctrl-D
        return "q" if b"q" in typed.lower() else typed.decode("utf-8", "replace")

    return read_key


def run_repl(arguments) -> int:
    """``scalarlang`` with a terminal on standard input."""
    from prompt_toolkit.output.defaults import create_output

    width = getattr(arguments, "width", None) or None
    color = getattr(arguments, "color", "auto")
    debug = bool(getattr(arguments, "debug", False))
    out = Renderer(make_console(sys.stdout, width=width, color=color), echo_bindings=True)
    errors = Renderer(make_console(sys.stderr, width=width, color=color), echo_bindings=True)
    core = ReplCore(
        out, errors, debug=debug, read_key=terminal_key_reader(sys.stdin, _terminal_stream(sys.stdout)),
        pager=_terminal_pager(sys.stdout),
    )
    if getattr(arguments, "draw", None):  # --draw DIR: every pass of the session is drawn too
        from ..pictures import PassDrawer

        core.session.pass_observer = PassDrawer(arguments.draw)
    core.message(f"scalarlang {__version__}: :help shows the language by task, Ctrl-D leaves")
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


def _terminal_stream(stream):
    """``stream`` when it is a terminal (the walk's prompt is written there), else None."""
    try:
        return stream if stream.isatty() else None
    except (AttributeError, ValueError):
        return None


def _terminal_pager(stream) -> Callable[[str], None] | None:
    """pydoc's pager (``$PAGER``, else `less`) for the long `:help` page, when ``stream`` is a
    terminal; None otherwise (the page is printed)."""
    if _terminal_stream(stream) is None:
        return None
    import pydoc

    return pydoc.pager
