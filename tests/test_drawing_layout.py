"""The pure-Python layered layout: no box or label overlaps another, parallel edges apart."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scalarlang import Scalar
from scalarlang.pictures import graph_picture, pass_picture
from scalarlang.pictures.layout import EDGE_LINE_HEIGHT, label_size, layout


def _rectangles(picture, laid_out):
    boxes = [(box.x, box.y, box.x + box.width, box.y + box.height) for box in laid_out.boxes]
    labels = []
    for route in laid_out.routes:
        width, height = label_size(picture.edges[route.edge].lines)
        labels.append((route.label_x, route.label_y, route.label_x + width, route.label_y + height - 4.0))
    return boxes, labels


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _check(picture):
    laid_out = layout(picture)
    boxes, labels = _rectangles(picture, laid_out)
    every = boxes + labels
    for i, first in enumerate(every):
        for second in every[i + 1 :]:
            assert not _overlap(first, second), (first, second)
    for first in every:
        assert first[0] >= 0 and first[2] <= laid_out.width + 0.01
        assert first[1] >= 0 and first[3] <= laid_out.height + 0.01
    for route in laid_out.routes:
        edge = picture.edges[route.edge]
        child, parent = laid_out.boxes[edge.child], laid_out.boxes[edge.parent]
        (start_x, start_y), (end_x, end_y) = route.points[0], route.points[-1]
        assert start_y == child.y + child.height and child.x < start_x < child.x + child.width
        assert end_y == parent.y and parent.x < end_x < parent.x + parent.width
        # every point of a route lies between the two boxes, going down
        ys = [y for _, y in route.points]
        assert ys == sorted(ys)
    return laid_out


def test_seed_graph_parallel_edges_are_two_arrows_with_two_labels():
    x = Scalar.variable(2)
    square = x * x
    loss = square + square
    picture = graph_picture(loss)
    laid_out = _check(picture)
    first, second = laid_out.routes[0], laid_out.routes[1]  # square -> x, slots 0 and 1
    assert picture.edges[0].child == picture.edges[1].child == 1
    assert first.points[0] != second.points[0] and first.points[-1] != second.points[-1]
    # side by side, not on top of each other: the left label ends before the right one starts
    left, right = sorted([(first.label_x, 0), (second.label_x, 1)])
    assert left[0] + label_size(picture.edges[left[1]].lines)[0] < right[0]
    assert first.label_y == second.label_y
    # the output is on top, each operand below its consumer
    assert laid_out.boxes[2].y < laid_out.boxes[1].y < laid_out.boxes[0].y


@st.composite
def graphs(draw):
    nodes = [Scalar.variable(draw(st.floats(-2, 2))) for _ in range(draw(st.integers(1, 4)))]
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["add", "mul", "sub", "tanh", "const"]))
        a = draw(st.sampled_from(nodes))
        if kind == "tanh":
            nodes.append(a.tanh())
        elif kind == "const":
            nodes.append(a * Scalar.constant(0.5))
        else:
            nodes.append(getattr(a, kind)(draw(st.sampled_from(nodes))))
    return nodes[-1]


@given(graphs())
def test_no_box_or_label_overlaps_another(output):
    if output.tracks_gradient and output.parents:
        _check(graph_picture(output))
        backward_pass = output.reverse_pass()
        _check(pass_picture(backward_pass, "out", str))


def test_a_label_layer_is_as_tall_as_its_tallest_label():
    assert label_size(("a", "b", "c"))[1] == 3 * EDGE_LINE_HEIGHT + 4.0
