"""`walk(OUT[, SEED])` shown edge by edge in the REPL, without a terminal of its own.

The pass was committed before its outcome arrives, as `backward` would commit it; only the
display is walked. `show_walk` prints what a script prints of a walk (render/chain_rule.py's
forward graph, header, steps, the pass's tables and closing line), one edge at a time (a node
at a time over a graph holding tensors): after each step but the last it
asks ``read_key`` what to do. The key reader is injected: the terminal front end (repl.py)
passes one that reads a key from the terminal; without one (tests, a loaded file) every step
prints at once. A reader returns what was typed (Enter: the next edge; `q`: the rest at
once), raises `EOFError` for the rest, or lets Ctrl-C's `KeyboardInterrupt` through, which
stops the display and says the pass stays committed.
"""

from __future__ import annotations

from typing import Callable

from rich.text import Text

from ..engine.numbers import format_number
from ..interpreter.outcomes import WalkShown
from ..render.walks import step_word, walk_end_parts, walk_header, walk_step_lines
from ..render.tables import forward_tables
from ..render.styles import STYLES
from ..render.text import Renderer

KeyReader = Callable[[], str]


def show_walk(out: Renderer, walk: WalkShown, read_key: KeyReader | None = None) -> bool:
    """Print the walk as a script does, asking ``read_key`` between edges; False when Ctrl-C
    stopped it."""
    width = out.console.width
    steps = walk.steps
    asking = read_key is not None and len(steps) > 1
    try:
        for part in forward_tables(walk.backward, width, out.row_limit):  # values only
            out.lines(part)
        out.lines(walk_header(walk, width))
        if asking:
            out.line(Text(walk_hint(len(steps), step_word(walk)), STYLES["dim"]))
        for index in range(len(steps)):
            out.lines(walk_step_lines(walk, index, width))
            if asking and index + 1 < len(steps):
                assert read_key is not None
                try:
                    typed = read_key()
                except EOFError:
                    typed = "q"
                if typed.strip().lower().startswith("q"):
                    asking = False
        for part in walk_end_parts(walk, width, out.row_limit):  # the pass filled in
            out.lines(part)
    except KeyboardInterrupt:
        out.line(Text(stopped_message(walk), STYLES["dim"]))
        return False
    return True


def walk_hint(count: int, word: str = "edge") -> str:
    """``word``: what a step is, an edge (of a graph of scalar nodes) or a node (holding tensors)."""
    return f"{count:,} {word}s, one per Enter: q shows the rest, Ctrl-C stops (the pass is committed)"


def stopped_message(walk: WalkShown) -> str:
    """What the REPL says when Ctrl-C stops a walk's display."""
    seed = walk.backward.backward_pass.seed
    call = walk.backward.label if seed == 1.0 else f"{walk.backward.label}, {format_number(seed)}"
    return f"walk stopped: the pass was committed, as backward({call}) would"
