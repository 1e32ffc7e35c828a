"""`walk(OUT[, SEED])` in the front ends: the REPL core with a fake key reader (one edge per
Enter, `q` for the rest, Ctrl-C stopping the display of a committed pass), and the notebook
player's HTML (its ids, data attributes and frames). The REPL in a real terminal is in
test_repl_pty.py; the player in a real browser in test_walk_browser.py."""

from __future__ import annotations

import io

import scalarlang
from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console

SEED = ["let x = var 2", "let square = x * x", "let loss = square + square"]


class Keys:
    """A key reader that types ``keys`` one per call (KeyboardInterrupt: Ctrl-C), and notes
    how much had been printed at each call."""

    def __init__(self, stream: io.StringIO, *keys):
        self.stream = stream
        self.keys = list(keys)
        self.seen: list[str] = []

    def __call__(self) -> str:
        self.seen.append(self.stream.getvalue())
        key = self.keys.pop(0)
        if key is KeyboardInterrupt or key is EOFError:
            raise key
        return key


def make_core(*keys) -> tuple[ReplCore, io.StringIO, Keys | None]:
    stream = io.StringIO()
    reader = Keys(stream, *keys) if keys else None
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True), read_key=reader)
    for line in SEED:
        core.handle(line)
    return core, stream, reader


def shown_after(core: ReplCore, stream: io.StringIO, text: str) -> str:
    start = len(stream.getvalue())
    assert core.handle(text)
    return stream.getvalue()[start:]


def edges_in(text: str) -> list[int]:
    """The numbers of the edges shown: `edge 2 of 4: ...` is 2."""
    return [int(line.split()[1]) for line in text.splitlines() if line.startswith("edge ")]


# ---- the REPL core ------------------------------------------------------------------------------


def test_without_a_key_reader_every_step_prints_as_in_a_script():
    core, stream, _ = make_core()
    out = shown_after(core, stream, "walk(loss)")
    assert out == scalarlang.run("\n".join(SEED) + "\nwalk(loss)").text
    assert out.index("3 unique nodes, 4 operand edges") < out.index("adjoints at the start")
    assert edges_in(out) == [1, 2, 3, 4]
    assert "Enter" not in out and "walk stopped" not in out
    assert "  adjoints: x 8.000000000000, square 2.000000000000, loss 1.000000000000\n" in out
    assert core.session.lookup("x").gradient == 8.0


def test_one_edge_per_key_and_q_shows_the_rest():
    core, stream, keys = make_core("\n", "q")
    out = shown_after(core, stream, "walk(loss)")
    assert edges_in(out) == [1, 2, 3, 4]
    # At each key, the edges up to it were printed and none after it.
    assert [edges_in(seen) for seen in keys.seen] == [[1], [1, 2]]
    assert "4 edges, one per Enter: q shows the rest, Ctrl-C stops (the pass is committed)" in out
    assert out.rstrip().endswith("as `backward` commits a pass")
    assert not keys.keys


def test_enter_for_every_edge_asks_between_edges_only():
    core, stream, keys = make_core("", "", "")
    out = shown_after(core, stream, "walk(loss)")
    assert edges_in(out) == [1, 2, 3, 4] and len(keys.seen) == 3


def test_end_of_input_shows_the_rest():
    core, stream, keys = make_core(EOFError)
    assert edges_in(shown_after(core, stream, "walk(loss)")) == [1, 2, 3, 4]


def test_ctrl_c_stops_the_display_the_pass_stays_committed_and_the_input_goes_on():
    core, stream, keys = make_core("", KeyboardInterrupt)
    out = shown_after(core, stream, 'walk(loss)\nprint "after"')
    assert edges_in(out) == [1, 2]
    lines = out.splitlines()
    assert lines[-2:] == ["walk stopped: the pass was committed, as backward(loss) would", "after"]
    assert shown_after(core, stream, "grad(x)").startswith("grad(x) = 8.000000000000")
    core.read_key = Keys(stream, KeyboardInterrupt)
    out = shown_after(core, stream, "walk(loss, 2)")
    assert "as backward(loss, 2.000000000000) would" in out
    assert core.session.lookup("x").gradient == 24.0  # 8 + 2 * 8


def test_a_later_failure_in_the_input_undoes_the_walk_as_it_would_backward():
    core, stream, _ = make_core("q")
    out = shown_after(core, stream, "walk(loss)\nlet y = nope")
    assert "error[undefined-name]" in out and "were undone" in out
    assert core.session.lookup("x").gradient == 0.0


def test_a_walk_in_a_loaded_file_prints_every_step(tmp_path):
    program = tmp_path / "walk.sad"
    program.write_text("walk(loss)\n", encoding="utf-8")
    core, stream, keys = make_core(KeyboardInterrupt)
    out = shown_after(core, stream, f":load {program}")
    assert edges_in(out) == [1, 2, 3, 4] and keys.seen == []


def test_a_walk_of_one_edge_asks_nothing():
    core, stream, keys = make_core(KeyboardInterrupt)
    out = shown_after(core, stream, "walk(-x)")
    assert edges_in(out) == [1] and keys.seen == [] and "Enter" not in out
