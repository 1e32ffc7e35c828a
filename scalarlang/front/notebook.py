"""The IPython/Jupyter extension: ``%load_ext scalarlang``, then ``%%sad`` cells.

One `scalarlang.Session` per kernel, so names persist from cell to cell. A cell's outcomes
show as they would in a terminal, as HTML with the terminal's colours (tables, values,
prints, Rust-style diagnostics); pictures show as SVG; a `walk(...)` shows its pass's tables
and a player (player.py: the picture, buttons and a slider over the edges).

A cell that fails shows what it printed and its diagnostic, then raises `SadCellError`, so
"Run All" and nbclient stop there as at a failing Python cell. IPython shows the exception's
`_render_traceback_` (one line: the kind and the place) instead of a Python traceback: a
mistake in `.sad` text never shows one.

Magics:
    %%sad                   run the cell's `.sad` text in the kernel's session
    %sad_reset              forget every name
    %sad_draw NAME [FILE]   the picture of NAME's graph, inline or written to FILE
"""

from __future__ import annotations

import shlex
from functools import cache

from .api import Result, Session, diagnostic_result, drawing_diagnostic
from ..engine.numbers import MAX_DIGITS
from ..language.diagnostics import Diagnostic
from ..pictures import DrawingError

# IPython is imported when the extension is loaded, not with this module: `scalarlang`
# exports `load_ipython_extension` whether or not the notebook extra is installed.


@cache
def magics_class() -> type:
    """The magics of one kernel, around its one session (made on first use: it needs IPython)."""
    from IPython.core.magic import Magics, cell_magic, line_magic
    from IPython.core.magic import magics_class as registered

    @registered
    class SadMagics(Magics):
        def __init__(self, shell) -> None:
            super().__init__(shell)
            self.session = Session()
            self.cells = 0

        @cell_magic
        def sad(self, line: str, cell: str) -> None:
            """Run the cell as `.sad` text in this kernel's session."""
            # Named by the execution count Jupyter shows (`In [6]`: `<cell 6>`), which counts
            # every cell run, not only `%%sad` ones: the displayhook's `Out [N]` count, the
            # running cell's in every IPython (9 counts the shell's execution_count up before a
            # cell runs, 8 after). Where no cell is counted (a magic called from Python), ours.
            self.cells += 1
            count = getattr(getattr(self.shell, "displayhook", None), "prompt_count", None)
            number = count if isinstance(count, int) and count >= 1 else self.cells
            show(self.session.run(cell, name=f"<cell {number}>"))

        @line_magic
        def sad_reset(self, line: str) -> None:
            """Forget every name bound by earlier cells."""
            self.session.reset()

        @line_magic
        def sad_digits(self, line: str) -> None:
            """``%sad_digits N``: numbers with N decimals (12: the chapter's); ``%sad_digits``:
            short again (whole numbers as integers, others with 12 significant digits)."""
            digits_magic(self.session, line)

        @line_magic
        def sad_draw(self, line: str) -> None:
            """``%sad_draw NAME [FILE]``: draw NAME's graph inline, or write FILE."""
            draw_magic(self.session, line)

    return SadMagics


def digits_magic(session: Session, line: str) -> None:
    word = line.strip()
    if word and not (word.isdigit() and int(word) <= MAX_DIGITS):
        message = f"usage: %sad_digits N (a whole number from 0 to {MAX_DIGITS}), or %sad_digits for short numbers"
        show(diagnostic_result(Diagnostic("wrong-arguments", message)))
        return
    session.digits = int(word) if word else None


def draw_magic(session: Session, line: str) -> None:
    try:
        words: list[str] | None = shlex.split(line)
        message = ""
    except ValueError as error:
        words, message = None, f"cannot read the arguments: {error}"
    if words is not None and not 1 <= len(words) <= 2:
        words, message = None, "usage: %sad_draw NAME [FILE] (FILE ends in .svg, .png or .dot)"
    if words is None:
        show(diagnostic_result(Diagnostic("wrong-arguments", message)))
        return
    name, file = words[0], (words[1] if len(words) == 2 else None)
    if name not in session:
        show(diagnostic_result(Diagnostic("undefined-name", f"no name `{name}` is bound in this session")))
        return
    try:
        drawn = session.draw(name, file)
    except DrawingError as error:
        show(diagnostic_result(drawing_diagnostic(error)))
        return
    if file is None:
        _display(drawn)
    else:
        show(session.run(f'print "wrote {_sad_string(str(drawn))}"', name="<sad_draw>"))


class SadCellError(Exception):
    """A `%%sad` cell (or `%sad_draw`) failed: raised after its output, the diagnostic included,
    is shown. ``diagnostic`` is the error as data; ``str()`` is its first line."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(f"error[{diagnostic.kind}]: {diagnostic.message}")
        self.diagnostic = diagnostic

    @property
    def kind(self) -> str:
        return self.diagnostic.kind

    def _render_traceback_(self) -> list[str]:
        # IPython's showtraceback prints (ipykernel: sends as the error's traceback) these lines
        # in place of a Python traceback. The diagnostic itself is the display just above.
        diagnostic, where = self.diagnostic, ""
        if diagnostic.span is not None and diagnostic.source is not None:
            where = f" at {diagnostic.source.name}:{diagnostic.span.line}:{diagnostic.span.column}"
        return [f"the cell stopped{where}: error[{diagnostic.kind}] (shown above)"]


def show(result: Result) -> None:
    """Display each part of a result in order: text as HTML (with a plain fallback), pictures
    as SVG, walks as players (HTML, with the command's text as the plain fallback); then, if a
    statement failed, raise `SadCellError`."""
    for part in result.parts:
        _display(part)
    if result.error is not None:
        raise SadCellError(result.error)


def _display(item: object) -> None:
    from IPython.display import display

    display(item)


def _sad_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "{{").replace("}", "}}")


def load_ipython_extension(ipython) -> None:
    """``%load_ext scalarlang``: register the magics (a second load changes nothing)."""
    sad_magics = magics_class()
    if not any(isinstance(magics, sad_magics) for magics in ipython.magics_manager.registry.values()):
        ipython.register_magics(sad_magics(ipython))


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext scalarlang``: the magics go, and with them the kernel's session."""
    registry = ipython.magics_manager.registry
    for key in [key for key, magics in registry.items() if isinstance(magics, magics_class())]:
        del registry[key]
    for kind in ("line", "cell"):
        table = ipython.magics_manager.magics[kind]
        for name in ("sad", "sad_reset", "sad_draw"):
            table.pop(name, None)


def kernel_session(ipython=None) -> Session:
    """The session the ``%%sad`` cells of this kernel run in (to use its names from Python)."""
    if ipython is None:
        from IPython import get_ipython

        ipython = get_ipython()
    for magics in ipython.magics_manager.registry.values():
        if isinstance(magics, magics_class()):
            session: Session = getattr(magics, "session")
            return session
    raise RuntimeError("the scalarlang extension is not loaded: run %load_ext scalarlang")
