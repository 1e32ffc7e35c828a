"""The public Python API (`scalarlang.run`, `scalarlang.Session`), Jupyter reprs, the IPython
magics in-process, and `examples/notebook.ipynb` executed in a real kernel."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kernels import notebook_client
from shared import SEED_PROGRAM
import scalarlang
from scalarlang import Scalar

ROOT = Path(__file__).resolve().parent.parent
SEED_CELL = "%%sad\n" + SEED_PROGRAM


# ---- the Python API ------------------------------------------------------------------------


def test_import_stays_cheap():
    code = "import sys, scalarlang; print(sorted(m for m in ('rich', 'lark', 'IPython', 'scalarlang.front.api') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_export_loads_without_ipython():
    code = (
        "import sys; sys.modules['IPython'] = None\n"  # as if the notebook extra were not installed
        "import scalarlang\n"
        "assert all(getattr(scalarlang, name) is not None for name in scalarlang.__all__)\n"
        "print(scalarlang.run('print 1').text, end='')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "1\n"


def test_lazy_exports():
    from scalarlang.front import api
    from scalarlang.front import notebook

    assert scalarlang.Session is api.Session and scalarlang.run is api.run
    assert scalarlang.load_ipython_extension is notebook.load_ipython_extension
    with pytest.raises(AttributeError):
        scalarlang.no_such_thing  # noqa: B018


def test_run_returns_outcomes_text_and_html():
    result = scalarlang.run(SEED_PROGRAM + "print \"loss = {loss}\"\nbackward(loss)\n")
    assert result.ok and result.error is None
    assert result.text.startswith("loss = 8\nbackward from loss with seed 1\n")
    assert "3 unique nodes, 4 operand edges" in result.text
    html = result._repr_html_()
    assert html.startswith('<div class="scalarlang-result"><pre')
    assert "color:" in html and "backward from" in html
    assert str(result) == result.text


def test_an_error_is_a_result_with_the_rust_style_diagnostic():
    result = scalarlang.run(SEED_PROGRAM + "backward(loss, inf)\n", name="<cell>")
    assert not result.ok and result.error.kind == "non-finite-seed"
    assert result.text.splitlines()[:2] == ["error[non-finite-seed]: backward seed inf must be finite", " --> <cell>:4:16"]
    assert "Traceback" not in result.text
    assert "error[non-finite-seed]" in result._repr_html_()
    assert "error[non-finite-seed]" in repr(result)


def test_a_session_keeps_names_between_runs():
    session = scalarlang.Session()
    assert session.run(SEED_PROGRAM).text == ""  # a script's `let` prints nothing
    assert session.run("backward(loss)").ok
    assert "loss" in session and "nope" not in session
    assert session["x"].gradient == 8.0
    assert list(session.names) == ["x", "square", "loss"]
    with pytest.raises(KeyError):
        session["nope"]
    session.reset()
    assert session.names == {}
    assert session.run("x").error.kind == "undefined-name"


def test_session_draw_inline_and_to_a_file(tmp_path):
    session = scalarlang.Session()
    session.run(SEED_PROGRAM)
    drawn = session.draw("loss")
    texts = ["".join(t.itertext()) for t in ET.fromstring(drawn._repr_svg_()).iter("{http://www.w3.org/2000/svg}text")]
    assert "square" in texts and "loss" in texts
    assert repr(drawn).startswith("digraph scalarlang {")
    path = session.draw("loss", str(tmp_path / "loss.dot"))
    assert path.read_text().count(" -> ") == 4


def test_backward_pass_html_has_the_tables_and_the_picture():
    x = Scalar.variable(2)
    square = x * x
    loss = square + square
    html = loss.backward()._repr_html_()
    assert "backward from #2 with seed 1" in html
    assert "edges, in reverse order" in html
    assert "<svg" in html and "<?xml" not in html
    assert "adjoint 8" in html


def _fresh_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout


def test_engine_reprs_are_registered_by_the_package_in_a_fresh_process():
    code = (
        "import scalarlang\n"
        "x = scalarlang.Scalar.variable(2)\n"
        "print('<svg' in x._repr_svg_())\n"
        "print('edges, in reverse order' in (x * x).backward()._repr_html_())"
    )
    svg, html = _fresh_python(code).splitlines()
    assert svg == "True"  # (with Graphviz, the SVG starts with an XML declaration)
    assert html == "True"


def test_the_engine_imports_nothing_above_it():
    for module in ("scalar", "passes", "records", "gradcheck", "replay", "gradients"):
        code = (
            f"import sys, scalarlang.engine.{module}\n"
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('scalarlang.')}))"
        )
        assert _fresh_python(code).strip() == "['_version', 'engine']", module


def test_engine_reprs_are_none_until_a_display_is_registered(monkeypatch):
    from scalarlang.engine import reprs

    # Patched: the displays are registered once per process; emptied here as in a fresh one.
    monkeypatch.setattr(reprs, "_displays", {})
    x = Scalar.variable(2)
    assert x._repr_svg_() is None  # Jupyter: no such display
    assert x.backward()._repr_html_() is None
    with pytest.raises(ValueError):
        reprs.register("no-such-kind", str)


# ---- the magics, in-process ----------------------------------------------------------------


@pytest.fixture
def shell():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.display_formatter.active_types = ["text/plain", "text/html", "image/svg+xml"]
    ip.run_line_magic("load_ext", "scalarlang")

    def run(kind: str, name: str, line: str = "", cell: str | None = None, *, fails: str | None = None):
        """The outputs of a magic; ``fails``: the kind of the `SadCellError` it must raise."""
        from scalarlang import SadCellError

        with capture_output() as captured:
            try:
                if kind == "cell":
                    ip.run_cell_magic(name, line, cell)
                else:
                    ip.run_line_magic(name, line)
            except SadCellError as error:
                assert error.kind == fails, error
            else:
                assert fails is None, f"no error[{fails}] was raised"
        return [output.data for output in captured.outputs]

    yield run
    ip.run_line_magic("unload_ext", "scalarlang")
    InteractiveShell.clear_instance()


def test_cells_share_one_session(shell):
    assert shell("cell", "sad", cell="let x = var 2") == []
    outputs = shell("cell", "sad", cell="let loss = x * x\nbackward(loss)")
    assert len(outputs) == 1
    assert "text/html" in outputs[0] and "backward from loss" in outputs[0]["text/plain"]
    shell("line", "sad_reset")
    outputs = shell("cell", "sad", cell="x", fails="undefined-name")
    assert "error[undefined-name]" in outputs[0]["text/plain"]
    assert "Traceback" not in outputs[0]["text/plain"]


def test_a_cell_shows_forward_modes_trace_and_jacobian(shell):
    outputs = shell("cell", "sad", cell="let x = var 2\nlet square = x * x\nlet loss = square + square\n"
                    "tangents(loss, x)\njacobian([loss], [x])")
    (output,) = outputs
    assert "ṫ = 2 × 1 + 2 × 1 = 4" in output["text/plain"] and "ṫ = 2 × 1 + 2 × 1 = 4" in output["text/html"]
    assert "reverse mode: 1 pass (one per output), 3 node visits" in output["text/plain"]


def test_a_failing_cell_shows_what_ran_then_its_diagnostic_and_one_line_for_the_error(shell):
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    with capture_output() as captured:
        result = ip.run_cell(SEED_CELL + 'print "before"\nbackward(loss, inf)\nprint "never"')
    error = result.error_in_exec
    assert type(error).__name__ == "SadCellError" and error.kind == "non-finite-seed"
    assert error.diagnostic.fields == {"seed": float("inf")}
    (output,) = [output.data for output in captured.outputs]
    assert output["text/plain"].splitlines()[:2] == ["before", "error[non-finite-seed]: backward seed inf must be finite"]
    assert "never" not in output["text/plain"]
    # IPython's showtraceback prints the exception's _render_traceback_, not a Python traceback.
    assert captured.stdout.strip() == "the cell stopped at <cell 1>:5:16: error[non-finite-seed] (shown above)"
    assert "Traceback" not in captured.stdout + captured.stderr


def test_sad_draw_inline_file_and_errors(shell, tmp_path):
    shell("cell", "sad", cell=SEED_PROGRAM)
    outputs = shell("line", "sad_draw", "loss")
    assert "image/svg+xml" in outputs[0]
    target = tmp_path / "seed.svg"
    outputs = shell("line", "sad_draw", f"loss {target}")
    assert target.read_text().lstrip().startswith("<?xml")
    assert f"wrote {target}" in outputs[0]["text/plain"]
    for line, kind in (("nope", "undefined-name"), ("", "wrong-arguments"), ("loss out.pdf", "unknown-picture-format")):
        outputs = shell("line", "sad_draw", line, fails=kind)
        assert f"error[{kind}]" in outputs[0]["text/plain"]


# ---- the example notebook, in a real kernel ------------------------------------------------


def test_a_failing_cell_stops_the_run_with_its_diagnostic_and_no_traceback(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    cells = ["%load_ext scalarlang", SEED_CELL + "backward(loss, inf)", '%%sad\nprint "after"']
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    client = notebook_client(notebook, tmp_path, monkeypatch)
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError) as caught:
        client.execute()  # without allow_errors: Run All stops at the failing cell
    assert "error[non-finite-seed]" in str(caught.value)
    assert "Traceback" not in str(caught.value)
    failing, after = notebook.cells[1], notebook.cells[2]
    assert after.outputs == [] and after.execution_count is None  # the next cell did not run
    (error,) = [output for output in failing.outputs if output.output_type == "error"]
    assert error.ename == "SadCellError" and error.evalue.startswith("error[non-finite-seed]: ")
    assert not any("Traceback" in line for line in error.traceback)
    assert "error[non-finite-seed]" in "\n".join(error.traceback)
    (shown,) = [output.data for output in failing.outputs if "data" in output]  # the diagnostic, shown
    # The cell is named by the execution count Jupyter shows (issue 45, item 7): `In [2]`.
    assert failing.execution_count == 2
    assert "error[non-finite-seed]" in shown["text/html"] and "&lt;cell 2&gt;:4:16" in shown["text/html"]
    assert shown["text/plain"].splitlines()[:2] == [
        "error[non-finite-seed]: backward seed inf must be finite", " --> <cell 2>:4:16",
    ]


def test_a_walk_cell_starts_from_the_forward_graph_and_cells_are_named_as_jupyter_numbers_them(tmp_path, monkeypatch):
    # Issue 45: a walk's first screen in a notebook shows values only (item 2), and a
    # diagnostic names the cell `In [N]` as `<cell N>`, Python cells counted too (item 7).
    nbformat = pytest.importorskip("nbformat")
    cells = ["%load_ext scalarlang", "half = 0.5", SEED_CELL + "walk(loss)", "%%sad\nwalk(loss, nan)"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    client = notebook_client(notebook, tmp_path, monkeypatch)
    client.allow_errors = True
    client.execute()
    walked, failing = notebook.cells[2], notebook.cells[3]
    (html,) = [output.data["text/html"] for output in walked.outputs if "data" in output]
    tables, player = html.split('class="scalarlang-walk"', 1)
    assert "forward graph of" in tables and "operands" in tables
    assert "pass adjoint" not in tables and "gradient" not in tables  # no answer before the walk
    assert 'data-step="0"' in player and 'value="0"' in player  # the player starts at the start
    step = player[player.index('<pre class="sl-step"'):player.index("</pre>")]
    assert "walk from" in step and "edge 1 of 4" not in step
    assert "adjoint 8" not in player[:player.index("<script")]  # x's final adjoint: not drawn
    assert ">adjoint 0<" in player
    assert failing.execution_count == 4
    (shown,) = [output.data for output in failing.outputs if "data" in output]
    assert " --> <cell 4>:1:12" in shown["text/plain"], shown["text/plain"]


def test_a_walk_cell_over_tensors_shows_a_player_that_steps_a_node_at_a_time(tmp_path, monkeypatch):
    # Issue 43, item 2: the player of a graph holding tensors, in a real kernel.
    nbformat = pytest.importorskip("nbformat")
    cells = ["%load_ext scalarlang", "%%sad\nlet X = tensor([[1, 2], [3, 4]])\nlet W = var tensor([[0.5, -1], [2, 0.25]])\n"
             "let loss = sum(tanh(X @ W))\nwalk(loss)", "%%sad\nprint \"{grad(W)}\""]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    notebook_client(notebook, tmp_path, monkeypatch).execute()
    walked, printed = notebook.cells[1], notebook.cells[2]
    (html,) = [output.data["text/html"] for output in walked.outputs if "data" in output]
    (text,) = [output.data["text/plain"] for output in walked.outputs if "data" in output]
    tables, player = html.split('class="scalarlang-walk"', 1)
    assert "forward graph of" in tables and "pass adjoint" not in tables
    assert 'data-steps="3"' in player and 'data-step="0"' in player
    data = json.loads(player[player.index('class="sl-data">') + 16:player.index("</script>")])
    assert [len(updates) for _, updates in data["steps"]] == [1, 1, 1]  # X is untracked: W's edge alone
    assert data["texts"][3].startswith("node 3 of 3: X @ W: matmul [2, 2]") and "dB = Aᵀ @ dC" in data["texts"][3]
    assert "node 1 of 3: loss: sum, a scalar" in text and "walked 3 nodes (4 operand edges)" in text
    (shown,) = [output.data["text/plain"] for output in printed.outputs if "data" in output]
    assert shown.startswith("tensor [2, 2]\n  0.000493584632616  0.998400207525")  # the walk committed the pass


VJP_CELL = """let W = var tensor([[0.3, -0.2, 0.5], [-0.4, 0.6, 0.2]])
let X = tensor([[1, 2], [0.5, -1]])
let logits = X @ W
let loss = mean(cross_entropy(logits, [0, 2]))
let S = var tensor([[1.4, 1.0, -0.3, -1.0], [0.0, -0.4, 1.1, -0.8]])
"""


def test_a_notebook_cell_shows_the_table_as_html(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    cells = ["%load_ext scalarlang", "%%sad\n" + VJP_CELL + "vjp_check(loss)",
             # (softmax's two sides differ in their last bits; the tolerance is the smallest float)
             "%%sad\nvjp_check(sum(softmax(S) * tensor([1.5, -0.3, 2.2, 0.7])), tolerance: 5e-324)"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    client = notebook_client(notebook, tmp_path, monkeypatch)
    client.allow_errors = True
    client.execute()
    passing, failing = notebook.cells[1], notebook.cells[2]
    (data,) = [output.data for output in passing.outputs if "data" in output]
    assert "vjp_check of" in data["text/html"] and "pass=true" in data["text/html"]
    assert "logits" in data["text/plain"] and "[2, 2] @ [2, 3] → [2, 3]" in data["text/html"]
    (data,) = [output.data for output in failing.outputs if "data" in output]
    assert "FAIL at S[1, 2]" in data["text/plain"] and "pass=false" in data["text/html"]
    assert "error[vjp-check-failed]" in data["text/plain"]
    (error,) = [output for output in failing.outputs if output.output_type == "error"]
    assert error.ename == "SadCellError" and error.evalue.startswith("error[vjp-check-failed]: ")


@pytest.mark.slow
def test_example_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(ROOT / "examples" / "notebook.ipynb", as_version=4)
    client = notebook_client(notebook, tmp_path, monkeypatch)
    client.execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    outputs = {cell.source.splitlines()[-1]: cell.outputs for cell in code}
    for cell in code:
        for output in cell.outputs:
            # Only the cell tagged raises-exception fails (nbclient goes on past it, as Jupyter does).
            failing = cell.source.endswith("backward(loss, inf)") and "raises-exception" in cell.metadata.tags
            assert output.output_type != "error" or failing, output
            assert "Traceback" not in json.dumps(output)

    def html_of(last_line):
        return "".join(o.data.get("text/html", "") for o in outputs[last_line] if "data" in o)

    assert "3 unique nodes, 4 operand edges" in html_of("graph(loss)")
    assert any("image/svg+xml" in o.get("data", {}) for o in outputs["draw(loss)"])
    assert "backward from" in html_of('assert grad(square) == 2')
    assert "error[non-finite-seed]" in html_of("backward(loss, inf)")
    assert "still 0" in html_of("print \"x's gradient is still {grad(x)}\"")
    # The charts show as SVG: the loss curve, a point a step, and the boundary, a cell per
    # grid point, in the notebook's own SVG output (not text).
    def svgs(last_line):
        return [o.data["image/svg+xml"] for o in outputs[last_line] if "image/svg+xml" in o.get("data", {})]

    (loss_chart,) = svgs('plot(losses, title: "loss")')
    assert 'class="chart line"' in loss_chart and loss_chart.count(",") >= 60  # 60 points in the polyline
    (side,) = svgs('boundary(side, data, grid: 20, title: "side")')
    assert 'class="chart boundary"' in side and side.count('class="cell ') == 400
    # Tensors (issue 43, item 4): a layer's value as its shape and grid, explain of the tensor
    # node, and its picture, a box per tensor node and each edge labelled with its VJP.
    def plain_of(last_line):
        return "".join(o.data.get("text/plain", "") for o in outputs[last_line] if "data" in o)

    grid = plain_of("H").splitlines()
    assert grid[0] == "H = tensor [4, 3] (relu, tracked)" and len(grid) == 5
    assert [len(row.split()) for row in grid[1:]] == [3, 3, 3, 3]
    assert "H</span> = tensor [4, 3]" in html_of("H")
    explained = plain_of("explain(H)")
    for said in ("H: relu [4, 3], tracked", "dA = dC * (A > 0) (12 scalar edges)",
                 "from H * H, slot 0 ([4, 3] * [4, 3] → [4, 3]): dA = dC * B (12 scalar edges)",
                 "from H * H, slot 1", "H: stored gradient since its last zero_grad"):
        assert said in explained, said
    (layer_picture,) = svgs("draw(layer_loss)")
    for said in ("matmul [4, 3]", "relu [4, 3]", "variable [3, 2]", "dA = dC @ Bᵀ", "dB = Aᵀ @ dC", "shape [3]"):
        assert said in layer_picture, said
    # vjp_check of the layer's loss: each tensor node a row, the verdict, as HTML.
    checked = plain_of("vjp_check(layer_loss)")
    assert checked.startswith("vjp_check of layer_loss: the VJP of each of its 6 tensor nodes")
    assert "[4, 2] @ [2, 3] → [4, 3]" in checked and checked.count(" pass\n") == 6
    assert "vjp_check of" in html_of("vjp_check(layer_loss)") and "pass=true" in html_of("vjp_check(layer_loss)")
    last = outputs['session["x"].value, session["x"].gradient']
    assert last[0].data["text/plain"] == "(2.0, 0.0)"


def test_draw_in_a_cell_shows_the_picture_between_the_text(shell):
    outputs = shell("cell", "sad", cell=SEED_PROGRAM + 'print "before"\ndraw(loss)\nprint "after"')
    assert [sorted(data) for data in outputs] == [
        ["text/html", "text/plain"], ["image/svg+xml", "text/plain"], ["text/html", "text/plain"],
    ]
    assert outputs[0]["text/plain"].strip() == "before" and outputs[2]["text/plain"].strip() == "after"
    assert outputs[1]["text/plain"].startswith("digraph scalarlang {")


def test_a_charts_axis_titles_show_in_the_notebooks_svg(shell):
    """Issue 45, item 4: `xlabel:` and `ylabel:` in the notebook's picture of a chart."""
    (shown,) = shell("cell", "sad", cell='plot([4, 2, 1], xlabel: "step", ylabel: "loss")')
    svg = shown["image/svg+xml"]
    assert 'class="axis-title" data-axis="x"' in svg and ">step</text>" in svg
    assert 'class="axis-title" data-axis="y"' in svg and ">loss</text>" in svg
