"""Nodes made in Python carry their own labels into reprs and pictures (issue 26, 4): `label=`
on the leaves, the `label` property, and an unlabelled node shown by its operation (never a
bare topology index like `#0`)."""

from __future__ import annotations

import pytest

from scalarlang import Scalar
from scalarlang.pictures import graph_picture, svg_text


def test_leaves_take_a_label_and_keep_it():
    w = Scalar.variable(0.5, label="w")
    b = Scalar.constant(1, label="b")
    assert (w.label, b.label) == ("w", "b")
    assert repr(w) == "Scalar(value=0.5, operation=variable, gradient=0.0, label='w')"
    assert (w * b).label is None and repr(w * b) == "Scalar(value=0.5, operation=mul, gradient=0.0)"
    with pytest.raises(TypeError):
        Scalar.variable(1, label=3)  # type: ignore[arg-type]


def test_a_picture_of_python_made_nodes_names_them_by_label_or_operation():
    x = Scalar.variable(2, label="x")
    y = Scalar.constant(3)
    out = x * y + y ** 2
    labels = [node.label for node in graph_picture(out).nodes]
    assert labels == ["x", "constant", "mul", "pow 2", "add"]
    svg = svg_text(graph_picture(out))
    assert ">x<" in svg and "#0" not in svg


def test_jupyter_s_picture_of_a_node_uses_its_label():
    loss = Scalar.variable(3, label="w") * 2
    svg = loss._repr_svg_()
    assert svg is not None and ">w<" in svg and "#0" not in svg
