"""`walk(OUT[, SEED])` in the front ends: the REPL core with a fake key reader (one edge per
Enter, `q` for the rest, Ctrl-C stopping the display of a committed pass), and the notebook
player's HTML (its ids, data attributes and frames). The REPL in a real terminal is in
test_repl_pty.py; the player in a real browser in test_walk_browser.py."""

from __future__ import annotations

import io
import json
import re

import pytest

import scalarlang
from scalarlang.engine.numbers import format_number
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
    assert "  adjoints: x 8, square 2, loss 1\n" in out
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


def test_the_first_screen_is_the_forward_graph_and_gives_no_answer_away():
    # Issue 45, item 2: before the first Enter, values only (no pass adjoint, no gradient, no
    # adjoint the walk has yet to compute); the pass's tables come after the last edge.
    core, stream, keys = make_core("\n", "\n", "\n")
    out = shown_after(core, stream, "walk(loss)")
    first = keys.seen[0][len(stream.getvalue()) - len(out):]
    assert first.startswith("forward graph of loss")
    assert re.search(r"^#\s+node\s+operation\s+value\s+operands$", first, re.MULTILINE)
    assert re.search(r"^2\s+loss\s+add\s+8\s+1, 1$", first, re.MULTILINE)
    for answer in ("pass adjoint  gradient", "gradient", "backward from", "x 8", "x 4", "square 2"):
        assert answer not in first, answer
    assert "adjoints at the start: x 0, square 0, loss 1" in first
    assert out.index("edge 4 of 4") < out.index("pass adjoint  gradient") < out.index("walked 4 edges")


def test_a_scripts_walk_through_a_pipe_starts_from_the_forward_graph():
    from commands import run_program

    done = run_program("\n".join(SEED) + "\nwalk(loss)\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("forward graph of loss (values only: the walk computes the rest)\n")
    assert out.index("operands") < out.index("edge 1 of 4") < out.index("edge 4 of 4") < out.index("pass adjoint  gradient")
    assert "gradient" not in out[: out.index("edge 4 of 4")]
    assert out == scalarlang.run("\n".join(SEED) + "\nwalk(loss)", width=80).text


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
    assert shown_after(core, stream, "grad(x)").startswith("grad(x) = 8")
    core.read_key = Keys(stream, KeyboardInterrupt)
    out = shown_after(core, stream, "walk(loss, 2)")
    assert "as backward(loss, 2) would" in out
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


# ---- the notebook player's HTML ----------------------------------------------------------------


def players_in(html: str) -> list[dict]:
    """Each player's attributes, SVG elements and frames, read with the standard library."""
    from html.parser import HTMLParser

    players: list[dict] = []

    class Reader(HTMLParser):
        data_next = False

        def handle_starttag(self, tag, attrs):
            attributes = dict(attrs)
            classes = (attributes.get("class") or "").split()
            if "scalarlang-walk" in classes:
                players.append({"attributes": attributes, "tags": [], "data": None})
            elif players:
                players[-1]["tags"].append((tag, attributes))
                self.data_next = tag == "script" and "sl-data" in classes

        def handle_data(self, data):
            if self.data_next:
                players[-1]["data"] = json.loads(data)
                self.data_next = False

    Reader().feed(html)
    return players


def test_a_walk_is_a_part_whose_text_is_the_commands_and_whose_html_is_the_tables_and_a_player():
    result = scalarlang.run("\n".join(SEED) + '\nprint "before"\nwalk(loss)\nprint "after"')
    assert [type(part).__name__ for part in result.parts] == ["TextPart", "WalkPart", "TextPart"]
    walk = result.parts[1]
    assert walk.text == scalarlang.run("\n".join(SEED) + "\nwalk(loss)").text  # as the command prints it
    assert repr(walk) == walk.text and walk._repr_html_() == walk.html
    assert walk.html.index("3 unique nodes, 4 operand edges") < walk.html.index('class="scalarlang-walk"')
    # Above the player the forward graph only, and the player starts before the first edge.
    tables = walk.html[: walk.html.index('class="scalarlang-walk"')]
    assert "forward graph of" in tables and "pass adjoint" not in tables and "gradient" not in tables
    assert walk.html in result._repr_html_()
    (player,) = players_in(walk.html)
    assert player["attributes"]["data-steps"] == "4" and player["attributes"]["id"].startswith("scalarlang-walk-")
    assert player["attributes"]["data-step"] == "0"
    tags = player["tags"]
    actions = [attributes["data-action"] for tag, attributes in tags if tag == "button"]
    assert actions == ["first", "previous", "next", "last"]
    (slider,) = [attributes for tag, attributes in tags if tag == "input"]
    assert (slider["type"], slider["min"], slider["max"]) == ("range", "0", "4")
    assert [attributes["data-edge"] for tag, attributes in tags if tag == "g" and "data-edge" in attributes] == ["0", "1", "2", "3"]
    assert sorted(attributes["data-index"] for tag, attributes in tags if tag == "g" and "data-index" in attributes) == ["0", "1", "2"]


def test_the_frames_replayed_end_at_the_pass_tables_adjoints():
    session = scalarlang.Session()
    result = session.run("\n".join(SEED) + "\nwalk(loss, 2)")
    (player,) = players_in(result._repr_html_())
    data = player["data"]
    walk = result.outcomes[-1]
    assert data["nodes"] == [0, 1, 2] and data["start"] == ["0", "0", "2"]
    adjoints = list(data["start"])
    for consumer, operand, place, after in data["steps"]:
        adjoints[place] = after
    records = walk.backward.backward_pass.nodes
    assert adjoints == [format_number(record.pass_adjoint) for record in records]
    assert [step[:3] for step in data["steps"]] == [[2, 1, 1], [2, 1, 1], [1, 0, 0], [1, 0, 0]]
    texts = data["texts"]
    assert len(texts) == 5 and texts[0].startswith("walk from loss with seed 2")
    assert texts[3].startswith("edge 3 of 4: square → x (slot 0)") and "x 0 → 8" in texts[3]
    assert texts[4].rstrip().endswith("as `backward` commits a pass")


def test_untracked_operands_and_ids_unique_on_a_page():
    result = scalarlang.run("let x = var 2\nwalk(x * 3)\nwalk(x * 3)")
    first, second = players_in(result._repr_html_())
    assert first["attributes"]["id"] != second["attributes"]["id"]
    assert first["data"]["nodes"] == [0, 2]  # the constant 3 is untracked
    assert first["data"]["steps"][1][2:] == [None, None]


def test_the_player_needs_nothing_from_outside_the_page():
    html = scalarlang.run("\n".join(SEED) + "\nwalk(loss)")._repr_html_()
    assert "src=" not in html and "href=" not in html and "@import" not in html and "url(http" not in html
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) == {"http://www.w3.org/2000/svg"}  # a namespace


def test_a_graph_too_large_to_draw_has_a_player_without_a_picture(monkeypatch):
    from scalarlang.pictures import picture

    monkeypatch.setattr(picture, "MAX_NODES", 2)  # (a picture holds at most 500 nodes)
    result = scalarlang.run("\n".join(SEED) + "\nwalk(loss)")
    assert result.ok
    (player,) = players_in(result._repr_html_())
    assert player["attributes"]["data-steps"] == "4" and len(player["data"]["texts"]) == 5
    assert not any(tag == "svg" for tag, _ in player["tags"])


def test_a_sad_cell_shows_the_tables_and_the_player():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.display_formatter.active_types = ["text/plain", "text/html", "image/svg+xml"]
    ip.run_line_magic("load_ext", "scalarlang")
    try:
        with capture_output() as captured:
            ip.run_cell_magic("sad", "", "\n".join(SEED) + "\nwalk(loss)")
    finally:
        ip.run_line_magic("unload_ext", "scalarlang")
        InteractiveShell.clear_instance()
    (output,) = [output.data for output in captured.outputs]
    assert "edge 4 of 4" in output["text/plain"]
    assert len(players_in(output["text/html"])) == 1
