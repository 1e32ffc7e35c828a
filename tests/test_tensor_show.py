"""Showing tensors (issue 42, item 5): a tensor's text (its shape, then a grid of its values,
elided past 6 a side, in the session's number style, fitting the width) in a value line,
`print`, a `{T}` hole, `:vars`, a `let`'s echo, the notebook and the playground; its JSON
event. Tensors are made by the engine and bound into a session (`sessions.with_values`) until
the language has the forms that make them."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import pytest

import scalarlang
from scalarlang.engine.numbers import digits
from scalarlang.engine.tensor import Tensor
from scalarlang.front.api import render_outcomes
from scalarlang.front.repl_core import ReplCore
from scalarlang.interpreter.tensor_outcomes import TensorShown
from scalarlang.engine.tensor_text import tensor_summary, tensor_text
from scalarlang.render.events import events_of
from scalarlang.render.text import Renderer, make_console
from sessions import only, printed, run_ok, with_values


def grid(rows: int, columns: int) -> Tensor:
    return Tensor.constant([[float(10 * row + column) for column in range(columns)] for row in range(rows)])


def rendered(outcomes: list, width: int = 100) -> str:
    stream = io.StringIO()
    renderer = Renderer(make_console(stream, width=width, color="never"), echo_bindings=True)
    for outcome in outcomes:
        renderer.outcome(outcome)
    return stream.getvalue()


# ---- the text -------------------------------------------------------------------------------


def test_a_rank_1_tensor_is_one_row():
    assert tensor_text(Tensor.constant([1, 2.5, -3])) == "tensor [3]\n  1  2.5  -3"


def test_a_rank_2_tensor_is_a_grid_of_right_aligned_columns():
    assert tensor_text(Tensor.constant([[1, 2.5, -3], [10, 20, 30.125]])).splitlines() == [
        "tensor [2, 3]",
        "   1  2.5      -3",
        "  10   20  30.125",
    ]


def test_rows_and_columns_past_6_show_the_first_3_and_the_last_3():
    assert tensor_text(grid(9, 10)).splitlines() == [
        "tensor [9, 10]",
        "   0   1   2  …   7   8   9",
        "  10  11  12  …  17  18  19",
        "  20  21  22  …  27  28  29",
        "   …",
        "  60  61  62  …  67  68  69",
        "  70  71  72  …  77  78  79",
        "  80  81  82  …  87  88  89",
    ]
    six = tensor_text(grid(6, 6)).splitlines()  # 6 a side is shown whole
    assert len(six) == 7 and "…" not in "".join(six)
    assert tensor_text(Tensor.constant([float(i) for i in range(7)])) == "tensor [7]\n  0  1  2  …  4  5  6"


def test_a_rank_3_tensor_is_its_matrices_each_under_its_index_aligned_alike():
    tensor = Tensor.constant([[[100.0 * i + 10 * j + k for k in range(2)] for j in range(2)] for i in range(8)])
    lines = tensor_text(tensor).splitlines()
    assert lines[:7] == ["tensor [8, 2, 2]", "[0]", "    0    1", "   10   11", "[1]", "  100  101", "  110  111"]
    assert lines[9:12] == ["  210  211", "…", "[5]"]
    assert lines[-3:] == ["[7]", "  700  701", "  710  711"]
    assert len(lines) == 1 + 6 * 3 + 1


def test_a_rank_4_tensor_names_its_matrices_by_two_indices():
    tensor = Tensor.constant([[[[1.0, 2.0]]], [[[3.0, 4.0]]]])
    assert tensor_text(tensor).splitlines() == ["tensor [2, 1, 1, 2]", "[0, 0]", "  1  2", "[1, 0]", "  3  4"]


def test_a_grid_wider_than_the_width_shows_fewer_columns_until_it_fits():
    tensor = Tensor.constant([[1 / 3 + column for column in range(8)]])
    wide = tensor_text(tensor, width=200).splitlines()[1]
    assert wide == "  0.333333333333  1.33333333333  2.33333333333  …  5.33333333333  6.33333333333  7.33333333333"
    for width in (80, 60, 40):
        line = tensor_text(tensor, width=width).splitlines()[1]
        assert len(line) <= width
    assert tensor_text(tensor, width=40).splitlines()[1] == "  0.333333333333  …  7.33333333333"
    assert tensor_text(tensor, width=70).splitlines()[1] == (
        "  0.333333333333  1.33333333333  …  6.33333333333  7.33333333333"
    )


def test_numbers_follow_the_session_style():
    tensor = Tensor.constant([[1 / 3, 2.0], [1e-9, -0.5]])
    assert tensor_text(tensor).splitlines()[1:] == ["  0.333333333333     2", "           1e-09  -0.5"]
    with digits(3):
        lines = tensor_text(tensor).splitlines()[1:]
    assert lines == ["     0.333   2.000", "  1.000e-9  -0.500"]


def test_the_text_is_deterministic():
    tensor = Tensor.randn((12, 9), random.Random(4))
    assert tensor_text(tensor) == tensor_text(Tensor.constant(tensor.tolist()))


def test_summaries_say_shape_and_kind():
    assert tensor_summary(Tensor.zeros((30, 200), variable=True)) == "30 × 200 tensor variable"
    assert tensor_summary(Tensor.constant([1, 2, 3])) == "3 tensor constant"
    product = Tensor.zeros((32, 30)) @ Tensor.zeros((30, 200), variable=True)
    assert tensor_summary(product) == "32 × 200 tensor (matmul)"


# ---- in a session ---------------------------------------------------------------------------


def test_a_value_line_shows_the_shape_and_the_grid_at_the_console_width():
    session = with_values(W=Tensor.variable([[1, 2.5, -3], [10, 20, 30.125]]))
    _, outcomes = run_ok("W", session)
    shown = only(outcomes, TensorShown)
    assert (shown.tensor.label, shown.tensor.shape, shown.tensor.tracked) == ("W", (2, 3), True)
    assert rendered(outcomes).splitlines() == [
        "W = tensor [2, 3] (variable, tracked)",
        "   1  2.5      -3",
        "  10   20  30.125",
    ]
    wide = with_values(T=Tensor.constant([[1 / 3 + column for column in range(8)]]))
    _, outcomes = run_ok("T", wide)
    assert rendered(outcomes, width=40).splitlines() == [
        "T = tensor [1, 8] (constant, untracked)",
        "  0.333333333333  …  7.33333333333",
    ]


def test_print_and_holes_write_the_tensor_text():
    session = with_values(W=Tensor.constant([[1, 2], [3, 4.5]]))
    _, outcomes = run_ok('print W\nprint "W is {W}"\nprint "{W:.2f}"', session)
    assert printed(outcomes) == [
        "tensor [2, 2]\n  1    2\n  3  4.5",
        "W is tensor [2, 2]\n  1    2\n  3  4.5",
        "tensor [2, 2]\n  1.00  2.00\n  3.00  4.50",
    ]


def test_print_follows_digits():
    session = with_values(W=Tensor.constant([0.5, 2]))
    with digits(2):
        _, outcomes = run_ok("print W", session)
    assert printed(outcomes) == ["tensor [2]\n  0.50  2.00"]


def test_vars_and_the_echo_of_let_say_the_shape():
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    with_values(core.session, W=Tensor.zeros((30, 200), variable=True), b=Tensor.constant([1, 2, 3]))
    assert core.handle("let V = W") is True
    assert core.handle(":vars") is True
    assert stream.getvalue().splitlines() == [
        "V = 30 × 200 tensor variable",
        "W: 30 × 200 tensor variable",
        "b: 3 tensor constant",
        "V: 30 × 200 tensor variable",
    ]


def test_the_json_event_holds_every_value_exactly():
    values = [[1 / 3, -2.5, 7.0, 0.1, 1e-300, 3, 4, 5], [8, 9, 10, 11, 12, 13, 14, 15.25]]
    session = with_values(T=Tensor.variable(values))
    _, outcomes = run_ok("T", session)
    (event,) = [json.loads(json.dumps(event)) for outcome in outcomes for event in events_of(outcome, "t.sad")]
    assert event == {
        "event": "tensor", "file": "t.sad", "line": 1, "column": 1, "label": "T", "operation": "variable",
        "tracked": True, "shape": [2, 8], "values": [[float(v) for v in row] for row in values],
    }
    rank_3 = with_values(C=Tensor.constant([[[1.5], [2]], [[3], [4]]]))
    _, outcomes = run_ok("C", rank_3)
    (event,) = events_of(outcomes[-1])
    assert (event["shape"], event["values"]) == ([2, 2, 1], [[[1.5], [2.0]], [[3.0], [4.0]]])


def test_the_command_writes_tensor_events_as_json_lines():
    from scalarlang.render.events import dumps

    session = with_values(T=Tensor.constant([0.1, 0.2]))
    _, outcomes = run_ok("T", session)
    (event,) = events_of(outcomes[-1])
    line = dumps(event)
    assert json.loads(line)["values"] == [0.1, 0.2]


def test_the_notebook_and_the_playground_show_the_grid():
    api_session = scalarlang.Session(width=60)
    with_values(api_session.interpreter, W=Tensor.constant([[1, 2], [3, 4]]))
    result = api_session.run("W")
    assert result.text.splitlines() == ["W = tensor [2, 2] (constant, untracked)", "  1  2", "  3  4"]
    html = result._repr_html_()
    assert "tensor [2, 2]" in html and "  3  4" in html
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "playground"))
    import sad_playground

    parts = sad_playground.parts_json(render_outcomes(result.outcomes, 60))
    assert parts[0]["kind"] == "text" and parts[0]["text"] == result.text


# ---- pictures -------------------------------------------------------------------------------


def layer_loss():
    A = Tensor.variable([[1.0, 2.0], [3.0, 4.0]])
    B = Tensor.constant([[0.5, 1.0], [2.0, 3.0]])
    C = A @ B
    return A, B, C, C.sum()


def test_a_picture_draws_a_tensor_node_as_one_box_and_labels_edges_with_their_vjps():
    from scalarlang.interpreter.outcomes import Drawn
    from scalarlang.pictures.svg import to_svg

    A, B, C, loss = layer_loss()
    session = with_values(A=A, B=B, C=C, loss=loss)
    _, outcomes = run_ok("draw(loss)", session)
    drawn = only(outcomes, Drawn)
    boxes = {node.label: node.lines for node in drawn.picture.nodes}
    assert boxes["C"] == ("matmul [2, 2]", "4.5, 7, 9.5, …", "tracked")
    assert boxes["A"] == ("variable [2, 2]", "1, 2, 3, …", "tracked")
    assert boxes["loss"] == ("sum", "value 36", "grad 0")
    edges = [edge.lines for edge in drawn.picture.edges]
    assert edges == [("slot 0", "dA = dC @ Bᵀ"), ("slot 1", "dB = Aᵀ @ dC"), ("slot 0", "dA = dC, repeated over every element")]
    assert "dA = dC @ Bᵀ" in drawn.dot and "matmul [2, 2]" in drawn.dot
    svg = to_svg(drawn.picture)
    assert "dB = Aᵀ @ dC" in svg and "4.5, 7, 9.5, …" in svg


def test_broadcast_and_scalar_operands_say_their_contribution_is_summed():
    from scalarlang.engine.scalar import Scalar
    from scalarlang.pictures.picture import graph_picture

    T = Tensor.variable([[1.0, 2.0], [3.0, 4.0]])
    b = Tensor.variable([1.0, 2.0])
    s = Scalar.variable(2.0)
    picture = graph_picture(((T + b) * s).sum())
    formulas = [edge.lines[1] for edge in picture.edges]
    assert "dB = dC, summed to B's shape [2]" in formulas
    assert "dB = dC * A, summed over C (B a scalar)" in formulas
    one_sided = graph_picture((2 * T).sum())
    assert [edge.lines[1] for edge in one_sided.edges][0] == "dB = dC * A"  # 2 is A, a number: no edge


def test_every_tensor_operation_has_a_vjp_formula_and_a_count_of_scalar_edges():
    from scalarlang.engine.tensor_formulas import EVERY_FORMULA, scalar_edges, vjp_formula
    from scalarlang.engine.tensor_operations import TensorOperation

    assert EVERY_FORMULA == frozenset(TensorOperation)
    layer = Tensor.zeros((32, 30)) @ Tensor.zeros((30, 200), variable=True)
    assert [vjp_formula(layer, slot) for slot in (0, 1)] == ["dA = dC @ Bᵀ", "dB = Aᵀ @ dC"]
    assert scalar_edges(layer, 1) == (192_000, "multiply")
    assert scalar_edges(Tensor.zeros((3, 4), variable=True).exp(), 0) == (12, "scalar")
    # as the language's softmax of a list: each element into its fiber's max and into x - max
    assert scalar_edges(Tensor.zeros((3, 4), variable=True).softmax(), 0) == (24, "scalar")
    assert scalar_edges(Tensor.zeros((3, 4), variable=True).sum(), 0) == (12, "scalar")
    assert scalar_edges(Tensor.zeros((3, 4), variable=True).cross_entropy([0, 1, 2]), 0) == (15, "scalar")


# ---- explain and paths ----------------------------------------------------------------------


def explained_session():
    A = Tensor.variable([[1.0, 2.0], [3.0, 4.0]])
    B = Tensor.constant([[0.5, 1.0], [2.0, 3.0]])
    C = A @ B
    D = C * C
    loss = D.sum()
    session = with_values(A=A, B=B, C=C, D=D, loss=loss)
    session.keep_history()
    run_ok("backward(loss)", session)
    return session, A, C


def test_explain_of_a_tensor_node_names_each_vjp_its_shapes_and_scalar_edges():
    from scalarlang.interpreter.tensor_outcomes import TensorExplained

    session, A, C = explained_session()
    _, outcomes = run_ok("explain(C)", session)
    shown = only(outcomes, TensorExplained)
    assert [(edge.operand, edge.formula, edge.shapes, edge.scalar_edges, edge.edge_kind) for edge in shown.operands] == [
        ("A", "dA = dC @ Bᵀ", "[2, 2] @ [2, 2] → [2, 2]", 8, "multiply"),
        ("B", "dB = Aᵀ @ dC", "[2, 2] @ [2, 2] → [2, 2]", 8, "multiply"),
    ]
    assert shown.adds_up and shown.pass_number == 1 and shown.pass_output == "loss"
    gradient = [2 * value for value in C.values]  # d sum(C²) / dC = 2C
    assert shown.adjoint.first == tuple(gradient[:3]) and shown.adjoint.largest == 30.0 and shown.adjoint.at == (1, 1)
    assert rendered(outcomes, 100).splitlines() == [
        "C: matmul [2, 2], tracked",
        "  its operand edges ([2, 2] @ [2, 2] → [2, 2]), each one VJP for many scalar edges:",
        "    slot 0 to A: dA = dC @ Bᵀ (8 multiply edges)",
        "    slot 1 to B: dB = Aᵀ @ dC (8 multiply edges; untracked: the pass computes nothing for it)",
        "C: pass adjoint in pass 1 (backward from loss)",
        "  [2, 2] 9, 14, 19, … (largest 30 at [1, 1])",
        "  = the sum of the contributions of the edges into it:",
        "    from D, slot 0 ([2, 2] * [2, 2] → [2, 2]): dA = dC * B (4 scalar edges)",
        "      [2, 2] 4.5, 7, 9.5, … (largest 15 at [1, 1])",
        "    from D, slot 1 ([2, 2] * [2, 2] → [2, 2]): dB = dC * A (4 scalar edges)",
        "      [2, 2] 4.5, 7, 9.5, … (largest 15 at [1, 1])",
        "C: stored gradient since its last zero_grad (pass 1)",
        "  [2, 2] 9, 14, 19, … (largest 30 at [1, 1])",
    ]


def test_explain_of_a_tensor_variable_shows_the_edge_into_it_and_its_gradient():
    from scalarlang.interpreter.tensor_outcomes import TensorExplained

    session, A, _ = explained_session()
    _, outcomes = run_ok("explain(A)", session)
    shown = only(outcomes, TensorExplained)
    assert shown.operands == ()
    (edge,) = shown.consumers
    assert (edge.node, edge.formula, edge.scalar_edges) == ("C", "dA = dC @ Bᵀ", 8)
    assert edge.contribution == shown.adjoint == shown.gradient
    assert shown.gradient.first == A.gradient[:3]
    assert "from C, slot 0 ([2, 2] @ [2, 2] → [2, 2]): dA = dC @ Bᵀ (8 multiply edges)" in rendered(outcomes)


def test_explain_counts_the_scalar_edges_of_a_real_layer():
    from scalarlang.interpreter.tensor_outcomes import TensorExplained

    X = Tensor.randn((32, 30), random.Random(1))
    W = Tensor.randn((30, 200), random.Random(2), variable=True)
    session = with_values(X=X, W=W, H=X @ W)
    _, outcomes = run_ok("explain(H)", session)
    shown = only(outcomes, TensorExplained)
    assert [edge.scalar_edges for edge in shown.operands] == [192_000, 192_000]
    assert "slot 1 to W: dB = Aᵀ @ dC (192,000 multiply edges)" in rendered(outcomes)
    assert shown.note == "`H` was in no backward pass the session keeps"


def test_explain_of_a_scalar_node_fed_to_a_tensor_operation_names_the_vjp():
    from scalarlang.engine.scalar import Scalar
    from scalarlang.interpreter.outcomes import Explained

    s = Scalar.variable(3.0)
    T = Tensor.constant([1.0, 2.0])
    session = with_values(s=s, T=T, loss=(T * s).sum())
    session.keep_history()
    _, outcomes = run_ok("backward(loss)\nexplain(s)", session)
    shown = only(outcomes, Explained)
    (edge,) = shown.edges
    assert (edge.formula, edge.contribution, edge.upstream) == ("dB = dC * A, summed over C (B a scalar)", 3.0, None)
    assert shown.pass_adjoint == 3.0 and shown.gradient == 3.0


def test_paths_is_for_scalar_graphs_and_says_so():
    from sessions import failure

    session, _, _ = explained_session()
    diagnostic = failure("paths(loss, A)", session)
    assert diagnostic.kind == "tensor-graph"
    assert diagnostic.message == (
        "`paths` shows graphs of scalar nodes; `loss`'s graph holds 4 tensor nodes, "
        "whose edges each stand for many scalar edges"
    )
    assert "`vjp_check(loss)`" in diagnostic.notes[0] and "`explain(T)`" in diagnostic.notes[0]
    assert failure("paths(C, A)", session).kind == "tensor-graph"


# ---- tables of passes and graphs ------------------------------------------------------------


def test_the_tables_of_a_pass_and_a_graph_show_a_tensor_node_by_its_shape_and_first_values():
    A, B, C, loss = layer_loss()
    session = with_values(A=A, B=B, C=C, loss=loss)
    _, outcomes = run_ok("backward(loss)\ngraph(loss)", session)
    lines = rendered(outcomes).splitlines()
    assert lines[:8] == [
        "backward from loss with seed 1",
        "nodes",
        "#  node  operation             value      pass adjoint          gradient",
        "─" * 72,
        "0  A     variable     [2, 2] 1, 2, …  [2, 2] 1.5, 5, …  [2, 2] 1.5, 5, …",
        "1  B     constant   [2, 2] 0.5, 1, …         untracked         untracked",
        "2  C     matmul     [2, 2] 4.5, 7, …    [2, 2] 1, 1, …    [2, 2] 1, 1, …",
        "3  loss  sum                      36                 1                 1",
    ]
    assert lines[8].startswith("edges: a tensor operation's edge is one VJP standing for many scalar edges")
    assert "4 unique nodes, 3 operand edges" in lines
    assert "2  C     matmul     [2, 2] 4.5, 7, …  0, 1        [2, 2] 1, 1, …" in lines


def test_json_of_a_pass_and_a_graph_nests_a_tensor_node_values():
    A, B, C, loss = layer_loss()
    session = with_values(A=A, B=B, C=C, loss=loss)
    _, outcomes = run_ok("backward(loss)\ngraph(loss)", session)
    backward, graph = (event for outcome in outcomes for event in events_of(outcome))
    assert backward["nodes"][0]["value"] == [[1.0, 2.0], [3.0, 4.0]]
    assert backward["nodes"][0]["pass_adjoint"] == [[1.5, 5.0], [1.5, 5.0]]  # dC @ Bᵀ, dC all ones
    assert graph["nodes"][2]["value"] == C.tolist() and graph["nodes"][2]["operands"] == [0, 1]
    assert graph["nodes"][3]["value"] == 36.0 and graph["edge_count"] == 3


def test_a_pass_picture_over_tensors_shows_adjoints_and_vjp_edges():
    from scalarlang.front.api import backward_pass_html
    from scalarlang.pictures import pass_picture

    A, B, C, loss = layer_loss()
    backward_pass = loss.backward()
    picture = pass_picture(backward_pass, "loss", lambda index: f"#{index}")
    assert picture.nodes[0].lines == ("variable [2, 2]", "1, 2, 3, …", "adjoint 1.5, 5, 1.5, …", "grad 1.5, 5, 1.5, …")
    assert [edge.lines[1] for edge in picture.edges] == [
        "dA = dC @ Bᵀ", "dB = Aᵀ @ dC", "dA = dC, repeated over every element",
    ]
    html = backward_pass_html(backward_pass)  # the notebook's picture of a pass
    assert "[2, 2] 1.5, 5, …" in html and "dA = dC @ Bᵀ" in html


def test_the_api_draws_the_graph_of_a_tensor():
    api_session = scalarlang.Session()
    A, B, C, loss = layer_loss()
    with_values(api_session.interpreter, A=A, B=B, C=C)
    picture = api_session.picture("C")
    assert [node.label for node in picture.nodes] == ["A", "B", "C"]
    assert picture.nodes[-1].lines[0] == "matmul [2, 2]"


def test_a_list_holding_tensors_shows_each_on_one_line():
    session = with_values(W=Tensor.constant([[1.0, 2.0], [3.0, 4.0]]), v=Tensor.constant([float(i) for i in range(9)]))
    _, outcomes = run_ok("[W, 1]\nprint [v]\nlet L = [W, W]", session, echo=True)
    assert rendered(outcomes).splitlines() == [
        "[tensor([[1, 2], [3, 4]]), 1]",
        "[tensor([0, 1, 2, …, 6, 7, 8])]",
        "L = 2 tensors",
    ]
    (event,) = events_of(outcomes[0])
    assert event["values"] == [{"shape": [2, 2], "values": [[1.0, 2.0], [3.0, 4.0]]}, 1.0]


def test_messages_name_a_tensor_by_its_shape():
    from scalarlang.interpreter.values import describe

    assert describe(Tensor.zeros((30, 200))) == "a tensor [30, 200]"


def test_print_fits_the_session_text_width():
    wide = Tensor.constant([[1 / 3 + column for column in range(8)]])
    session = with_values(T=wide)
    session.text_width = 40
    _, outcomes = run_ok('print T\nprint "{T}"', session)
    assert printed(outcomes) == ["tensor [1, 8]\n  0.333333333333  …  7.33333333333"] * 2
    api_session = scalarlang.Session(width=70)
    with_values(api_session.interpreter, T=wide)
    assert api_session.run("print T").text.splitlines()[1] == "  0.333333333333  1.33333333333  …  6.33333333333  7.33333333333"


def test_the_repl_graph_and_draw_commands_take_a_tensor_name():
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    A, B, C, _ = layer_loss()
    with_values(core.session, A=A, B=B, C=C)
    assert core.handle(":graph C") is True
    lines = stream.getvalue().splitlines()
    assert lines[0] == "graph of C" and lines[-1] == "3 unique nodes, 2 operand edges"
    assert any(line.startswith("2  C") and "[2, 2] 4.5, 7, …" in line for line in lines)
    stream.truncate(0)
    stream.seek(0)
    assert core.handle(":draw C") is True
    assert "dA = dC @ Bᵀ" in stream.getvalue()


def test_graph_and_draw_take_a_tensor():
    from scalarlang.interpreter.outcomes import Drawn, GraphShown

    A, B, C, _ = layer_loss()
    session = with_values(A=A, B=B, C=C)
    _, outcomes = run_ok("graph(C)\ndraw(C)", session)
    assert [node.label for node in only(outcomes, GraphShown).nodes] == ["A", "B", "C"]
    assert only(outcomes, Drawn).picture.title == "graph of C"


def test_a_hole_too_long_for_a_text_is_refused_before_it_is_written():
    from sessions import failure

    session = with_values(T=Tensor.zeros((9, 9)))
    diagnostic = failure('print "{T:.500000f}"', session)  # 36 numbers shown, each at least 500,000 characters
    assert diagnostic.kind == "too-long"
    assert diagnostic.message == "this text would be at least 18,000,000 characters; the most is 10,000,000"
    _, outcomes = run_ok('print "{T:.2f}"', session)
    assert printed(outcomes)[0].splitlines()[1] == "  0.00  0.00  0.00  …  0.00  0.00  0.00"


def test_draw_as_text_shows_tensor_boxes_and_vjp_edges():
    A, B, C, loss = layer_loss()
    session = with_values(A=A, B=B, C=C, loss=loss)
    _, outcomes = run_ok("draw(loss)", session)
    assert rendered(outcomes).splitlines()[:5] == [
        "graph of loss",
        "loss  sum · value 36 · grad 0",
        "└─ slot 0, dA = dC, repeated over every element: C  matmul [2, 2] · 4.5, 7, 9.5, … · tracked",
        "   ├─ slot 0, dA = dC @ Bᵀ: A  variable [2, 2] · 1, 2, 3, … · tracked",
        "   └─ slot 1, dB = Aᵀ @ dC: B  constant [2, 2] · 0.5, 1, 2, … · untracked",
    ]


def test_walk_of_a_tensor_graph_goes_node_by_node_and_commits_as_backward():
    # Issue 43, item 2 (it was the error `tensor-graph`): tests/test_tensor_walk.py has the rest.
    A, B, C, loss = layer_loss()
    session = with_values(A=A, B=B, C=C, loss=loss)
    _, outcomes = run_ok("walk(loss)", session)
    text = rendered(outcomes)
    assert "node 2 of 2: C: matmul [2, 2] ([2, 2] @ [2, 2] → [2, 2])" in text
    assert "  slot 0 to A: dA = dC @ Bᵀ (8 multiply edges)\n    adds [2, 2] 1.5, 5, 1.5, … (largest 5 at [0, 1])" in text
    assert A.gradient == (1.5, 5.0, 1.5, 5.0)  # committed, as backward commits it


def test_the_forward_table_of_a_graph_holding_tensors_shows_shapes_and_operands():
    from scalarlang.render.tables import forward_tables
    from scalarlang.interpreter.outcomes import BackwardShown
    from scalarlang.language.source import Span

    A, B, C, loss = layer_loss()
    backward_pass = loss.reverse_pass()
    shown = BackwardShown(Span(0, 1, 1, 1, 1, 2), "loss", backward_pass, ("A", "B", "C", "loss"),
                          ("variable", "constant", "matmul", "sum"))
    lines = [line.plain for part in forward_tables(shown, 100, 200) for line in part]
    assert "2  C     matmul     [2, 2] 4.5, 7, …  0, 1" in lines and lines[-1] == "4 unique nodes, 3 operand edges"
