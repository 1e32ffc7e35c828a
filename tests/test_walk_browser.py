"""The notebook's walk player in a real browser: a notebook with `%load_ext scalarlang` and a
`%%sad` cell ending in `walk(loss)` is executed by nbclient in a real kernel, its outputs are
saved as an HTML page (as an exported notebook holds them), and the page is opened in Debian's
headless Chromium driven by selenium: "next" three times shows the third edge and its
adjoints, the slider's End key jumps to the last edge, whose adjoints are the pass table's; a
walk over tensors steps a node at a time, lighting up the node's edges together.

Slow (a kernel and a browser start); skipped without chromium and chromedriver (Debian's
packages chromium and chromium-driver, which .ci/run installs) or without the notebook extra.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from kernels import notebook_client

pytestmark = pytest.mark.slow

CELL = "%%sad\nlet x = var 2\nlet square = x * x\nlet loss = square + square\nwalk(loss)"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "playground"))

import harness  # noqa: E402  (Chromium started as this machine needs it, as the playground's tests do)


def _browser() -> None:
    chromium, driver = harness.browser_paths()
    if chromium is None or driver is None:
        missing = " and ".join(name for name, path in (("chromium", chromium), ("chromedriver", driver)) if path is None)
        pytest.skip(f"{missing} not found: install Debian's chromium and chromium-driver (as .ci/run does)")


def executed_page(folder: Path, monkeypatch, cell: str = CELL) -> Path:
    """The notebook run by nbclient in a kernel of this interpreter; its outputs as a page."""
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("%load_ext scalarlang"), nbformat.v4.new_code_cell(cell)]
    )
    nbformat.write(notebook, folder / "walk.ipynb")
    notebook_client(notebook, folder, monkeypatch).execute()
    pieces = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", output
            data = output.get("data", {})
            if "text/html" in data:
                pieces.append(f'<div class="output_html">{data["text/html"]}</div>')
            elif "text/plain" in data or "text" in output:
                pieces.append(f"<pre>{html.escape(data.get('text/plain', output.get('text', '')))}</pre>")
    page = folder / "walk.html"
    page.write_text(
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>walk</title></head><body>\n'
        + "\n".join(pieces) + "\n</body></html>\n",
        encoding="utf-8",
    )
    return page


@pytest.fixture
def browser(tmp_path):
    _browser()
    pytest.importorskip("selenium.webdriver")
    session = harness.chromium(tmp_path / "chromium-profile", performance_log=False)
    try:
        yield session
    finally:
        session.quit()


def test_the_player_in_an_exported_notebook_steps_through_the_walk(tmp_path, monkeypatch, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    page = executed_page(tmp_path, monkeypatch)
    text = page.read_text(encoding="utf-8")
    assert text.count('class="scalarlang-walk"') == 1
    # Self-contained: the one address is the SVG namespace, which is never fetched.
    assert set(re.findall(r"https?://[^\s\"'<>]+", text)) == {"http://www.w3.org/2000/svg"}

    browser.get(page.as_uri())
    player = browser.find_element(By.CSS_SELECTOR, ".scalarlang-walk")
    WebDriverWait(browser, 10).until(lambda _: player.get_attribute("data-ready") == "true")

    def button(action: str):
        return player.find_element(By.CSS_SELECTOR, f"button[data-action='{action}']")

    def adjoints() -> dict[str, str]:
        """Each tracked node's label (its box's first line) and the adjoint it shows now."""
        shown = {}
        for node in player.find_elements(By.CSS_SELECTOR, "g.node[data-adjoint]"):
            label = node.find_element(By.CSS_SELECTOR, "text[data-line='0']").text
            line = node.find_element(By.CSS_SELECTOR, "text[data-line='3']").text
            assert line == f"adjoint {node.get_attribute('data-adjoint')}"
            shown[label] = node.get_attribute("data-adjoint")
        return shown

    def current_edge() -> list[str]:
        return [edge.get_attribute("data-edge") for edge in player.find_elements(By.CSS_SELECTOR, "g.edge.sl-current")]

    step = player.find_element(By.CSS_SELECTOR, "pre.sl-step")
    assert player.get_attribute("data-step") == "0" and player.get_attribute("data-steps") == "4"
    assert step.text.startswith("walk from loss with seed 1: 4 operand edges")
    assert adjoints() == {"x": "0", "square": "0", "loss": "1"}
    assert current_edge() == [] and not button("previous").is_enabled()

    for _ in range(3):
        button("next").click()
    assert player.get_attribute("data-step") == "3"
    assert player.find_element(By.CSS_SELECTOR, ".sl-position").text == "3 / 4"
    assert step.text.startswith("edge 3 of 4: square → x (slot 0): 2 × 2 = 4")
    assert "x 0 → 4" in step.text
    assert current_edge() == ["2"]  # the third edge: the first of square's two into x
    assert adjoints() == {"x": "4", "square": "2", "loss": "1"}
    assert "sl-operand" in player.find_element(By.CSS_SELECTOR, "g.node[data-index='0']").get_attribute("class")
    assert len(player.find_elements(By.CSS_SELECTOR, "g.edge.sl-done")) == 2
    assert len(player.find_elements(By.CSS_SELECTOR, "g.edge.sl-todo")) == 1

    button("previous").click()
    assert player.get_attribute("data-step") == "2" and current_edge() == ["1"]
    assert adjoints()["x"] == "0"

    slider = player.find_element(By.CSS_SELECTOR, "input.sl-slider")
    slider.send_keys(Keys.END)  # the slider to its end, as a person would
    assert slider.get_attribute("value") == "4" and player.get_attribute("data-step") == "4"
    assert current_edge() == ["3"] and not button("next").is_enabled()
    assert "as `backward` commits a pass" in step.text

    # The last frame's adjoints are the last step's. Above the player, the forward graph only
    # (issue 45, item 2): values and operands, no adjoint to give the walk away.
    assert adjoints() == {"x": "8", "square": "2", "loss": "1"}
    assert "adjoints: x 8, square 2, loss 1" in step.text
    table = browser.find_element(By.CSS_SELECTOR, "pre.scalarlang").text.splitlines()
    header = next(index for index, line in enumerate(table) if line.split()[:2] == ["#", "node"])
    assert table[header].split() == ["#", "node", "operation", "value", "operands"]
    assert table[0].startswith("forward graph of loss")

    button("first").click()
    assert player.get_attribute("data-step") == "0" and slider.get_attribute("value") == "0"
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == []


TENSOR_CELL = ("%%sad\nlet X = tensor([[1, 2], [3, 4]])\nlet W = var tensor([[0.5, -1], [2, 0.25]])\n"
               "let H = tanh(X @ W)\nlet loss = sum(H * H)\nwalk(loss)")


def test_the_player_of_a_walk_over_tensors_steps_a_node_at_a_time(tmp_path, monkeypatch, browser):
    # Issue 43, item 2: H * H's two edges into H light up together, and H's box shows the sum
    # of their contributions after that node; then W's first values as the pass gives them.
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    import scalarlang
    from scalarlang.engine.numbers import format_number

    page = executed_page(tmp_path, monkeypatch, TENSOR_CELL)
    browser.get(page.as_uri())
    player = browser.find_element(By.CSS_SELECTOR, ".scalarlang-walk")
    WebDriverWait(browser, 10).until(lambda _: player.get_attribute("data-ready") == "true")
    assert player.get_attribute("data-steps") == "4"

    def adjoint(index: int) -> str:
        return player.find_element(By.CSS_SELECTOR, f"g.node[data-index='{index}']").get_attribute("data-adjoint")

    def current_edges() -> list[tuple[str, str]]:
        return sorted((edge.get_attribute("data-child"), edge.get_attribute("data-parent"))
                      for edge in player.find_elements(By.CSS_SELECTOR, "g.edge.sl-current"))

    step = player.find_element(By.CSS_SELECTOR, "pre.sl-step")
    assert step.text.startswith("walk from loss with seed 1: 4 nodes with 6 operand edges")
    assert adjoint(5) == "1" and adjoint(1) == "0, 0, 0, …"  # the seed; W's zeros
    next_button = player.find_element(By.CSS_SELECTOR, "button[data-action='next']")
    next_button.click()
    next_button.click()  # the second node: H * H, whose two edges go into H (topology 3)
    assert step.text.startswith("node 2 of 4: H * H: mul [2, 2]")
    assert current_edges() == [("4", "3"), ("4", "3")]
    assert "sl-operand" in player.find_element(By.CSS_SELECTOR, "g.node[data-index='3']").get_attribute("class")
    assert len(player.find_elements(By.CSS_SELECTOR, "g.edge.sl-done")) == 1
    session = scalarlang.Session()
    session.run(TENSOR_CELL.split("\n", 1)[1].replace("walk(loss)", "backward(loss)"))
    gradient_h = session.names["H"].gradient  # (row major: one pass, so the pass adjoint)
    assert adjoint(3) == ", ".join(format_number(value) for value in gradient_h[:3]) + ", …"
    player.find_element(By.CSS_SELECTOR, "button[data-action='last']").click()
    gradient_w = session.names["W"].gradient
    assert adjoint(1) == ", ".join(format_number(value) for value in gradient_w[:3]) + ", …"
    assert current_edges() == [("2", "0"), ("2", "1")]  # X @ W: both edges, X's untracked
    assert "walked 4 nodes (6 operand edges) from loss" in step.text
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == []
