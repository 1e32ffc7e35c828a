"""``explain``, ``paths`` and ``walk`` of scalar graphs as text: the chain rule on the learner's own graph.

Every number goes through the one formatter; every line fits the width it is given (a sum is
wrapped before its ``+`` and cut with a count, a label is cut at `LABEL_LIMIT`). The REPL's
interactive walk shows a walk a step at a time with the functions a script's walk uses:

- `forward_tables(shown.backward, width, rows)` (tables.py): the graph, values only;
- `walk_header(shown, width)`: what a walk shows, and every tracked node's adjoint at the start;
- `walk_step_lines(shown, index, width)`: the edge ``shown.steps[index]`` and the adjoints
  after it;
- `walk_end_lines(shown, width)`: the closing line.

walks.py puts them together (with the pass's tables), and a tensor walk's lines beside them.
"""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from ..engine.numbers import format_number
from ..interpreter.outcomes import EdgeShare, Explained, PathShown, PathsShown, WalkShown, WalkStep
from .styles import STYLES
from .table_layout import Column, titled_table
from .wrapping import INDENT, Piece, flow, prose, sentence

# Labels in these lines are cut to this many characters (tables cut theirs to fit).
LABEL_LIMIT = 40
# A sum shows at most this many lines, the last saying how many terms are left out.
SUM_LINES = 6
# A walk step's adjoints show at most this many lines, the last saying how many are left out.
ADJOINT_LINES = 4


# ---- explain ------------------------------------------------------------------------------------


def explain_lines(shown: Explained, width: int, row_limit: int = 200) -> list[Text]:
    """X's pass adjoint as the sum of its edges' contributions (a line and a table), then its
    stored gradient as the sum of its pass adjoints, then the note if there is one."""
    label = _label(shown.label)
    if not shown.tracked:
        return _note(shown.note or f"`{label}` is untracked", width)
    lines: list[Text] = []
    if shown.pass_number is not None and shown.pass_adjoint is not None:
        lines += sentence([
            _name(label), f": pass adjoint in pass {shown.pass_number} (backward from ",
            _name(_label(shown.pass_output or "?")), ")",
        ], width)
        adjoint = format_number(shown.pass_adjoint)
        if shown.seeded:
            seed: list[str | Text] = [f"{INDENT}{adjoint} = the seed (", _name(label), " is the pass's output)"]
            lines += sentence(seed, width, INDENT * 2)
        elif not shown.edges:
            lines += sentence([f"{INDENT}{adjoint}: no operand edge leads into it in this pass"], width, INDENT * 2)
        else:
            terms = [
                (
                    Text(format_number(edge.contribution)),
                    Text.assemble("(", _name(_label(edge.consumer)), f", slot {edge.slot})"),
                )
                for edge in shown.edges
            ]
            lines += sum_lines(Text(f"{INDENT}{adjoint} = "), terms, width)
            lines += _indented(_edge_table(shown, width - len(INDENT), row_limit))
    lines += sentence([_name(label), ": stored gradient, the sum of its pass adjoints since its last zero_grad"], width)
    gradient = format_number(shown.gradient if shown.gradient is not None else 0.0)
    if shown.passes:
        passes: list[tuple[Text, ...]] = [
            (Text(format_number(adjoint)), Text(f"(pass {number})")) for number, adjoint in shown.passes
        ]
        if not shown.complete:
            passes.insert(0, (Text("…"),))  # the earlier passes the session no longer keeps
        lines += sum_lines(Text(f"{INDENT}{gradient} = "), passes, width)
    elif shown.complete:
        lines += sentence([f"{INDENT}{gradient}: no pass since its last zero_grad"], width, INDENT * 2)
    else:
        lines += sentence([f"{INDENT}{gradient} = … (made by passes the session does not keep)"], width, INDENT * 2)
    if shown.note is not None:
        lines += _note(shown.note, width)
    return lines


_EDGE_COLUMNS = [
    Column("consumer", "label", key=True),
    Column("slot", "number", key=True),
    Column("upstream", "number"),
    Column("local", "number"),
    Column("contribution", "number"),
]


def _edge_table(shown: Explained, width: int, row_limit: int) -> list[Text]:
    rows = [
        [edge.consumer, str(edge.slot), *_upstream_and_local(edge), format_number(edge.contribution)]
        for edge in shown.edges[:row_limit]
    ]
    return titled_table(None, _EDGE_COLUMNS, rows, len(shown.edges), width)


def _upstream_and_local(edge: EdgeShare) -> list[str]:
    """An edge's upstream and local derivative; a tensor operation's edge: its VJP's formula."""
    if edge.upstream is None or edge.local is None:
        return ["(a tensor)", edge.formula or "VJP"]
    return [format_number(edge.upstream), format_number(edge.local)]


def sum_lines(lead: Text, terms: Sequence[tuple[Text, ...]], width: int, max_lines: int = SUM_LINES) -> list[Text]:
    """``lead`` then the terms joined by `` + `` (each term's parts by a blank), wrapped before
    a ``+`` with continuation lines indented under the lead, at most ``max_lines`` lines: the
    last then says how many terms are left out."""
    pieces: list[Piece] = [("" if index == 0 else " + ", term) for index, term in enumerate(terms)]
    indent = " " * min(len(lead.plain), max(0, width // 3))
    return flow(lead, pieces, width, indent, max_lines, lambda left: f"+ … {left:,} more {_plural(left, 'term')}")


# ---- paths --------------------------------------------------------------------------------------


def paths_lines(shown: PathsShown, width: int) -> list[Text]:
    """Each path with its local derivatives and their product, numbered (with its slots when
    two paths pass through the same labels: `x * x`), then their total and the pass adjoint."""
    count = shown.count
    lines = sentence([
        "paths from ", _name(_label(shown.output)), " down to ", _name(_label(shown.variable)),
        f": {count:,} (each: its edges' local derivatives and their product)" if count else ": none",
    ], width)
    with_slots = len({path.labels for path in shown.paths}) < len(shown.paths)
    number_width = len(str(len(shown.paths)))
    for number, path in enumerate(shown.paths, 1):
        lines += path_lines(path, number, width, with_slots, number_width)
    relation = "=" if shown.total == shown.pass_adjoint else "≈"  # rounding: the sum is in another order
    lines += sentence([
        f"total {format_number(shown.total)} {relation} pass adjoint {format_number(shown.pass_adjoint)} (a pass from ",
        _name(_label(shown.output)), ", seed 1)",
    ], width)
    return lines


def path_lines(path: PathShown, number: int, width: int, with_slots: bool = False, number_width: int = 1) -> list[Text]:
    """``1. loss → square → x (slots 0, 1): 1.000000000000 × 2.000000000000 = 2.000000000000``."""
    lead = Text(f"{INDENT}{str(number).rjust(number_width)}. ")
    pieces: list[Piece] = [
        ("" if index == 0 else " → ", _name(_label(label))) for index, label in enumerate(path.labels)
    ]
    if with_slots and path.slots:
        pieces.append((" ", Text(f"({_plural(len(path.slots), 'slot')} {', '.join(map(str, path.slots))})")))
    last = pieces[-1][1]
    pieces[-1] = (pieces[-1][0], Text.assemble(last, ":") if isinstance(last, Text) else last)  # break after it
    if path.locals:
        pieces += [
            (" " if index == 0 else " × ", Text(format_number(local))) for index, local in enumerate(path.locals)
        ]
        pieces.append((" = ", Text(format_number(path.product))))
    else:
        pieces.append((" ", Text(f"no edges, product {format_number(path.product)}")))
    return flow(lead, pieces, width, " " * len(lead.plain))


# ---- walk ---------------------------------------------------------------------------------------


def walk_header(shown: WalkShown, width: int) -> list[Text]:
    """``walk from loss with seed 1.000000000000: 4 operand edges, in the reverse walk's order``,
    what each step shows, and every tracked node's pass adjoint before the first edge."""
    edges = len(shown.steps)
    return [
        *sentence([
            "walk from ", _name(_label(shown.backward.label)),
            f" with seed {format_number(shown.backward.backward_pass.seed)}: {edges:,} operand {_plural(edges, 'edge')}"
            + (", in the reverse walk's order" if edges > 1 else ""),
        ], width),
        *prose(f"{INDENT}each edge: consumer → operand (slot): upstream × local = contribution,", width, INDENT * 2),
        *prose(
            f"{INDENT}then the operand's pass adjoint before → after, and every tracked node's adjoint",
            width,
            INDENT * 2,
        ),
        *adjoint_lines("adjoints at the start", shown.start, width),
    ]


def walk_step_lines(shown: WalkShown, index: int, width: int) -> list[Text]:
    """Step ``index`` (0-based, into ``shown.steps``):

    ``edge 1 of 4: loss → square (slot 0): 1.000000000000 × 1.000000000000 = 1.000000000000``,
    then the operand's pass adjoint before → after, then every tracked node's adjoint."""
    step = shown.steps[index]
    assert isinstance(step, WalkStep)  # (a tensor walk's steps: walks.py)
    pieces: list[Piece] = [
        ("", _name(_label(step.consumer))),
        (" → ", _name(_label(step.operand))),
        (" ", Text(f"(slot {step.slot}):")),
        (" ", Text(format_number(step.upstream))),
        (" × ", Text(format_number(step.local))),
        (" = ", Text(format_number(step.contribution))),
    ]
    lines = flow(Text(f"edge {index + 1} of {len(shown.steps)}: "), pieces, width, INDENT)
    operand = _name(_label(step.operand))
    if step.operand_tracked and step.before is not None and step.after is not None:
        lines += sentence([
            INDENT, operand, f" {format_number(step.before)} →", " ", Text(format_number(step.after), "bold"),
        ], width, INDENT * 2)
    else:
        lines += sentence([INDENT, operand, " is untracked: the contribution is not kept"], width, INDENT * 2)
    lines += adjoint_lines(f"{INDENT}adjoints", step.adjoints, width)
    return lines


def walk_end_lines(shown: WalkShown, width: int) -> list[Text]:
    """The closing line: the walk is `backward`'s pass, committed as `backward` commits it."""
    edges = len(shown.steps)
    return sentence([
        f"walked {edges:,} {_plural(edges, 'edge')} from ", _name(_label(shown.backward.label)),
        ": each gradient grew by its pass adjoint, as `backward` commits a pass",
    ], width)


def adjoint_lines(
    title: str, adjoints: Sequence[tuple[str, float]], width: int, max_lines: int = ADJOINT_LINES
) -> list[Text]:
    """``adjoints: x 0.000000000000, square 1.000000000000, loss 1.000000000000``, wrapped after
    a comma, at most ``max_lines`` lines (the last saying how many are left out)."""
    last = len(adjoints) - 1
    pieces: list[Piece] = [
        ("" if index == 0 else " ", (_name(_label(label)), Text(format_number(value) + ("," if index < last else ""))))
        for index, (label, value) in enumerate(adjoints)
    ]
    if not pieces:
        pieces = [("", Text("no tracked node"))]
    lead = Text(f"{title}: ")
    indent = " " * (len(title) - len(title.lstrip()) + len(INDENT))
    return flow(lead, pieces, width, indent, max_lines, lambda left: f"… {left:,} more")


def _indented(lines: list[Text]) -> list[Text]:
    return [Text.assemble(INDENT, line) for line in lines]


def _name(label: str) -> Text:
    return Text(label, STYLES["label"])


def _note(text: str, width: int) -> list[Text]:
    return prose(f"note: {text}", width, INDENT, STYLES["note"])


def _label(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_LIMIT else text[: LABEL_LIMIT - 1] + "…"


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
