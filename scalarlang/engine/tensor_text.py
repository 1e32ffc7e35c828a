"""How a person reads a tensor: its shape, then a grid of its values.

The one text of a tensor, as numbers.py is the one formatter of a number, for every place and
layer that shows one (a value line, `print`, a `{T}` hole, `:vars`, the REPL, the notebook,
the playground): ``tensor [2, 3]`` then the rows, right-aligned columns in the session's
number style (numbers.py). A dimension longer than `ELIDE_PAST` shows its
first and last `EDGE` items with ``…`` between, as numpy does; a grid wider than the width
shows fewer columns (down to one a side) until it fits. A tensor of rank 3 or more is shown as
its matrices, each under its index (``[0]``, ``[1, 2]``), elided the same way. Deterministic:
it depends only on the values, the number style and the width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar

from .node import ScalarOperation
from .numbers import format_number
from .tensor_errors import show_shape
from .tensor_node import TensorNode

ELIDE_PAST = 6  # a dimension of more items than this is elided...
EDGE = 3  # ...to its first 3 and last 3
ELLIPSIS = "…"
INDENT = "  "
GAP = "  "
# `print` and `{T}` make their text in the interpreter, before any console sees it: they fit
# the session's text width (the console's, which every front end gives the session), set
# around each statement as it runs (`text_width`); this without a session.
TEXT_WIDTH = 100
# The session sets it (`set`, then `reset` with its token) around each statement it runs.
TENSOR_TEXT_WIDTH: ContextVar[int] = ContextVar("scalarlang_text_width", default=TEXT_WIDTH)

_Index = int | None  # an index shown, or None: the `…` of the items left out


def is_tensor(value: object) -> bool:
    return isinstance(value, TensorNode)


def shown_cells(shape: Sequence[int]) -> int:
    """How many numbers the text of a tensor of ``shape`` writes at most (each dimension past
    `ELIDE_PAST` shows 2 × `EDGE`): what writing it costs (the interpreter's lists.py)."""
    cells = 1
    for dimension in shape:
        cells *= dimension if dimension <= ELIDE_PAST else 2 * EDGE
    return cells


def tensor_summary(tensor: TensorNode) -> str:
    """``30 × 200 tensor variable``, ``3 tensor constant``, ``32 × 200 tensor (matmul)``: what
    `:vars` and a `let`'s echo say, as a list's ``16 × 2 variables``."""
    dims = " × ".join(f"{dimension:,}" for dimension in tensor.shape)
    operation = tensor.operation
    if operation is ScalarOperation.VARIABLE or operation is ScalarOperation.CONSTANT:
        return f"{dims} tensor {operation}"
    return f"{dims} tensor ({operation})"


def tensor_text(tensor: TensorNode, width: int | None = None, spec: str | None = None) -> str:
    """The tensor's shape line and grid, lines joined by newlines, ``width`` wide (None: the
    session's text width); ``spec``: a hole's format spec such as ``.3f`` for each element."""
    width = TENSOR_TEXT_WIDTH.get() if width is None else width
    return "\n".join(tensor_lines(tensor.shape, tensor._values, width, spec))


def tensor_lines(shape: Sequence[int], values: Sequence[float], width: int = TEXT_WIDTH,
                 spec: str | None = None, header: str | None = None) -> list[str]:
    """``header`` (default ``tensor [2, 3]``), then the grid's lines, none wider than
    ``width`` when one column a side fits."""
    number: Callable[[float], str] = format_number if spec is None else (lambda value: format(value, spec))
    lines = [f"tensor {show_shape(shape)}" if header is None else header]
    rows = shape[-2] if len(shape) >= 2 else 1
    columns = shape[-1]
    blocks = _block_indices(shape[:-2])
    row_indices = _shown(rows, EDGE)
    lines_of_blocks: list[list[str]] = []
    for edge in _column_edges(columns):
        column_indices = _shown(columns, edge)
        cells = [_cells(shape, values, block, row_indices, column_indices, number) for block in blocks]
        lines_of_blocks = _aligned(cells, len(column_indices))
        if max(len(line) for block_lines in lines_of_blocks for line in block_lines) <= width:
            break
    for block, block_lines in zip(blocks, lines_of_blocks):
        if block:
            lines.append(show_shape(block))
        lines.extend(block_lines)
    return lines


def _shown(length: int, edge: int) -> list[_Index]:
    """The indices of a dimension shown: all, or the first and last ``edge`` around a `…`."""
    if length <= ELIDE_PAST or 2 * edge >= length:
        return list(range(length))
    return [*range(edge), None, *range(length - edge, length)]


def _column_edges(columns: int) -> list[int]:
    """How many columns a side to try, widest first, for a grid that must fit a width."""
    edges = [] if columns <= ELIDE_PAST else [EDGE]
    if columns <= ELIDE_PAST:
        edges.append(columns)  # all of them
    edges.extend(edge for edge in range(min(EDGE, columns) - 1, 0, -1) if 2 * edge < columns)
    return edges


def _block_indices(leading: Sequence[int]) -> list[tuple[int, ...] | None]:
    """The index of each matrix shown of a tensor of rank 3 or more (its leading dimensions,
    each elided), None for a `…` between them; ``[()]`` for rank 1 or 2. Iterative: an
    odometer over the dimensions."""
    choices = [_shown(length, EDGE) for length in leading]
    blocks: list[tuple[int, ...] | None] = []
    positions = [0] * len(choices)
    while True:
        picked = [choices[axis][position] for axis, position in enumerate(positions)]
        if None in picked:
            if not blocks or blocks[-1] is not None:
                blocks.append(None)
        else:
            blocks.append(tuple(index for index in picked if index is not None))
        axis = len(choices) - 1
        while axis >= 0:
            positions[axis] += 1
            if positions[axis] < len(choices[axis]):
                break
            positions[axis] = 0
            axis -= 1
        if axis < 0:
            return blocks


_Cells = list[list[str] | None] | None  # a matrix's rows of cells (None: a `…` row); None: a `…` matrix


def _cells(shape: Sequence[int], values: Sequence[float], block: tuple[int, ...] | None,
           row_indices: list[_Index], column_indices: list[_Index], number: Callable[[float], str]) -> _Cells:
    """The cells of one matrix (``block``: its leading index; None: the `…` between matrices)."""
    if block is None:
        return None
    columns = shape[-1]
    rows = shape[-2] if len(shape) >= 2 else 1
    start = 0
    for axis, index in enumerate(block):
        start = start * shape[axis] + index
    start *= rows * columns
    cells: list[list[str] | None] = []
    for row in row_indices:
        if row is None:
            cells.append(None)
            continue
        base = start + row * columns
        cells.append([ELLIPSIS if column is None else number(values[base + column]) for column in column_indices])
    return cells


def _aligned(blocks: list[_Cells], count: int) -> list[list[str]]:
    """Each matrix's lines, every column right-aligned to its widest cell in any matrix."""
    widths = [0] * count
    for cells in blocks:
        for cell_row in cells or ():
            if cell_row is not None:
                for at, cell in enumerate(cell_row):
                    widths[at] = max(widths[at], len(cell))
    result = []
    for cells in blocks:
        if cells is None:
            result.append([ELLIPSIS])
            continue
        result.append([
            INDENT + (ELLIPSIS.rjust(widths[0]) if cell_row is None
                      else GAP.join(cell.rjust(widths[at]) for at, cell in enumerate(cell_row)))
            for cell_row in cells
        ])
    return result


def tensor_inline(tensor: TensorNode, spec: str | None = None) -> str:
    """A tensor on one line, as an item of a list shows it: ``tensor([[1, 2], [3, 4]])``, the
    form that makes it, each dimension past `ELIDE_PAST` elided to its first and last `EDGE`
    with ``…``. Iterative: an explicit stack of (axis, offset, indices left) frames."""
    number: Callable[[float], str] = format_number if spec is None else (lambda value: format(value, spec))
    shape, values = tensor.shape, tensor._values
    sizes = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        sizes[axis] = sizes[axis + 1] * shape[axis + 1]
    pieces = ["tensor(["]
    stack: list[tuple[int, int, list[_Index]]] = [(0, 0, _shown(shape[0], EDGE))]
    while stack:
        axis, offset, left = stack[-1]
        if not left:
            stack.pop()
            pieces.append("]")
            continue
        index = left.pop(0)
        if pieces[-1] != "[" and pieces[-1] != "tensor([":
            pieces.append(", ")
        if index is None:
            pieces.append(ELLIPSIS)
        elif axis == len(shape) - 1:
            pieces.append(number(values[offset + index]))
        else:
            pieces.append("[")
            stack.append((axis + 1, offset + index * sizes[axis], _shown(shape[axis + 1], EDGE)))
    pieces.append(")")
    return "".join(pieces)
