"""Pictures of graphs and passes: DOT, SVG with and without Graphviz, PNG, files, limits."""

from __future__ import annotations

import shutil
import types
import xml.etree.ElementTree as ET

import pytest

from shared import parse_dot
from scalarlang import Scalar
from scalarlang.pictures import (
    MAX_NODES,
    DrawingError,
    graph_picture,
    pass_picture,
    render,
    svg_text,
    to_dot,
    write_picture,
)
from scalarlang.pictures.files import GRAPHVIZ_NODE_LIMIT
from scalarlang.pictures.picture import operation_text

HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's dot is not installed")
SVG = "{http://www.w3.org/2000/svg}"


def seed_graph():
    x = Scalar.variable(2)
    square = x * x
    loss = square + square
    names = {id(x): "x", id(square): "square", id(loss): "loss"}
    return loss, (lambda node: names[id(node)])


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """A PATH on which there is no Graphviz."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("dot") is None


# ---- DOT, parsed back (shared.parse_dot) -----------------------------------------------------


def test_seed_graph_dot_has_three_nodes_and_four_separately_labelled_edges():
    loss, label = seed_graph()
    nodes, edges = parse_dot(to_dot(graph_picture(loss, label)))
    assert nodes == {
        "n0": ["x", "variable", "value 2", "grad 0"],
        "n1": ["square", "mul", "value 4", "grad 0"],
        "n2": ["loss", "add", "value 8", "grad 0"],
    }
    assert edges == [
        ("n1", "n0", ["slot 0", "d 2"]),
        ("n1", "n0", ["slot 1", "d 2"]),
        ("n2", "n1", ["slot 0", "d 1"]),
        ("n2", "n1", ["slot 1", "d 1"]),
    ]


def test_dot_is_deterministic_and_shows_stored_gradients():
    loss, label = seed_graph()
    first = to_dot(graph_picture(loss, label))
    loss.backward()
    after = to_dot(graph_picture(loss, label))
    assert first != after
    assert after == to_dot(graph_picture(loss, label))
    nodes, _ = parse_dot(after)
    assert nodes["n0"][-1] == "grad 8"


def test_pass_picture_numbers_edges_in_visiting_order_with_contributions():
    loss, label = seed_graph()
    backward_pass = loss.backward()
    names = [label(node) for node in backward_pass.topology]
    picture = pass_picture(backward_pass, "loss", names.__getitem__)
    assert picture.title == "backward from loss with seed 1"
    nodes, edges = parse_dot(to_dot(picture))
    assert nodes["n0"] == ["x", "variable", "value 2", "adjoint 8", "grad 8"]
    assert nodes["n1"][3:] == ["adjoint 2", "grad 2"]
    assert edges == [
        ("n2", "n1", ["#0 slot 0", "d 1", "+= 1"]),
        ("n2", "n1", ["#1 slot 1", "d 1", "+= 1"]),
        ("n1", "n0", ["#2 slot 0", "d 2", "+= 4"]),
        ("n1", "n0", ["#3 slot 1", "d 2", "+= 4"]),
    ]


def test_untracked_nodes_and_edges_say_so():
    x = Scalar.variable(3)
    out = x * 2
    picture = graph_picture(out)
    constant = picture.nodes[1]
    assert constant.lines == ("constant", "value 2", "untracked")
    assert [edge.tracked for edge in picture.edges] == [True, False]
    backward_pass = out.backward()
    edge_lines = [edge.lines for edge in pass_picture(backward_pass, "out", str).edges]
    assert edge_lines[1][-1] == "3 (untracked)"


def test_a_power_shows_its_exponent():
    assert operation_text(types.SimpleNamespace(operation="pow", exponent=2.0)) == "pow 2"
    assert operation_text(types.SimpleNamespace(operation="pow", exponent=0.5)) == "pow 0.5"
    assert operation_text(types.SimpleNamespace(operation="mul")) == "mul"


HOSTILE = 'a<b & "c" \\N \\n ]> \x00 é'


def test_labels_are_escaped_for_dot_and_xml():
    x = Scalar.variable(1)
    out = x + x
    picture = graph_picture(out, lambda node: HOSTILE)
    text = to_dot(picture)
    assert "a&lt;b &amp; &quot;c&quot; \\N \\n ]&gt; \ufffd é" in text
    nodes, _ = parse_dot(text)
    assert nodes["n0"][0] == 'a<b & "c" \\N \\n ]> \ufffd é'
    root = ET.fromstring(svg_text(picture, engine="python"))
    assert 'a<b & "c" \\N \\n ]> \ufffd é' in _texts(root)


@needs_dot
def test_hostile_labels_survive_graphviz():
    x = Scalar.variable(1)
    picture = graph_picture(x + x, lambda node: HOSTILE)
    root = ET.fromstring(svg_text(picture, engine="graphviz"))
    assert any("a<b & \"c\" \\N" in text for text in _texts(root))


# ---- SVG, with and without Graphviz --------------------------------------------------------


def _texts(root) -> list[str]:
    return ["".join(element.itertext()).strip() for element in root.iter(f"{SVG}text")]


def _check_seed_svg(svg: str) -> None:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = _texts(root)
    for expected in ("x", "square", "loss", "value 8", "value 4", "d 2"):
        assert expected in texts
    assert texts.count("slot 0") == 2 and texts.count("slot 1") == 2
    assert texts.count("d 2") == 2


def test_svg_without_graphviz_uses_the_python_layout(no_dot):
    loss, label = seed_graph()
    svg = svg_text(graph_picture(loss, label))
    assert "graphviz" not in svg.lower()
    _check_seed_svg(svg)
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}g[@class='node']")) == 3
    assert len(root.findall(f".//{SVG}g[@class='edge']")) == 4


@needs_dot
def test_svg_with_graphviz():
    loss, label = seed_graph()
    svg = svg_text(graph_picture(loss, label))
    assert "Generated by graphviz" in svg
    _check_seed_svg(svg)
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}g[@class='node']")) == 3
    assert len(root.findall(f".//{SVG}g[@class='edge']")) == 4


def test_python_svg_is_deterministic():
    loss, label = seed_graph()
    picture = graph_picture(loss, label)
    assert svg_text(picture, engine="python") == svg_text(picture, engine="python")


def test_seed_svg_is_the_same_with_graphviz_missing(no_dot):
    loss, label = seed_graph()
    picture = graph_picture(loss, label)
    assert svg_text(picture) == svg_text(picture, engine="python")


# ---- PNG and files -------------------------------------------------------------------------


def test_png_without_graphviz_is_missing_graphviz_with_the_install_hint(no_dot, tmp_path):
    loss, label = seed_graph()
    target = tmp_path / "loss.png"
    with pytest.raises(DrawingError) as caught:
        write_picture(graph_picture(loss, label), target)
    assert caught.value.kind == "missing-graphviz"
    for hint in ("apt-get install graphviz", "brew install graphviz", "graphviz.org"):
        assert hint in caught.value.message
    assert not target.exists()


def test_explicit_graphviz_engine_without_it_is_missing_graphviz(no_dot):
    loss, label = seed_graph()
    with pytest.raises(DrawingError) as caught:
        render(graph_picture(loss, label), "svg", engine="graphviz")
    assert caught.value.kind == "missing-graphviz"


@needs_dot
def test_png_with_graphviz(tmp_path):
    loss, label = seed_graph()
    target = write_picture(graph_picture(loss, label), tmp_path / "loss.png")
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_each_extension_writes_its_format(tmp_path, no_dot):
    loss, label = seed_graph()
    picture = graph_picture(loss, label)
    assert (write_picture(picture, tmp_path / "a.dot")).read_text() == to_dot(picture)
    assert (write_picture(picture, tmp_path / "a.SVG")).read_text().startswith("<?xml")


def test_unwritable_path_is_io_error(tmp_path):
    loss, label = seed_graph()
    picture = graph_picture(loss, label)
    for path in (tmp_path / "missing" / "loss.svg", tmp_path):
        target = path if path.suffix else tmp_path / "dir.svg"
        if path == tmp_path:
            target.mkdir()
        with pytest.raises(DrawingError) as caught:
            write_picture(picture, target)
        assert caught.value.kind == "io-error"
        assert str(target) in caught.value.message
        assert caught.value.fields["path"] == str(target)


@pytest.mark.parametrize("name", ["loss.pdf", "loss", "loss.svg.txt"])
def test_unknown_extension_is_a_clear_error(tmp_path, name):
    loss, label = seed_graph()
    with pytest.raises(DrawingError) as caught:
        write_picture(graph_picture(loss, label), tmp_path / name)
    assert caught.value.kind == "unknown-picture-format"
    assert ".svg, .png or .dot" in caught.value.message
    assert not (tmp_path / name).exists()


# ---- size limits ---------------------------------------------------------------------------


def chain(count: int) -> Scalar:
    node = Scalar.variable(0.5)
    while len(node.topology()) < count:
        node = node.tanh()
    return node


def test_a_600_node_graph_is_refused_at_once_with_a_clear_message():
    big = chain(600)
    with pytest.raises(DrawingError) as caught:
        graph_picture(big)
    assert caught.value.kind == "graph-too-large"
    assert caught.value.fields == {"nodes": 600, "limit": MAX_NODES}
    assert "600 nodes" in caught.value.message and str(MAX_NODES) in caught.value.message
    backward_pass = big.backward()
    with pytest.raises(DrawingError):
        pass_picture(backward_pass, "big", str)
    assert big._repr_svg_() is None  # Jupyter falls back to the text repr


def test_a_large_graph_is_laid_out_by_python_even_with_graphviz(tmp_path):
    picture = graph_picture(chain(GRAPHVIZ_NODE_LIMIT + 20))
    svg = svg_text(picture)
    assert "graphviz" not in svg.lower()
    assert len(ET.fromstring(svg).findall(f".//{SVG}g[@class='node']")) == GRAPHVIZ_NODE_LIMIT + 20
    if HAVE_DOT:
        with pytest.raises(DrawingError) as caught:
            write_picture(picture, tmp_path / "big.png")
        assert caught.value.kind == "graph-too-large"


def test_scalar_repr_svg_draws_its_graph():
    loss, _ = seed_graph()
    root = ET.fromstring(loss._repr_svg_())
    texts = _texts(root)
    # Python-made nodes without labels are shown by their operation, never by a bare index.
    assert {"variable", "mul", "add"} <= set(texts) and "value 8" in texts
    assert not any(text.startswith("#") for text in texts)


def test_pass_file_names_are_numbered_and_safe():
    from scalarlang.pictures import pass_file_name

    assert pass_file_name(1, "loss") == "pass-001-loss.svg"
    assert pass_file_name(12, "x*x + 1") == "pass-012-x_x_1.svg"
    assert pass_file_name(1000, "../../etc") == "pass-1000-etc.svg"
    assert pass_file_name(2, "Ω") == "pass-002-output.svg"
    assert len(pass_file_name(3, "a" * 100)) == len("pass-003-.svg") + 40
