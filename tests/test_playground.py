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

from sessions import script_output

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))
sys.path.insert(0, str(ROOT / "playground"))

import harness  # noqa: E402

REUSED_SQUARE = 'let x = var 2\nlet square = x * x\nlet loss = square + square\nbackward(loss)\nprint "x grad {grad(x)}"\ndraw(loss)\n'
# The browser prints what the command prints, character for character: every float sum is a
# left fold, so Pyodide's Python 3.14 gives the bits of 3.11 (issue 40; `sum()` of floats is
# compensated since 3.12, which was the difference in next_token.sad), and exp, log, tanh and
# `**` are the engine's own (scalarlang/engine/elementary.py), not the C library's: Pyodide's
# is musl's, whose last bits differ from glibc's (tanh for about one argument in twelve, tanh(0.7)
# 2 ulps apart; exp for about one in 5,000), which showed in gradcheck.sad's scaled_error.


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
    # The page keeps its program in the browser's local storage: the next test starts afresh.
    browser.execute_script("localStorage.clear()")
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


CHARTS = (
    'let losses = [4, 2, 1, 0.5]\nplot(losses, title: "loss", xlabel: "step", ylabel: "nats")\n'
    "fn side(a, b) = a - b\nboundary(side, [[0, 1, -1], [1, 0, 1]], grid: 4)\n"
)


def test_charts_show_as_svg_and_their_text_is_the_commands(page):
    set_program(page, CHARTS)
    run = run_and_wait(page)
    assert run["status"] == 0 and run["error"] is None
    charts = "#output .part.chart svg"
    assert page.execute_script(f"return document.querySelectorAll('{charts}').length") == 2
    # The loss's polyline has a point per value; the boundary a cell per grid point.
    points = page.execute_script(f"return document.querySelector('{charts} polyline').getAttribute('points')")
    assert len(points.split()) == 4
    assert page.execute_script(f"return document.querySelectorAll('{charts} rect.cell').length") == 16
    titles = page.execute_script(
        f"return Array.from(document.querySelectorAll('{charts} text.axis-title')).map(t => t.textContent)"
    )
    assert titles == ["step", "nats"]  # (issue 45: the axes' titles)
    assert run["text"] == script_output(CHARTS, "charts.sad")[1] and "└" in run["text"]


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


VJP_CHECK_PROGRAM = (ROOT / "tests" / "fixtures" / "vjp_check_program.sad").read_text(encoding="utf-8")


def test_vjp_check_shows_its_table_and_a_failed_one_is_marked(page):
    # Issue 43: the bridge from scalars to tensors in the page, as the command prints it; the
    # second check fails (softmax's two sides differ in their last bits; the smallest tolerance).
    set_program(page, VJP_CHECK_PROGRAM)
    run = run_and_wait(page)
    assert run["text"] == script_output(VJP_CHECK_PROGRAM, "playground.sad")[1]
    assert run["status"] == 1 and run["error"]["kind"] == "vjp-check-failed"
    output = element(page, "#output").text
    assert "vjp_check loss: 3 tensor nodes" in output and "FAIL at S[1, 2]" in output
    assert element(page, "#highlight mark.sad-error").text.startswith("vjp_check(sum(softmax(S)")


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
    assert actual == expected, f"{path.name} in the browser:\n{actual}"


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
    for name in ("index.html", "playground.js", "kept.js", "output.js", "worker.js", "highlight.js", "sw.js"):
        text = (site / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://(?!www\.w3\.org/)", text), name


# ---- issue 35, item 6: what a new user tripped over, on a phone and at a desk -------------

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"


@pytest.fixture
def tab(page, server):
    """A second tab of the same browser, closed afterwards: what a test sets there through
    the DevTools protocol (a phone's screen, a Mac's platform) stays there."""
    first = page.current_window_handle
    page.switch_to.new_window("tab")
    try:
        yield page
    finally:
        page.close()
        page.switch_to.window(first)


def editor_text(browser) -> str:
    return browser.execute_script("return document.getElementById('code').value")


def type_in_editor(browser, keys: str) -> None:
    """Keys typed at the end of the program, as a user types them."""
    from selenium.webdriver.common.keys import Keys

    editor = element(browser, "#code")
    editor.click()
    editor.send_keys(Keys.CONTROL, Keys.END)
    editor.send_keys(keys)


def shown(browser, selector: str) -> bool:
    return browser.execute_script(
        "const e = document.querySelector(arguments[0]); return !!e && e.getClientRects().length > 0", selector)


def test_on_a_phone_the_page_fits_the_screen_and_the_picker_with_it(tab, server):
    from selenium.webdriver.support.ui import Select

    tab.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    open_page(tab, server.url)
    # The layout viewport is the phone's: nothing wider makes the browser zoom out or the
    # page scroll sideways.
    width = tab.execute_script("return innerWidth")
    assert width == 390
    assert tab.execute_script("return document.documentElement.scrollWidth") <= width
    for selector in ("#examples", "#run", "#stop", "#share", "#code", "#output"):
        left, right = tab.execute_script(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.left, r.right]", selector)
        assert 0 <= left and right <= width, (selector, left, right)
    # The picker still picks (its labels are all there, only the closed picker is narrower).
    Select(element(tab, "#examples")).select_by_value("examples/xor.sad")
    assert editor_text(tab) == (ROOT / "examples" / "xor.sad").read_text(encoding="utf-8")
    assert tab.execute_script("return document.documentElement.scrollWidth") <= width


def test_editing_after_share_takes_the_old_link_away(page, server):
    from selenium.webdriver.support.ui import WebDriverWait

    set_program(page, REUSED_SQUARE)
    element(page, "#share").click()
    link = element(page, "#share-link").get_attribute("value")
    assert page.current_url == link and shown(page, "#share-box")
    type_in_editor(page, 'print "edited"\n')
    # The box no longer offers (or says it copied) a link to another program, and the address
    # bar no longer holds it: a reload shows what was typed, not what was shared.
    assert not shown(page, "#share-box")
    assert "program=" not in page.current_url and page.current_url.startswith(server.url)
    edited = REUSED_SQUARE + 'print "edited"\n'
    assert editor_text(page) == edited
    page.refresh()
    WebDriverWait(page, 120).until(lambda _: page.execute_script("return document.body.dataset.ready") == "true")
    assert editor_text(page) == edited
    # Share again: a link to the edited program, which opens it.
    element(page, "#share").click()
    assert shown(page, "#share-box") and element(page, "#share-link").get_attribute("value") == page.current_url != link
    page.refresh()
    WebDriverWait(page, 120).until(lambda _: page.execute_script("return document.body.dataset.ready") == "true")
    assert editor_text(page) == edited


def test_a_program_typed_over_a_picked_example_is_no_longer_named_after_it(page):
    from selenium.webdriver.support.ui import Select

    Select(element(page, "#examples")).select_by_value("examples/xor.sad")
    assert element(page, "#file-name").text == "examples/xor.sad"
    set_program(page, "let x = var 2\nlet y = x $ 3\n")
    assert element(page, "#file-name").text == "playground.sad"
    assert Select(element(page, "#examples")).first_selected_option.get_attribute("value") == ""
    run = run_and_wait(page)
    assert run["error"]["kind"] == "syntax-error"
    assert "--> playground.sad:2:11" in run["text"] and "xor" not in run["text"]
    assert "xor" not in element(page, "#output").text
    element(page, "#share").click()
    link = element(page, "#share-link").get_attribute("value")
    assert "program=" in link and "file=" not in link
    # An example picked as it is keeps its name.
    Select(element(page, "#examples")).select_by_value("examples/errors.sad")
    assert element(page, "#file-name").text == "examples/errors.sad"
    element(page, "#share").click()
    assert "file=examples%2Ferrors.sad" in element(page, "#share-link").get_attribute("value")


def test_a_training_loop_prints_one_block_of_text_however_its_output_was_batched(page):
    # Long enough that its lines reach the page in several batches (one per 0.1 s).
    set_program(page, 'let x = var 0.5\nfor i in 0..30000 {\n  let x = tanh(x * 0.9) + 0.01\n'
                      '  if i % 1000 == 0 { print "step {i}" }\n}\nprint "end"\n')
    run = run_and_wait(page)
    assert run["status"] == 0
    lines = run["text"].splitlines()
    assert lines == [f"step {i}" for i in range(0, 30000, 1000)] + ["end"]
    # One text part, one <pre> holding every line in order: no divider between batches.
    assert page.execute_script("return document.querySelectorAll('#output .part').length") == 1
    blocks = page.execute_script("return [...document.querySelectorAll('#output pre')].map(p => p.textContent)")
    assert blocks == [run["text"]]
    assert run["batches"] >= 2  # (else this test would show nothing)
    # A picture still stands apart from the text around it.
    set_program(page, REUSED_SQUARE + 'print "after"\n')
    run_and_wait(page)
    kinds = page.execute_script("return [...document.querySelectorAll('#output .part')].map(p => p.className)")
    assert kinds == ["part text", "part picture", "part text"]


def test_a_reload_keeps_the_program_and_start_over_brings_the_default_back(page):
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def reload() -> None:
        page.refresh()
        WebDriverWait(page, 120).until(lambda _: page.execute_script("return document.body.dataset.ready") == "true")

    default = editor_text(page)
    assert default.startswith("#") and "let" in default and element(page, "#file-name").text == "playground.sad"
    assert not shown(page, "#start-over")  # nothing to go back to
    mine = "let mine = var 7\nprint \"{mine}\"\n"
    set_program(page, mine)
    type_in_editor(page, "# typed\n")
    mine += "# typed\n"
    reload()
    assert editor_text(page) == mine and element(page, "#file-name").text == "playground.sad"
    # Back to the default program, visibly offered; what was typed is one choice away.
    element(page, "#start-over").click()
    assert editor_text(page) == default
    assert not shown(page, "#start-over")
    reload()
    assert editor_text(page) == default
    picker = Select(element(page, "#examples"))
    picker.select_by_value("")
    assert editor_text(page) == mine
    # A picked example is what a reload shows, by its name.
    picker.select_by_value("examples/neuron.sad")
    reload()
    assert editor_text(page) == (ROOT / "examples" / "neuron.sad").read_text(encoding="utf-8")
    assert element(page, "#file-name").text == "examples/neuron.sad"
    assert Select(element(page, "#examples")).first_selected_option.get_attribute("value") == "examples/neuron.sad"


def test_the_run_hint_names_cmd_enter_on_a_mac(tab, server):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    # Elsewhere (Linux here): Ctrl-Enter, and no Cmd.
    open_page(tab, server.url)
    hint = element(tab, ".hint").text
    assert "Ctrl-Enter" in hint and "Cmd" not in hint
    tab.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": MAC, "platform": "MacIntel"})
    open_page(tab, server.url)
    assert "Cmd-Enter" in element(tab, ".hint").text
    assert "Cmd-Enter" in element(tab, "#run").get_attribute("title")
    assert "Cmd-Enter" in element(tab, "#status").text
    # And it does run the program.
    set_program(tab, 'print "by Cmd-Enter"\n')
    element(tab, "#code").send_keys(Keys.COMMAND, Keys.ENTER)
    WebDriverWait(tab, 60).until(lambda _: element(tab, "#output").get_attribute("data-state") == "done")
    assert "by Cmd-Enter" in tab.execute_script("return window.playground.lastRun.text")


def test_an_error_far_down_the_program_is_scrolled_into_view(page):
    lines = [f"let a{i} = var {i}" for i in range(1, 150)]
    lines[139] = "let bad = log(a1 - 1)"
    set_program(page, "\n".join(lines) + "\n")
    page.execute_script("document.getElementById('code').scrollTop = 0; document.getElementById('code').dispatchEvent(new Event('scroll'))")
    run = run_and_wait(page)
    assert run["error"]["kind"] == "non-finite-result" and run["error"]["line"] == 140
    # The mark is where the editor shows it, without a click on "show in the program".
    mark, box = page.execute_script(
        "const m = document.querySelector('#highlight mark.sad-error').getBoundingClientRect();"
        "const e = document.getElementById('code').getBoundingClientRect();"
        "return [[m.top, m.bottom, m.left, m.right], [e.top, e.bottom, e.left, e.right]]")
    assert box[0] <= mark[0] and mark[1] <= box[1] and box[2] <= mark[2] and mark[3] <= box[3], (mark, box)
    assert 0 <= mark[0] and mark[1] <= page.execute_script("return innerHeight")
    # The editor and its highlighted copy scrolled together (the mark is over its own text).
    scrolls = page.execute_script("const e = document.getElementById('code');"
                                  "return [e.scrollTop, document.querySelector('pre.highlight').scrollTop]")
    assert scrolls[0] > 0 and scrolls[0] == scrolls[1]


def first_sentence_of_comment(path: Path) -> str:
    """The example's opening comment, its lines joined, up to the end of its first sentence."""
    comment = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#") or not line.strip("# "):
            break
        comment.append(line.strip("# "))
    text = " ".join(comment)
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", text)]
    return text[:ends[0]] if ends else text


def test_the_pickers_labels_are_whole_sentences(page):
    labels = page.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#examples option')].map(o => [o.value, o.textContent]))")
    for path in EXAMPLES:
        label = labels[f"examples/{path.name}"]
        assert label == f"{path.stem}: {first_sentence_of_comment(path)}"
        assert re.search(r"[.!?]$", label), label
    assert labels["examples/chain_rule.sad"] == ("chain_rule: Seeing the chain rule on the chapter's reused square: "
                                                 "x is used twice by a product, the product twice by a sum.")


def test_the_default_program_fits_the_editor_at_desktop_width(page):
    assert page.execute_script("return innerWidth") == 1400
    default = editor_text(page)
    assert default.startswith("#")
    # No line runs past the editor's right edge: nothing to scroll sideways for.
    width, visible = page.execute_script("const e = document.getElementById('code'); return [e.scrollWidth, e.clientWidth]")
    assert width <= visible


# An unrolled loop: x ends 10,000 nodes deep, each node holding the one before.
UNROLLED = "let x = var 0.5\nfor i in 0..5000 {\n  let x = tanh(x) + 1\n}\n"


def severe_logs(browser) -> list[str]:
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


# A list a loop nests 30,000 deep (a moment's work since issue 36's item 2).
NESTED = "let L = [1]\nfor i in 0..30000 {\n  let L = [L]\n}\n"


def test_a_deep_graph_left_at_the_end_of_a_run_does_not_end_python(page):
    # Freed from its output down, one node inside the free of the next, such a graph ran the
    # browser's stack out (a fatal error of Pyodide) once the run's session was let go; so did
    # a deep list, freed from its outermost list in.
    set_program(page, UNROLLED + NESTED + 'print "deep"\n')
    run = run_and_wait(page)
    assert run["status"] == 0 and run["text"] == "deep\n"
    set_program(page, REUSED_SQUARE)
    run = run_and_wait(page)
    assert run["status"] == 0 and "x grad" in run["text"]
    assert page.execute_script("return window.playground.restarts") == 0
    assert severe_logs(page) == []


# A loss that sums 5,000 terms is a chain 5,000 additions deep (`sum` is a left fold).
LONG_SUM = "let w = var 1\nrepeat 3 {\n  let loss = sum([w * i for i in 0..5000])\n}\n"


def test_a_deep_graph_let_go_in_the_middle_of_a_run_does_not_end_python(page):
    # Binding x (or loss) again lets go of a graph thousands of nodes deep mid-run: each node
    # freed inside the free of its user ended Python in the page, until the engine's nodes
    # freed their operands one at a time there (issue 36).
    set_program(page, UNROLLED + 'let x = var 0\n' + LONG_SUM + 'print "after"\n')
    run = run_and_wait(page)
    assert run["status"] == 0 and run["text"] == "after\n"
    assert page.execute_script("return window.playground.restarts") == 0
    assert severe_logs(page) == []


def test_when_python_ends_mid_run_the_page_says_so_and_starts_a_fresh_one(page):
    from selenium.webdriver.support.ui import WebDriverWait

    # Binding L again lets go of a list 30,000 deep in the middle of the run, each list freed
    # inside the free of the one holding it: in the browser that runs the stack out inside
    # Python (the command has no such limit), which ends it. (Graphs no longer do: the test
    # before.)
    set_program(page, NESTED + 'let L = 0\nprint "after"\n')
    run = run_and_wait(page)
    assert run["crashed"] is True and run["status"] == 1 and run["error"]["kind"] == "internal-error"
    assert "after" not in run["text"]
    assert "Python ended" in element(page, "#status").text
    assert "Python ended" in element(page, "#output .notice").text
    WebDriverWait(page, 120).until(lambda _: page.execute_script("return document.body.dataset.ready") == "true")
    assert page.execute_script("return window.playground.restarts") == 1
    set_program(page, REUSED_SQUARE)
    run = run_and_wait(page)
    assert run["status"] == 0 and "x grad" in run["text"]
    # What the browser logged: Pyodide's fatal error, and nothing else.
    assert all("fatal error" in line or "call stack" in line for line in severe_logs(page))
