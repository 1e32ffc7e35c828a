"""The notebook's player of a `walk(OUT[, SEED])`: the pass's picture with the current edge
highlighted and each node's adjoint as it is at that edge, buttons and a slider over the edges,
and the step's text as a script prints it.

Self-contained HTML: the SVG inline (our own layout, so that its elements are known), a
little CSS scoped to the player, the frames as JSON in a ``<script type="application/json">``
and a few lines of plain JavaScript; no widget library, no external URL, so it works in a
trusted notebook and in an exported HTML file alike. The page starts before the first edge
(the forward values, each adjoint as the walk starts: nothing the walk computes is given away);
without JavaScript (an untrusted notebook) it stays there and the controls stay hidden.

What tests (and people) can rely on, inside ``div.scalarlang-walk`` (``id`` unique on the page):

- the player's ``data-step`` (0: before the first edge; k: after edge k) and ``data-steps``;
- buttons ``button.sl-first``, ``.sl-previous``, ``.sl-next``, ``.sl-last`` (``data-action``),
  the slider ``input.sl-slider`` (0 to the number of edges), ``.sl-position`` (``3 / 4``);
- ``pre.sl-step``: the step's lines as the command prints them (the header at step 0);
- a walk over a graph holding tensors steps a node at a time (each step marks every operand
  edge of the node; a tensor's adjoint reads as its first values);
- in the SVG, ``g.node[data-index=I]`` with ``data-adjoint`` (its adjoint now, as the one
  formatter writes it, set by the script; none for an untracked node) and its ``text[data-line="3"]``
  (``adjoint ...``), classes ``sl-operand`` (the node the current edge adds to) and
  ``sl-consumer``; ``g.edge[data-edge=K]`` (K: the edge's place in the walk, 0-based) with
  class ``sl-current``, ``sl-done`` or ``sl-todo``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import replace
from html import escape

from rich.text import Text

from ..engine.numbers import format_number
from ..interpreter.outcomes import WalkShown, WalkStep
from ..interpreter.tensor_outcomes import TensorSummary
from ..interpreter.tensor_outcomes import TensorWalkStep
from ..pictures import DrawingError, Picture, pass_picture
from ..pictures.layout import layout
from ..pictures.picture import BOX_VALUES
from ..pictures.svg import to_svg
from ..render.walks import walk_end_lines, walk_header, walk_step_lines

ADJOINT_LINE = 3  # of a tracked node's texts: label, operation, value, adjoint
_COUNTER = itertools.count(1)  # with the frames' hash, ids unique on a page of several players


WalkText = tuple[list[Text], list[list[Text]], list[Text]]  # header, each step's lines, closing line


def walk_text(walk: WalkShown, width: int) -> WalkText:
    """What the command prints of a walk after its tables (render/chain_rule.py's lines)."""
    steps = [walk_step_lines(walk, index, width) for index in range(len(walk.steps))]
    return walk_header(walk, width), steps, walk_end_lines(walk, width)


def player_html(walk: WalkShown, text: WalkText) -> str:
    """The player of ``walk``, whose frames say ``text`` (`walk_text`)."""
    data = walk_frames(walk, text)
    encoded = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    key = f"scalarlang-walk-{next(_COUNTER)}-{hashlib.sha1(encoded.encode()).hexdigest()[:10]}"
    last = len(walk.steps)
    picture = _picture_svg(walk, data)
    lines = max(text.count("\n") + 1 for text in data["texts"])
    buttons = "".join(
        f'<button type="button" class="sl-{action}" data-action="{action}" title="{title}">{face}</button>'
        for action, title, face in _BUTTONS
    )
    return (
        f'<div class="scalarlang-walk" id="{key}" data-step="0" data-steps="{last}" tabindex="0">'
        f"<style>{_STYLE}</style>"
        f'<div class="sl-controls" hidden>{buttons}'
        f'<input type="range" class="sl-slider" min="0" max="{last}" step="1" value="0" aria-label="edge">'
        f'<span class="sl-position">0 / {last}</span></div>'
        f'<pre class="sl-step" style="min-height:{lines * 1.35:.2f}em">{escape(data["texts"][0])}</pre>'
        f'<div class="sl-picture">{picture}</div>'
        f'<script type="application/json" class="sl-data">{encoded}</script>'
        f"<script>{_SCRIPT.replace('PLAYER_ID', key)}</script>"
        "</div>"
    )


def walk_frames(walk: WalkShown, text: WalkText) -> dict:
    """The player's data: ``nodes`` (the tracked nodes' topology indices, in the order of
    ``start``), ``start`` (their adjoints' texts before the first edge), ``steps`` (per edge:
    the consumer's and the operand's topology indices, the operand's place in ``nodes`` or
    None when untracked, and its adjoint's text after the edge) and ``texts`` (what each
    frame says: the header, then each step's lines, the last with the closing line).

    A walk over a graph holding tensors steps a node at a time: each of its ``steps`` is the
    node's topology index and a list of (operand, place, text after) per operand edge, and
    ``stepOf`` gives each node's step by topology index (None: not walked), so that its
    edges light up together; a tensor's adjoint reads as its first values."""
    header, step_lines, end = text
    texts = [_plain(header)] + [_plain(lines) for lines in step_lines]
    texts[-1] += "\n" + _plain(end)
    backward_pass = walk.backward.backward_pass
    nodes = [record.topology_index for record in backward_pass.nodes if record.tracked]
    place = {index: at for at, index in enumerate(nodes)}
    if walk.steps and isinstance(walk.steps[0], TensorWalkStep):
        return _tensor_frames(walk, nodes, place, texts)
    if len(nodes) != len(walk.start):  # (one tracked node per adjoint: the interpreter's rule)
        raise ValueError("the walk's adjoints do not match its pass's tracked nodes")
    steps: list[list] = []
    for step, edge in zip(walk.steps, backward_pass.edges):
        assert isinstance(step, WalkStep)
        operand = place.get(edge.parent) if step.operand_tracked else None
        after = None if step.after is None else format_number(step.after)
        steps.append([edge.child, edge.parent, operand, after])
    return {"nodes": nodes, "start": [format_number(value) for _, value in walk.start], "steps": steps, "texts": texts}


def _tensor_frames(walk: WalkShown, nodes: list[int], place: dict[int, int], texts: list[str]) -> dict:
    backward_pass = walk.backward.backward_pass
    topology = backward_pass.topology
    start = []
    for index in nodes:  # before the first node: every adjoint 0, the output's the seed
        seed = index == len(topology) - 1
        size = len(getattr(topology[index], "_values", ())) or 1
        start.append(_first_values([backward_pass.seed if seed else 0.0] * size))
    steps: list[list] = []
    step_of: list[int | None] = [None] * len(topology)
    for number, step in enumerate(walk.steps):
        assert isinstance(step, TensorWalkStep)
        step_of[step.position] = number
        updates = [
            [edge.operand_index, place.get(edge.operand_index), _summary_values(edge.after)]
            for edge in step.edges if edge.after is not None
        ]
        steps.append([step.position, updates])
    return {"nodes": nodes, "start": start, "steps": steps, "stepOf": step_of, "texts": texts}


def _first_values(values: list[float]) -> str:
    shown = ", ".join(format_number(value) for value in values[:BOX_VALUES])
    return shown + (", …" if len(values) > BOX_VALUES else "")


def _summary_values(summary: TensorSummary | None) -> str | None:
    """A summary's first values as a tensor's box shows them (one number: itself)."""
    if summary is None:
        return None
    if not summary.shape:
        return format_number(summary.largest)
    count = 1
    for dimension in summary.shape:
        count *= dimension
    shown = ", ".join(format_number(value) for value in summary.first[:BOX_VALUES])
    return shown + (", …" if count > BOX_VALUES else "")


def _plain(lines: list[Text]) -> str:
    return "\n".join(line.plain.rstrip() for line in lines)


def _picture_svg(walk: WalkShown, data: dict) -> str:
    """The pass's picture with each tracked node's adjoint at the start of the walk (boxes wide
    enough for every adjoint it takes on); empty when the graph is too large to draw."""
    shown = walk.backward
    try:
        picture = pass_picture(shown.backward_pass, shown.label, shown.labels.__getitem__)
    except DrawingError:
        return ""
    texts: dict[int, list[str]] = {index: [text] for index, text in zip(data["nodes"], data["start"])}
    for step in data["steps"]:
        for parent, operand, after in step[1] if isinstance(step[1], list) else [step[1:]]:
            if operand is not None:
                texts[parent].append(after)
    widest = _with_adjoints(picture, {index: max(values, key=len) for index, values in texts.items()})
    start = _with_adjoints(picture, {index: values[0] for index, values in texts.items()})
    title = start.title.replace("backward from", "walk from", 1)
    svg = to_svg(replace(start, title=title), layout(widest), marks=True)
    return svg[svg.find("<svg") :]


def _with_adjoints(picture: Picture, adjoints: dict[int, str]) -> Picture:
    """The picture whose tracked nodes show ``adjoint TEXT`` (and no gradient) under their value."""
    nodes = tuple(
        replace(node, lines=node.lines[:2] + (f"adjoint {adjoints[node.index]}",)) if node.index in adjoints else node
        for node in picture.nodes
    )
    return replace(picture, nodes=nodes)


_BUTTONS = (
    ("first", "before the first edge", "« first"),
    ("previous", "the previous edge", "‹ previous"),
    ("next", "the next edge", "next ›"),
    ("last", "after the last edge", "last »"),
)

_STYLE = (
    ".scalarlang-walk{margin:0.4em 0;font-family:Menlo,'DejaVu Sans Mono',Consolas,monospace;font-size:12px;"
    "color:#000;background:#fff;outline:none}"
    ".scalarlang-walk .sl-controls{display:flex;align-items:center;gap:0.4em;margin:0.3em 0.6em}"
    ".scalarlang-walk .sl-controls[hidden]{display:none}"
    ".scalarlang-walk button{font:inherit;padding:0.1em 0.6em;cursor:pointer}"
    ".scalarlang-walk .sl-slider{flex:0 1 24em;min-width:8em}"
    ".scalarlang-walk pre.sl-step{margin:0;padding:0.3em 0.6em;line-height:1.35;white-space:pre;overflow-x:auto;"
    "font:inherit;background:#fff;color:#000}"
    ".scalarlang-walk .sl-picture{overflow:auto}"
    ".scalarlang-walk g.edge.sl-todo{opacity:0.3}"
    ".scalarlang-walk g.edge.sl-current path{stroke:#c0392b;stroke-width:2.4}"
    ".scalarlang-walk g.edge.sl-current text{fill:#c0392b;font-weight:bold}"
    ".scalarlang-walk g.node.sl-consumer rect{stroke:#e67e22;stroke-width:2.5}"
    ".scalarlang-walk g.node.sl-operand rect{stroke:#c0392b;stroke-width:3}"
    ".scalarlang-walk g.node.sl-operand text[data-line='3']{fill:#c0392b;font-weight:bold}"
)

# `document.currentScript` is the script where it runs in place (JupyterLab, an exported file);
# classic Jupyter runs it elsewhere, and the player is then found by its id.
_SCRIPT = """(function () {
  var here = document.currentScript && document.currentScript.parentNode;
  var root = here && here.id === "PLAYER_ID" ? here : document.getElementById("PLAYER_ID");
  if (!root || root.getAttribute("data-ready")) { return; }
  root.setAttribute("data-ready", "true");
  var data = JSON.parse(root.querySelector("script.sl-data").textContent);
  var last = data.steps.length;
  var stepOf = data.stepOf || null;  // a tensor walk's: each node's step, by topology index
  function updates(s) { return Array.isArray(s[1]) ? s[1] : [[s[1], s[2], s[3]]]; }
  var slider = root.querySelector(".sl-slider");
  var shown = root.querySelector(".sl-step");
  var position = root.querySelector(".sl-position");
  var nodes = {}, edges = {};
  Array.prototype.forEach.call(root.querySelectorAll("g.node[data-index]"), function (g) {
    nodes[g.getAttribute("data-index")] = g;
  });
  Array.prototype.forEach.call(root.querySelectorAll("g.edge[data-edge]"), function (g) {
    edges[g.getAttribute("data-edge")] = g;
  });
  function mark(element, name, on) {
    if (element) { if (on) { element.classList.add(name); } else { element.classList.remove(name); } }
  }
  function show(step) {
    step = Math.max(0, Math.min(last, Number(step) || 0));
    var adjoints = data.start.slice();
    for (var k = 0; k < step; k++) {
      updates(data.steps[k]).forEach(function (u) { if (u[1] !== null) { adjoints[u[1]] = u[2]; } });
    }
    data.nodes.forEach(function (index, at) {
      var g = nodes[index];
      if (!g) { return; }
      g.setAttribute("data-adjoint", adjoints[at]);
      var text = g.querySelector("text[data-line='3']");
      if (text) { text.textContent = "adjoint " + adjoints[at]; }
    });
    var current = step > 0 ? data.steps[step - 1] : null;
    var operands = current === null ? [] : updates(current).map(function (u) { return String(u[0]); });
    Object.keys(nodes).forEach(function (index) {
      mark(nodes[index], "sl-operand", operands.indexOf(index) >= 0);
      mark(nodes[index], "sl-consumer", current !== null && String(current[0]) === index);
    });
    Object.keys(edges).forEach(function (e) {
      var k = stepOf ? stepOf[edges[e].getAttribute("data-child")] : Number(e);
      if (k === null || k === undefined) { k = last; }  // (a node the pass does not visit)
      mark(edges[e], "sl-done", k < step - 1);
      mark(edges[e], "sl-current", k === step - 1);
      mark(edges[e], "sl-todo", k > step - 1);
    });
    root.setAttribute("data-step", String(step));
    slider.value = String(step);
    shown.textContent = data.texts[step];
    position.textContent = step + " / " + last;
    root.querySelector(".sl-first").disabled = root.querySelector(".sl-previous").disabled = step === 0;
    root.querySelector(".sl-next").disabled = root.querySelector(".sl-last").disabled = step === last;
  }
  function step() { return Number(root.getAttribute("data-step")); }
  var moves = {
    first: function () { return 0; }, previous: function () { return step() - 1; },
    next: function () { return step() + 1; }, last: function () { return last; }
  };
  Array.prototype.forEach.call(root.querySelectorAll("button[data-action]"), function (button) {
    button.addEventListener("click", function () { show(moves[button.getAttribute("data-action")]()); });
  });
  slider.addEventListener("input", function () { show(slider.value); });
  root.addEventListener("keydown", function (event) {
    if (event.target === slider) { return; }
    var keys = {ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last"};
    if (keys[event.key]) { show(moves[keys[event.key]]()); event.preventDefault(); }
  });
  root.querySelector(".sl-controls").hidden = false;
  show(0);
})();"""
