"""The public Python API: run `.sad` text from Python and show its results in notebooks.

    >>> import scalarlang
    >>> result = scalarlang.run("let x = var(2)\\nlet loss = x * x\\nbackward(loss)")
    >>> result.ok
    True
    >>> print(result.text)        # what the command would print
    >>> result                    # in Jupyter: the same, as coloured HTML

A `Session` keeps its names from one `run` to the next (as a REPL does); `session["x"]` is
the engine's `Scalar`, whose graph Jupyter draws (`Scalar._repr_svg_`). Errors are results
too: `result.error` is the diagnostic, shown Rust-style, never as a Python traceback.

This is a thin wrapper over the interpreter's `Interpreter`, which yields outcomes one statement
at a time for front ends (plain data); here each outcome is rendered as it arrives into plain
text and HTML, with the terminal's colours.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from ..engine.numbers import digits as number_digits
from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..language.diagnostics import Diagnostic
from ..pictures import DrawingError, Picture, graph_picture, svg_text, write_picture
from ..interpreter.core import Interpreter
from ..interpreter.failures import out_of_memory, release_reserve
from ..interpreter.outcomes import BackwardShown, Charted, Drawn, Failed, Outcome, WalkShown
from ..interpreter.values import ListValue, TextValue
from ..render.text import DEFAULT_WIDTH, Renderer, make_console
from ..language.source import Source, Span

if TYPE_CHECKING:
    from pathlib import Path

    from ..engine.records import BackwardPass

# The <pre> rich's HTML goes in: the terminal's look, whatever the notebook's stylesheet.
_PRE = (
    '<pre class="scalarlang" style="font-family:Menlo,\'DejaVu Sans Mono\',Consolas,monospace;'
    'font-size:12px;line-height:1.35;margin:0;padding:0.4em 0.6em;background:#ffffff;color:#000000;'
    'white-space:pre;overflow-x:auto">{code}</pre>'
)
_NO_SPAN = Span(0, 0, 1, 1, 1, 1)


@dataclass(frozen=True, slots=True)
class TextPart:
    """Consecutive outcomes shown as text: plain, and HTML with the terminal's colours."""

    text: str
    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class PicturePart:
    """A picture among the outcomes (SVG), with its DOT text for plain displays."""

    picture: Picture
    svg: str
    dot: str

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return self.dot


@dataclass(frozen=True, slots=True)
class ChartPart:
    """A chart among the outcomes (`plot`, `boundary`): SVG (an element, without the XML
    declaration of a file), with the terminal's picture as its plain text (what the command
    prints for it)."""

    svg: str
    text: str

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class WalkPart:
    """A `walk`: its text as the command prints it (the forward graph, every step, then the
    pass's tables), and in HTML the forward graph and the player (player.py: the picture, buttons and a slider over the
    edges)."""

    text: str
    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


Part = TextPart | PicturePart | ChartPart | WalkPart


@dataclass(frozen=True, slots=True)
class Result:
    """What running some `.sad` text did: its outcomes, and their renderings."""

    outcomes: tuple[Outcome, ...]
    parts: tuple[Part, ...]

    @property
    def ok(self) -> bool:
        """Whether every statement ran (an `expect` that caught its error counts as ran)."""
        return self.error is None

    @property
    def error(self) -> Diagnostic | None:
        """The diagnostic of the statement that failed, if one did."""
        for outcome in self.outcomes:
            if isinstance(outcome, Failed):
                return outcome.diagnostic
        return None

    @property
    def text(self) -> str:
        """The plain text the `scalarlang` command prints for these outcomes."""
        return "".join(part.dot if isinstance(part, PicturePart) else part.text for part in self.parts)

    def _repr_html_(self) -> str:
        pieces = [
            _inline_svg(part.svg) if isinstance(part, (PicturePart, ChartPart)) else part.html for part in self.parts
        ]
        return "<div class=\"scalarlang-result\">" + "".join(pieces) + "</div>"

    def __repr__(self) -> str:
        error = self.error
        state = "ok" if error is None else f"error[{error.kind}]"
        return f"<scalarlang.Result {state}, {len(self.outcomes)} outcomes>"

    def __str__(self) -> str:
        return self.text


class Session:
    """A `.sad` session for Python code: names persist from one `run` to the next."""

    def __init__(self, *, width: int = DEFAULT_WIDTH, digits: int | None = None) -> None:
        """``digits``: print numbers with that many decimals (12: the chapter's); None, the
        default: whole numbers short, others with 12 significant digits."""
        self.width = width
        with number_digits(digits):  # checked here, not at the first run
            self.digits = digits
        self._session = Interpreter()
        self._session.keep_history()  # `explain` of a pass run in an earlier cell or call

    @property
    def interpreter(self) -> Interpreter:
        """The interpreter's session underneath (its outcomes, for front ends of your own)."""
        return self._session

    def run(self, text: str, *, name: str = "<python>") -> Result:
        """Run ``text`` (parsed whole first: a syntax error runs nothing) until the first
        failing statement, which is reported in the result, not raised."""
        self._session.text_width = self.width  # (a chart's text, and its `.txt` files)
        with number_digits(self.digits):
            return render_outcomes(self._session.run(Source(name, text)), self.width)

    @property
    def names(self) -> dict[str, Scalar | ListValue | TextValue | Tensor]:
        """Every name bound to a value (a node; a list: a tuple of nodes, texts and lists; a
        text: a `str`; a tensor: a `Tensor`), in binding order."""
        return self._session.values  # type: ignore[return-value]

    def __getitem__(self, name: str) -> Scalar | ListValue | TextValue | Tensor:
        value = self._session.values.get(name) if isinstance(name, str) else None
        if value is None:
            raise KeyError(f"no name {name!r} is bound in this session")
        return value  # type: ignore[return-value]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._session.values

    def label_of(self, node: Scalar) -> str:
        return self._session.label_of(node)

    def picture(self, target: str | Scalar) -> Picture:
        """The picture of a bound name's (or a node's) graph, labelled with this session's names."""
        node = self[target] if isinstance(target, str) else target
        if not isinstance(node, (Scalar, Tensor)):
            raise TypeError(f"{target!r} is a list: draw one of its nodes")
        with number_digits(self.digits):
            return graph_picture(node, self._session.label_of)  # type: ignore[arg-type]  # (a tensor's too)

    def draw(self, target: str | Scalar, file: str | None = None, *, engine: str = "auto") -> PicturePart | Path:
        """Draw a graph: without ``file``, the picture (Jupyter shows it); with one, write it
        (``.svg``, ``.png`` or ``.dot``) and return its path. Raises `DrawingError`."""
        picture = self.picture(target)
        if file is not None:
            return write_picture(picture, file, engine=engine)
        return picture_part(picture, engine=engine)

    def reset(self) -> None:
        """Forget every name (nodes already handed out are untouched)."""
        self._session.reset()


def run(text: str, *, name: str = "<python>", width: int = DEFAULT_WIDTH, digits: int | None = None) -> Result:
    """Run ``text`` in a fresh session: ``scalarlang.run("print 1").text``."""
    return Session(width=width, digits=digits).run(text, name=name)


def picture_part(picture: Picture, *, engine: str = "auto") -> PicturePart:
    from ..pictures import to_dot

    return PicturePart(picture, svg_text(picture, engine=engine), to_dot(picture))


class _TextBuffer:
    """Two consoles rendering the same outcomes: plain text, and recorded for HTML."""

    def __init__(self, width: int) -> None:
        self.plain_file = io.StringIO()
        self.plain = Renderer(make_console(self.plain_file, width=width, color="never"))
        coloured = make_console(io.StringIO(), width=width, color="always")
        coloured.record = True
        self.coloured = Renderer(coloured)

    def add(self, outcome: Outcome) -> None:
        self.plain.outcome(outcome)
        self.coloured.outcome(outcome)

    def parts(self) -> list[TextPart]:
        """The text so far as one part, or none when it printed nothing (a script's `let`)."""
        text = self.plain_file.getvalue()
        if not text:
            return []
        return [TextPart(text, self.html())]

    def html(self) -> str:
        return self.coloured.console.export_html(inline_styles=True, code_format=_PRE)


def walk_part(walk: WalkShown, width: int = DEFAULT_WIDTH) -> WalkPart:
    """A walk's text as the command prints it (the forward graph, the header, every step, the
    pass's tables and the closing line); in HTML the forward graph, then the player."""
    from ..render.tables import forward_tables
    from .player import player_html, walk_text

    text = walk_text(walk, width)
    buffer = _TextBuffer(width)
    buffer.plain.outcome(walk)  # as a script prints it
    # Above the player, the forward graph only: the player fills in the adjoints edge by edge.
    for part in forward_tables(walk.backward, width, buffer.coloured.row_limit):
        buffer.coloured.lines(part)
    return WalkPart(buffer.plain_file.getvalue(), buffer.html() + player_html(walk, text))


def render_outcomes(outcomes: Iterable[Outcome], width: int = DEFAULT_WIDTH) -> Result:
    """Render each outcome as it arrives; pictures (`draw` without a file) as SVG, walks as
    players, the rest as text. The memory running out while an outcome is rendered is an
    `out-of-memory` failure after what was rendered before it (the session reports its own)."""
    seen: list[Outcome] = []
    parts: list[Part] = []
    buffer = _TextBuffer(width)
    memory_ran_out = False
    try:
        for outcome in outcomes:
            seen.append(outcome)
            match outcome:
                case WalkShown():
                    parts.extend(buffer.parts())
                    buffer = _TextBuffer(width)
                    parts.append(walk_part(outcome, width))
                case Drawn(path=None):  # a picture not written to a file: shown
                    parts.extend(buffer.parts())
                    buffer = _TextBuffer(width)
                    parts.append(PicturePart(outcome.picture, svg_text(outcome.picture), outcome.dot))
                case Charted(path=None):  # a chart not written to a file: shown
                    parts.extend(buffer.parts())
                    buffer = _TextBuffer(width)
                    parts.append(chart_part(outcome, width))
                case _:  # text (the renderer takes every kind of outcome)
                    buffer.add(outcome)
    except MemoryError:
        memory_ran_out = True  # (reported once the handler has freed the renderer's frames)
    if memory_ran_out:
        release_reserve()
    parts.extend(buffer.parts())
    if memory_ran_out:
        failed = Failed(out_of_memory(None, None, "the output was written"))
        seen.append(failed)
        failure = _TextBuffer(width)
        failure.add(failed)
        parts.extend(failure.parts())
    return Result(tuple(seen), tuple(parts))


def chart_part(charted: Charted, width: int = DEFAULT_WIDTH) -> ChartPart:
    """A chart as SVG, and as the text the command prints for it (``width`` wide)."""
    from ..pictures.chart_svg import chart_svg

    plain = io.StringIO()
    Renderer(make_console(plain, width=width, color="never")).outcome(charted)
    svg = chart_svg(charted.chart)
    return ChartPart(svg[svg.find("<svg"):], plain.getvalue())  # (inline: no XML declaration)


def diagnostic_result(diagnostic: Diagnostic, width: int = DEFAULT_WIDTH) -> Result:
    """A result holding one failure: how the notebook shows an error outside `.sad` text."""
    return render_outcomes([Failed(diagnostic)], width)


def drawing_diagnostic(error: DrawingError) -> Diagnostic:
    return Diagnostic(error.kind, error.message, fields=dict(error.fields))


def backward_pass_html(backward_pass: BackwardPass, width: int = DEFAULT_WIDTH) -> str:
    """A pass's node and edge tables (as the command prints them) and its picture."""
    from ..pictures import pass_picture

    # Outside a session nodes have no names: they are known by their topology index.
    nodes = backward_pass.nodes
    labels = tuple(f"#{index}" for index in range(len(nodes)))
    shown = BackwardShown(_NO_SPAN, labels[-1], backward_pass, labels, tuple(str(record.operation) for record in nodes))
    html = render_outcomes([shown], width)._repr_html_()
    try:
        svg = svg_text(pass_picture(backward_pass, shown.label, labels.__getitem__))
    except DrawingError:
        return html  # too large to draw: the tables are shown alone
    return html + _inline_svg(svg)


def _inline_svg(svg: str) -> str:
    # An SVG file's XML declaration and doctype are not allowed inside HTML.
    start = svg.find("<svg")
    return f'<div class="scalarlang-picture">{svg[start:] if start >= 0 else svg}</div>'
