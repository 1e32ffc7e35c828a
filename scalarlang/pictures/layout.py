"""A layered (Sugiyama-style) layout of a picture, in pure Python, for SVG without Graphviz.

The output sits on top, each operand below its consumers: a node's layer is the longest path
from the output (one pass over the topology in reverse, no recursion). Every edge gets a label
box in the layer just below its consumer and a point in each further layer it crosses, so
labels are laid out like boxes and never overlap; the two edges of ``x*x`` are two label
boxes side by side, two arrows. Then the order within each layer is improved by barycentre
sweeps (keeping the order with the fewest crossings) and x-coordinates are placed by
isotonic regression: each item as close as it can be to the mean of its neighbours while
keeping its order and its distance to the next.

Texts are set in a monospace font, so their widths are known without font metrics.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .picture import Picture

NODE_FONT_SIZE = 11
EDGE_FONT_SIZE = 10
TITLE_FONT_SIZE = 12
CHAR_WIDTH = 0.61  # of the font size: DejaVu Sans Mono, Menlo and Consolas advance ~0.6 em
NODE_LINE_HEIGHT = 14.0
EDGE_LINE_HEIGHT = 12.5
BOX_PAD_X = 9.0
BOX_PAD_Y = 6.0
LABEL_OFFSET = 5.0  # from the edge's line to its label text
NODE_GAP = 26.0  # between neighbours in a layer
VIRTUAL_GAP = 12.0
LAYER_GAP = 26.0  # between layers, where edges bend
DUMMY_HEIGHT = 4.0
MARGIN = 12.0
TITLE_HEIGHT = 24.0
ORDER_SWEEPS = 8
PLACE_SWEEPS = 6
# Graphs whose edges cross many layers make many items; beyond this, fewer sweeps keep a
# picture of MAX_NODES nodes within a few seconds.
ITEM_BUDGET = 20_000

_NODE, _LABEL, _DUMMY = 0, 1, 2
# How strongly an item keeps to its neighbours' mean: edge points most, so long edges run
# straight and the boxes move instead.
_WEIGHTS = {_NODE: 1.0, _LABEL: 2.0, _DUMMY: 6.0}


@dataclass(frozen=True, slots=True)
class Box:
    node: int  # index into picture.nodes
    x: float  # left
    y: float  # top
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    edge: int  # index into picture.edges
    # Points from the consumer's bottom to the operand's top: segments 0-1, 2-3, ... cross
    # the gaps between layers (drawn as curves), segments 1-2, 3-4, ... run straight down
    # through a layer.
    points: tuple[tuple[float, float], ...]
    label_x: float  # where the label's text starts
    label_y: float  # the top of the label's text


@dataclass(frozen=True, slots=True)
class Layout:
    width: float
    height: float
    boxes: tuple[Box, ...]
    routes: tuple[EdgeRoute, ...]


def text_width(text: str, font_size: float) -> float:
    return len(text) * font_size * CHAR_WIDTH


def node_size(label: str, lines: tuple[str, ...]) -> tuple[float, float]:
    widest = max([text_width(label, NODE_FONT_SIZE)] + [text_width(line, NODE_FONT_SIZE) for line in lines])
    return widest + 2 * BOX_PAD_X, (1 + len(lines)) * NODE_LINE_HEIGHT + 2 * BOX_PAD_Y


def label_size(lines: tuple[str, ...]) -> tuple[float, float]:
    widest = max((text_width(line, EDGE_FONT_SIZE) for line in lines), default=0.0)
    return widest, len(lines) * EDGE_LINE_HEIGHT + 4.0


class _Items:
    """The boxes, edge labels and edge points of every layer, in flat lists."""

    def __init__(self) -> None:
        self.layer: list[int] = []
        self.left: list[float] = []  # extent left of the item's x
        self.right: list[float] = []  # extent right of it
        self.height: list[float] = []
        self.kind: list[int] = []
        self.up: list[list[int]] = []
        self.down: list[list[int]] = []

    def add(self, layer: int, left: float, right: float, height: float, kind: int) -> int:
        self.layer.append(layer)
        self.left.append(left)
        self.right.append(right)
        self.height.append(height)
        self.kind.append(kind)
        self.up.append([])
        self.down.append([])
        return len(self.layer) - 1

    def link(self, upper: int, lower: int) -> None:
        self.down[upper].append(lower)
        self.up[lower].append(upper)


def layout(picture: Picture) -> Layout:
    nodes, edges = picture.nodes, picture.edges
    ranks = _ranks(len(nodes), edges)
    items = _Items()
    for node, rank in zip(nodes, ranks):
        width, height = node_size(node.label, node.lines)
        items.add(2 * rank, width / 2, width / 2, height, _NODE)
    chains = []
    for edge in edges:
        text_w, text_h = label_size(edge.lines)
        chain = [edge.child]
        first, last = 2 * ranks[edge.child] + 1, 2 * ranks[edge.parent]
        chain.append(items.add(first, 4.0, LABEL_OFFSET + text_w + 2.0, text_h, _LABEL))
        for layer in range(first + 1, last):
            chain.append(items.add(layer, 2.0, 2.0, DUMMY_HEIGHT, _DUMMY))
        chain.append(edge.parent)
        for upper, lower in zip(chain, chain[1:]):
            items.link(upper, lower)
        chains.append(chain)
    layers = _initial_order(items, len(nodes) - 1)
    heavy = len(items.layer) > ITEM_BUDGET
    layers = _reduce_crossings(items, layers, 2 if heavy else ORDER_SWEEPS)
    xs = _place(items, layers, 2 if heavy else PLACE_SWEEPS)
    _straighten(items, layers, xs, chains)
    tops = _layer_tops(items, layers, TITLE_HEIGHT + MARGIN if picture.title else MARGIN)
    return _assemble(picture, items, layers, xs, tops, chains)


def _ranks(count: int, edges) -> list[int]:
    """Longest path from the output (the last node) to each node, in edges."""
    by_child: list[list[int]] = [[] for _ in range(count)]
    for edge in edges:
        by_child[edge.child].append(edge.parent)
    ranks = [0] * count
    # Topology order puts every consumer after its operands: walking it backwards, a node's
    # rank is final before its operands are pushed down by it.
    for child in range(count - 1, -1, -1):
        below = ranks[child] + 1
        for parent in by_child[child]:
            if ranks[parent] < below:
                ranks[parent] = below
    return ranks


def _initial_order(items: _Items, output: int) -> list[list[int]]:
    """Layers ordered by first appearance from the top: operands in slot order."""
    depth = max(items.layer) + 1
    members: list[list[int]] = [[] for _ in range(depth)]
    for item, layer in enumerate(items.layer):
        members[layer].append(item)
    position = [0] * len(items.layer)
    layers = [[output]]
    for layer in range(1, depth):
        keyed = []
        for item in members[layer]:
            keyed.append((min((position[upper], items.down[upper].index(item)) for upper in items.up[item]), item))
        keyed.sort()
        ordered = [item for _, item in keyed]
        for index, item in enumerate(ordered):
            position[item] = index
        layers.append(ordered)
    return layers


def _reduce_crossings(items: _Items, layers: list[list[int]], sweeps: int) -> list[list[int]]:
    best = [list(layer) for layer in layers]
    best_crossings = _crossings(items, layers)
    current = [list(layer) for layer in layers]
    for sweep in range(sweeps):
        downward = sweep % 2 == 0
        span = range(1, len(current)) if downward else range(len(current) - 2, -1, -1)
        position = _positions(current, len(items.layer))
        for layer in span:
            neighbours = items.up if downward else items.down
            reference = len(current[layer - 1 if downward else layer + 1])
            own = len(current[layer])

            def key(item: int) -> tuple[float, int]:
                linked = neighbours[item]
                if not linked:
                    return ((position[item] + 0.5) / own, position[item])
                return (_total(position[other] + 0.5 for other in linked) / (len(linked) * reference), position[item])

            current[layer].sort(key=key)
            for index, item in enumerate(current[layer]):
                position[item] = index
        crossings = _crossings(items, current)
        if crossings < best_crossings:
            best, best_crossings = [list(layer) for layer in current], crossings
        if best_crossings == 0:
            break
    return best


def _positions(layers: list[list[int]], count: int) -> list[int]:
    position = [0] * count
    for layer in layers:
        for index, item in enumerate(layer):
            position[item] = index
    return position


def _crossings(items: _Items, layers: list[list[int]]) -> int:
    """Edge crossings between neighbouring layers, counted as inversions (a Fenwick tree)."""
    position = _positions(layers, len(items.layer))
    total = 0
    for upper, lower in zip(layers, layers[1:]):
        ends = sorted((position[a], position[b]) for a in upper for b in items.down[a])
        tree = [0] * (len(lower) + 1)
        seen = 0
        for _, end in ends:
            # crossings: earlier links that end to the right of this one
            index, not_greater = end + 1, 0
            while index > 0:
                not_greater += tree[index]
                index -= index & -index
            total += seen - not_greater
            index = end + 1
            while index <= len(lower):
                tree[index] += 1
                index += index & -index
            seen += 1
    return total


def _place(items: _Items, layers: list[list[int]], sweeps: int) -> list[float]:
    xs = [0.0] * len(items.layer)
    for layer in layers:
        offsets = _offsets(items, layer)
        for item, offset in zip(layer, offsets):
            xs[item] = offset - offsets[-1] / 2
    for sweep in range(sweeps + 1):
        if sweep == sweeps:
            order, pick = range(len(layers)), "both"
        elif sweep % 2 == 0:
            order, pick = range(1, len(layers)), "up"
        else:
            order, pick = range(len(layers) - 2, -1, -1), "down"
        for index in order:
            layer = layers[index]
            desired = [_desired(items, xs, item, pick) for item in layer]
            weights = [_WEIGHTS[items.kind[item]] for item in layer]
            for item, x in zip(layer, _fit(desired, weights, _offsets(items, layer))):
                xs[item] = x
    left = min(xs[item] - items.left[item] for item in range(len(xs)))
    return [x - left + MARGIN for x in xs]


def _desired(items: _Items, xs: list[float], item: int, pick: str) -> float:
    linked = items.up[item] if pick == "up" else items.down[item] if pick == "down" else items.up[item] + items.down[item]
    if not linked:
        return xs[item]
    return _total(xs[other] for other in linked) / len(linked)


def _total(values: Iterable[float]) -> float:
    """A left fold, so positions are the same bits on every Python (`sum()` of floats is
    compensated since 3.12)."""
    total = 0.0
    for value in values:
        total += value
    return total


def _offsets(items: _Items, layer: list[int]) -> list[float]:
    """The least distance of each item from the first one, given the order."""
    offsets = [0.0]
    for previous, item in zip(layer, layer[1:]):
        gap = NODE_GAP if _NODE in (items.kind[previous], items.kind[item]) else VIRTUAL_GAP
        offsets.append(offsets[-1] + items.right[previous] + items.left[item] + gap)
    return offsets


def _fit(desired: list[float], weights: list[float], offsets: list[float]) -> list[float]:
    """The positions nearest ``desired`` (weighted least squares) that keep ``offsets`` apart:
    pool-adjacent-violators on ``desired - offsets``, which must not decrease."""
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for target, weight, offset in zip(desired, weights, offsets):
        blocks.append([(target - offset) * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight_sum, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight_sum
            blocks[-1][2] += count
    fitted = []
    for total, weight_sum, count in blocks:
        fitted.extend([total / weight_sum] * int(count))
    return [value + offset for value, offset in zip(fitted, offsets)]


def _straighten(items: _Items, layers: list[list[int]], xs: list[float], chains: list[list[int]]) -> None:
    """Put the points of each long edge on one vertical line where their neighbours leave
    room (a wiggle a few pixels wide at every layer reads badly)."""
    position = _positions(layers, len(items.layer))
    for chain in chains:
        for run in (chain[1:-1], chain[2:-1]):
            if len(run) < 2:
                continue
            low, high = -float("inf"), float("inf")
            for item in run:
                layer = layers[items.layer[item]]
                index = position[item]
                if index > 0:
                    before = layer[index - 1]
                    gap = NODE_GAP if items.kind[before] == _NODE else VIRTUAL_GAP
                    low = max(low, xs[before] + items.right[before] + items.left[item] + gap)
                if index + 1 < len(layer):
                    after = layer[index + 1]
                    gap = NODE_GAP if items.kind[after] == _NODE else VIRTUAL_GAP
                    high = min(high, xs[after] - items.left[after] - items.right[item] - gap)
            if low > high:
                continue
            middle = sorted(xs[item] for item in run)[len(run) // 2]
            target = min(max(middle, low), high)
            for item in run:
                xs[item] = target
            break


def _layer_tops(items: _Items, layers: list[list[int]], start: float) -> list[tuple[float, float]]:
    """(top, height) of each layer."""
    spans = []
    top = start
    for layer in layers:
        height = max(items.height[item] for item in layer)
        spans.append((top, height))
        top += height + LAYER_GAP
    return spans


def _assemble(picture, items, layers, xs, spans, chains) -> Layout:
    boxes = []
    for index in range(len(picture.nodes)):
        top, height = spans[items.layer[index]]
        box_height = items.height[index]
        boxes.append(
            Box(index, xs[index] - items.left[index], top + (height - box_height) / 2, items.left[index] * 2, box_height)
        )
    bottom_slots = _attachments(chains, xs, boxes, first=True)
    top_slots = _attachments(chains, xs, boxes, first=False)
    routes = []
    for index, chain in enumerate(chains):
        child_box, parent_box = boxes[chain[0]], boxes[chain[-1]]
        points = [(bottom_slots[index], child_box.y + child_box.height)]
        for item in chain[1:-1]:
            top, height = spans[items.layer[item]]
            points.append((xs[item], top))
            points.append((xs[item], top + height))
        points.append((top_slots[index], parent_box.y))
        label_item = chain[1]
        label_top, _ = spans[items.layer[label_item]]
        routes.append(EdgeRoute(index, tuple(points), xs[label_item] + LABEL_OFFSET, label_top + 2.0))
    width = max(x + items.right[item] for item, x in enumerate(xs)) + MARGIN
    if picture.title:
        width = max(width, text_width(picture.title, TITLE_FONT_SIZE) + 2 * MARGIN)
    last_top, last_height = spans[-1]
    return Layout(width, last_top + last_height + MARGIN, tuple(boxes), tuple(routes))


def _attachments(chains, xs, boxes, first: bool) -> list[float]:
    """Where each edge leaves its consumer's bottom (``first``) or enters its operand's top:
    spread along the side in the order of the neighbouring points, so parallel edges are
    apart."""
    by_node: dict[int, list[tuple[float, int]]] = {}
    for index, chain in enumerate(chains):
        node, neighbour = (chain[0], chain[1]) if first else (chain[-1], chain[-2])
        by_node.setdefault(node, []).append((xs[neighbour], index))
    slots = [0.0] * len(chains)
    for node, ends in by_node.items():
        ends.sort()
        box = boxes[node]
        inner = box.width * 0.8
        for position, (_, index) in enumerate(ends):
            slots[index] = box.x + box.width * 0.1 + inner * (position + 1) / (len(ends) + 1)
    return slots
