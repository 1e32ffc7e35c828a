"""The playground in a real browser (issue 27): the site built by the README's command
(`python playground/build.py`, here into a temporary folder), served on 127.0.0.1, opened in
Debian's headless Chromium driven by selenium. Every request the browser makes goes through
the test server (it is the browser's proxy too: playground/harness.py), so "nothing leaves
127.0.0.1" is checked, not assumed.

Slow (a build, Pyodide booting in a browser); skipped without chromium and chromedriver
(Debian's chromium and chromium-driver) or without Node and npm, which .ci/run installs.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))
sys.path.insert(0, str(ROOT / "playground"))

import harness  # noqa: E402

REUSED_SQUARE = 'let x = var 2\nlet square = x * x\nlet loss = square + square\nbackward(loss)\nprint "x grad {grad(x)}"\ndraw(loss)\n'
# Pyodide's libm is not glibc's: tanh and friends may differ in the last bit (gradcheck.sad's
# scaled_error shows it), so numbers are compared within this relative tolerance.
RELATIVE = 1e-9
NUMBER = re.compile(r"-?\d+\.\d+(?:e[+-]?\d+)?")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    binary, driver = harness.browser_paths()
    missing = [name for name, path in (("chromium", binary), ("chromedriver", driver)) if path is None]
    missing += [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not found: .ci/run installs them (Debian's chromium, chromium-driver, nodejs, npm)")
    pytest.importorskip("selenium")
    out = tmp_path_factory.mktemp("playground") / "dist"
    built = subprocess.run([sys.executable, str(ROOT / "playground" / "build.py"), "--out", str(out)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    assert re.search(r"dist: [\d.]+ MB in \d+ files \([\d.]+ MB gzipped\)", built.stdout), built.stdout
    return out


@pytest.fixture(scope="module")
def server(site):
    with harness.serve(site) as server:
        yield server
    # Everything the browser asked for, in every test of this module, was this site's.
    assert server.foreign() == []


@pytest.fixture(scope="module")
def browser(server, tmp_path_factory):
    session = harness.chromium(tmp_path_factory.mktemp("chromium"), server)
    try:
        yield session
    finally:
        session.quit()


@pytest.fixture
def page(browser, server):
    """The playground loaded fresh, Python ready."""
    open_page(browser, server.url)
    yield browser
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == []


def open_page(browser, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, 120).until(lambda _: browser.execute_script("return document.body.dataset.ready") == "true")


def element(browser, selector: str):
    from selenium.webdriver.common.by import By

    return browser.find_element(By.CSS_SELECTOR, selector)


def set_program(browser, text: str) -> None:
    browser.execute_script(
        "const editor = document.getElementById('code'); editor.value = arguments[0];"
        "editor.dispatchEvent(new Event('input'));", text)


def run_and_wait(browser, timeout: float = 120) -> dict:
    from selenium.webdriver.support.ui import WebDriverWait

    element(browser, "#run").click()
    WebDriverWait(browser, timeout).until(lambda _: element(browser, "#output").get_attribute("data-state") == "done")
    return browser.execute_script("return window.playground.lastRun")


def same_within_rounding(actual: str, expected: str) -> bool:
    if actual == expected:
        return True
    if NUMBER.sub("#", actual) != NUMBER.sub("#", expected):
        return False
    for got, want in zip(NUMBER.findall(actual), NUMBER.findall(expected)):
        a, b = float(got), float(want)
        if abs(a - b) > RELATIVE * max(abs(a), abs(b), 1e-300) and abs(a - b) > 1e-12:
            return False
    return True


def test_the_reused_square_shows_its_gradient_tables_and_picture(page):
    set_program(page, REUSED_SQUARE)
    run = run_and_wait(page)
    assert run["status"] == 0 and run["error"] is None
    output = element(page, "#output")
    assert "x grad 8" in output.text
    assert "x grad 8" in run["text"]
    # The pass's tables, as HTML (rich's), and the picture inline as SVG.
    assert "adjoint" in output.text
    assert page.execute_script("return document.querySelectorAll('#output .part.picture svg').length") == 1
    assert element(page, "#status").get_attribute("data-state") == "done"


def test_an_error_shows_its_kind_and_marks_its_span_in_the_editor(page):
    program = "# 𝜋: two UTF-16 units\nlet x = var 2\nlet y = log(x - 2)\nprint \"never\"\n"
    set_program(page, program)
    run = run_and_wait(page)
    assert run["status"] == 1 and run["error"]["kind"] == "non-finite-result"
    assert element(page, "#output").get_attribute("data-error-kind") == "non-finite-result"
    status = element(page, "#status")
    assert status.get_attribute("data-state") == "error"
    assert "error[non-finite-result] at line 3, column 9" in status.text
    mark = element(page, "#highlight mark.sad-error")
    assert mark.text == "log(x - 2)"
    assert "error[non-finite-result]" in mark.get_attribute("title")
    assert "never" not in run["text"]
    # "show in the program" selects the span in the editor itself.
    element(page, "#status button").click()
    selected = page.execute_script("const e = document.getElementById('code'); return e.value.slice(e.selectionStart, e.selectionEnd)")
    assert selected == "log(x - 2)"
    # Editing the program removes the mark (it would point at text that changed).
    set_program(page, program + "\n")
    assert page.execute_script("return document.querySelectorAll('#highlight mark').length") == 0


def test_a_syntax_error_is_marked_where_it_is(page):
    set_program(page, 'let x = var 2\nlet y = x $ 3\n')
    run = run_and_wait(page)
    assert run["status"] == 2 and run["error"]["kind"] == "syntax-error"
    assert element(page, "#highlight mark.sad-error").text == "$"
    assert "error[syntax-error]: unexpected character `$`" in element(page, "#output").text


def test_stop_ends_a_long_loop_and_a_fresh_python_runs_the_next_program(page):
    from selenium.webdriver.support.ui import WebDriverWait

    # 10^12 iterations (a loop may run at most 10^6: two nested), about a day in a browser.
    set_program(page, 'let k = 0\nrepeat 1000000 {\n  repeat 1000000 {\n    let k = k + 1\n  }\n}\nprint "finished {k}"\n')
    element(page, "#run").click()
    status = element(page, "#status")
    WebDriverWait(page, 30).until(lambda _: "Running… 1." in status.text)  # more than a second in
    # The page stays responsive while the worker loops: typing still highlights.
    assert page.execute_script("return document.getElementById('stop').disabled") is False
    started = time.perf_counter()
    element(page, "#stop").click()
    assert element(page, "#output").get_attribute("data-state") == "stopped"
    assert status.get_attribute("data-state") == "stopped" and "Stopped after" in status.text
    assert "Stopped after" in element(page, "#output .notice").text
    assert time.perf_counter() - started < 1.0
    WebDriverWait(page, 120).until(lambda _: page.execute_script("return document.body.dataset.ready") == "true")
    assert page.execute_script("return window.playground.restarts") == 1
    set_program(page, REUSED_SQUARE)
    run = run_and_wait(page)
    assert run["status"] == 0 and "x grad 8" in run["text"] and "finished" not in run["text"]


def test_a_share_link_opens_the_same_program_in_a_fresh_page(page, server):
    program = '# shared: é 𝜋\nlet a = var 3\nlet b = a * a * a\nbackward(b)\nprint "da {grad(a)}"\n'
    set_program(page, program)
    first = run_and_wait(page)
    element(page, "#share").click()
    link = element(page, "#share-link").get_attribute("value")
    assert link.startswith(server.url + "#program=")
    page.switch_to.new_window("tab")
    try:
        open_page(page, link)
        assert page.execute_script("return document.getElementById('code').value") == program
        second = run_and_wait(page)
        assert second["text"] == first["text"] and "da 27" in second["text"]
    finally:
        page.close()
        page.switch_to.window(page.window_handles[0])
    # The program travels in the fragment, which the browser never sends.
    assert not [request for request in server.requests if "program" in request[2]]


def test_the_walk_player_steps_through_the_pass(page):
    from selenium.webdriver.common.by import By

    set_program(page, "let x = var 2\nlet square = x * x\nlet loss = square + square\nwalk(loss)\n")
    run_and_wait(page)
    player = element(page, "#output .scalarlang-walk")
    assert player.get_attribute("data-ready") == "true" and player.get_attribute("data-steps") == "4"
    for _ in range(3):
        player.find_element(By.CSS_SELECTOR, "button[data-action='next']").click()
    assert player.get_attribute("data-step") == "3"
    step = player.find_element(By.CSS_SELECTOR, "pre.sl-step").text
    assert step.startswith("edge 3 of 4: square → x (slot 0)") and "x 0 → 4" in step


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_every_example_prints_its_golden_output(page, path):
    from selenium.webdriver.support.ui import Select

    Select(element(page, "#examples")).select_by_value(f"examples/{path.name}")
    assert page.execute_script("return document.getElementById('code').value") == path.read_text(encoding="utf-8")
    run = run_and_wait(page, timeout=300)
    actual = run["text"] + f"[exit status {run['status']}]\n"
    expected = path.with_suffix(".out").read_text(encoding="utf-8")
    assert same_within_rounding(actual, expected), f"{path.name} in the browser:\n{actual}"


def test_the_page_loads_and_runs_offline_once_loaded(page, server):
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(page, 60).until(lambda _: page.execute_script("return !!navigator.serviceWorker.controller"))
    server.offline = True
    try:
        open_page(page, server.url)
        set_program(page, REUSED_SQUARE)
        run = run_and_wait(page)
        assert "x grad 8" in run["text"]
    finally:
        server.offline = False
    # The page's resources and its worker's came from this site (the proxy saw the rest).
    resources = page.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    resources += page.execute_async_script("window.playground.workerResources().then(arguments[arguments.length - 1])")
    assert resources and all(name.startswith(server.url) for name in resources)


def test_the_build_says_what_it_shipped(site):
    built = json.loads((site / "build.json").read_text())
    assert built["versions"]["pyodide"] == "314.0.8" and built["files"] >= 20
    manifest = json.loads((site / "manifest.json").read_text())
    assert sorted(example["file"] for example in manifest["examples"]) == [f"examples/{p.name}" for p in EXAMPLES]
    assert {wheel.split("-")[0] for wheel in manifest["wheels"]} == {"scalarlang", "lark", "rich", "platformdirs"}
    # No address of another site in what the page loads.
    for name in ("index.html", "playground.js", "worker.js", "highlight.js", "sw.js"):
        text = (site / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://(?!www\.w3\.org/)", text), name
