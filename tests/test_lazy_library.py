"""Start-up imports what a run uses when it uses it (issue 41, item 6): a family of built-ins
(a module of interpreter/library/) is imported on the first call of one of its built-ins,
so a short program loads none; and every built-in still works on its first call, from each
front end (the command, the REPL, a notebook, the playground's Python side), each in a fresh
process where nothing has loaded its family before."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from commands import ROOT
from scalarlang.interpreter.library.families import Later, LaterTensorsToo
from scalarlang.interpreter.library.registry import STATEMENT_FUNCTIONS, VALUE_FUNCTIONS

LIBRARY = "scalarlang.interpreter.library"
ENTRIES = {**VALUE_FUNCTIONS, **STATEMENT_FUNCTIONS}


def families_of(name: str) -> set[str]:
    """The modules of the library that hold ``name``'s compile function(s), as the registry says."""
    later = ENTRIES[name].later
    parts = [later.scalar, later.tensor] if isinstance(later, LaterTensorsToo) else [later]
    return {f"{LIBRARY}.{part.family}" for part in parts if isinstance(part, Later)}


EVERY_FAMILY = set().union(*(families_of(name) for name in ENTRIES))


def imported_after(code: str, cwd: Path = ROOT) -> set[str]:
    """The modules a fresh process has imported after running ``code``."""
    result = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def command_code(program: str, status: int = 0) -> str:
    return f"from scalarlang.front import cli\nassert cli.main(['-c', {program!r}]) == {status}"


# ---- a run loads the families it calls -----------------------------------------------------------


def test_every_entry_names_a_family_and_every_family_is_named():
    assert all(families_of(name) for name in ENTRIES), "an entry whose compile function is not found later"
    modules = {f"{LIBRARY}.{path.stem}" for path in (ROOT / "scalarlang" / "interpreter" / "library").glob("*.py")}
    helpers = {f"{LIBRARY}.{name}" for name in ("__init__", "registry", "families", "arguments", "csv_reader", "tensor_chain_rule")}
    assert EVERY_FAMILY == modules - helpers


def test_a_short_program_imports_no_family_of_built_ins():
    modules = imported_after(command_code("let x = var 2\nlet y = x * x + 1"))
    assert f"{LIBRARY}.registry" in modules
    assert not EVERY_FAMILY & modules
    # Nor `signal`, whose enums of every signal cost 1% of the start-up (the command sets its
    # handlers with the built-in `_signal`, as `interrupts` does).
    assert "signal" not in modules


def test_a_program_imports_the_families_of_the_built_ins_it_calls_and_no_other():
    modules = imported_after(command_code("let x = var 2\nlet y = exp(x)\nbackward(y)"))
    called = families_of("exp") | families_of("backward")
    assert called <= modules
    assert not (EVERY_FAMILY - called - {f"{LIBRARY}.logits", f"{LIBRARY}.tensor_functions"}) & modules
    # (tensor_forms imports logits' index drawer and tensor_functions' checks: named apart)


def test_a_call_its_entry_refuses_loads_no_family_and_one_that_compiles_loads_it():
    code = command_code("let x = var 2\nlet y = sqrt(x, x)", status=1)
    assert not EVERY_FAMILY & imported_after(code)  # (the registry refuses the call's shape first)
    code = command_code('let x = var 2\nlet y = sqrt("a")', status=1)  # (a kind checked as it runs)
    assert families_of("sqrt") <= imported_after(code)


# ---- every built-in works on its first call, from each front end --------------------------------

# Every built-in, called once with arguments it takes (checked against the registry below).
EVERY_BUILT_IN = """\
random_seed(1)
let x = var 2
let y = var 3
let z = exp(x) + tanh(x) + log(x) + detach(x) + grad(x) + value(x) + sqrt(x) + relu(x) + sigmoid(x) + abs(x) + floor(x)
let m = max(x, y) + min(x, y) + sum([x, y]) + mean([x, y]) + dot([x, y], [y, x]) + logsumexp([x, y]) + cross_entropy([x, y], 1)
let c = node_count(z) + edge_count(z) + len([x]) + len(flatten([x], [y])) + len(zip([x], [y])) + uniform(0, 1) + gauss(0, 1) + len(shuffle([x, y]))
let p = softmax([x, y])
let i = argmax([x, y]) + argmin([x, y]) + sample(p) + sum(one_hot(1, 3))
let t = tensor([[1, 2], [3, 4]])
let u = sum(reshape(transpose(t), 4)) + sum(zeros(2)) + sum(ones(2)) + sum(randn(2)) + sum(rand(2)) + len(shape(t))
let text = read_text("words.txt")
let vocab = chars(text)
let back = decode(encode(join(lines(text), "b"), vocab), vocab)
let rows = read_table("table.csv")
let k = jvp(z, x)
backward(z + m)
graph(z)
gradcheck(z, x)
explain(x)
paths(z, x)
walk(z)
tangents(z, x)
jacobian([z], [x, y])
let w = var tensor([1, 2])
vjp_check(sum(w * w))
draw(z, "z.dot")
plot([1, 2, 3])
fn f(a, b) = a - b
boundary(f, [[0, 1, 1], [1, 0, -1]])
print "done {back} {len(rows)}"
"""

FRONT_ENDS = {
    "command": "from scalarlang.front import cli\nassert cli.main(['every.sad']) == 0",
    "repl": (
        "import io\nfrom scalarlang.front.repl_core import ReplCore\n"
        "from scalarlang.render.text import Renderer, make_console\n"
        "stream = io.StringIO()\ncore = ReplCore(Renderer(make_console(stream, width=100, color='never')))\n"
        "for line in open('every.sad', encoding='utf-8'):\n    core.handle(line.rstrip('\\n'))\n"
        "print(stream.getvalue())"
    ),
    "notebook": (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\nip.run_line_magic('load_ext', 'scalarlang')\n"
        "ip.run_cell_magic('sad', '', open('every.sad', encoding='utf-8').read())"
    ),
    "playground": (
        f"import sys, json\nsys.path.insert(0, {str(ROOT / 'playground')!r})\nimport sad_playground\n"
        "done = sad_playground.run(open('every.sad', encoding='utf-8').read(), 'every.sad', print)\n"
        "assert done['status'] == 0 and done['error'] is None, done"
    ),
}


def test_the_program_of_every_built_in_calls_every_built_in():
    called = set(re.findall(r"\b(\w+)\(", EVERY_BUILT_IN))
    assert set(ENTRIES) <= called, f"add a call of {sorted(set(ENTRIES) - called)} to EVERY_BUILT_IN"


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_every_built_in_works_on_its_first_call(front_end, tmp_path):
    if front_end == "notebook":
        pytest.importorskip("IPython")
    (tmp_path / "every.sad").write_text(EVERY_BUILT_IN, encoding="utf-8")
    (tmp_path / "words.txt").write_text("ab\nba\n", encoding="utf-8")
    (tmp_path / "table.csv").write_text("1,2\n3,4\n", encoding="utf-8")
    # A fresh process: no family is loaded before its built-in's first call (the start-up
    # tests above), so each call below is the one that finds its compile function.
    code = FRONT_ENDS[front_end]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert "done abbba 2" in output
    assert "error[" not in output and "Traceback" not in output
    assert (tmp_path / "z.dot").read_text(encoding="utf-8").startswith("digraph")


# ---- the collector at start-up ------------------------------------------------------------------


def test_the_command_does_not_rescan_its_modules_with_the_collector_at_start_up():
    """The modules, lark and the parser's tables load with the collector paused and are then
    frozen out of its scans: before, a short program's run collected 56 times (5 of them the
    older generation, each scanning everything loaded so far), 4% of its start-up. Each
    collection is small: without the freeze after the parse, one scans all that the parse
    loaded (about 17,000 objects); with it, each scans under 1,000."""
    code = (
        "import gc, os, sys\n"
        "def report(phase, info):\n"
        "    if phase == 'start':\n"
        "        young = len(gc.get_objects(0)) if info['generation'] == 0 else -1\n"
        "        os.write(2, b'gen%d:%d\\n' % (info['generation'], young))\n"
        "gc.callbacks.append(report)\n"
        "sys.argv = ['scalarlang', '-c', 'let x = var 2\\nlet y = x * x']\n"
        "from scalarlang.front.cli import command\ncommand()"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    collections = [line.split(":") for line in result.stderr.split()]
    assert len(collections) <= 12 and {generation for generation, _ in collections} <= {"gen0"}, collections
    assert all(int(scanned) < 5_000 for _, scanned in collections), collections
