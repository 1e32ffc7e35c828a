"""Shell completion, the console's choices, and importing only what a job needs
(issue 12)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys

import pytest

from commands import ROOT, needs_command
from scalarlang.front import cli
from scalarlang.render.text import DEFAULT_WIDTH, make_console


# ---- shell completion ------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_option(shell, capsys):
    assert cli.main(["--print-completion", shell]) == 0
    script = capsys.readouterr().out
    for option in ("--json", "--width", "--color", "--history-file", "--demo", "--print-completion"):
        assert option.lstrip("-") in script, option
    assert "always" in script and "never" in script  # the choices of --color


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_options_and_choices(tmp_path, capsys):
    assert cli.main(["--print-completion", "bash"]) == 0
    script = tmp_path / "scalarlang.bash"
    script.write_text(capsys.readouterr().out, encoding="utf-8")

    def complete(*words: str) -> list[str]:
        line = " ".join(("scalarlang",) + words)
        program = (
            f"source '{script}'; COMP_WORDS=(scalarlang {' '.join(words)}); COMP_CWORD={len(words)};"
            f" COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; _shtab_scalarlang; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        )
        result = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    assert complete("--col") == ["--color"]
    assert complete("--color", "") == ["auto", "always", "never"]
    assert complete("--print-completion", "f") == ["fish"]


def test_a_completion_for_an_unknown_shell_is_a_usage_error(capsys):
    assert cli.main(["--print-completion", "cmd"]) == 2
    assert "invalid choice" in capsys.readouterr().err


# ---- the console: piped output never depends on the environment -------------------------------


NOISY = {"COLUMNS": "40", "LINES": "10", "TERM": "dumb", "NO_COLOR": "1", "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}


def test_a_piped_console_is_plain_and_exactly_its_width_whatever_the_environment(monkeypatch):
    for name, value in NOISY.items():
        monkeypatch.setenv(name, value)
    for width in (None, 60, 100):
        console = make_console(io.StringIO(), width=width, color="auto")
        assert console.width == (width or DEFAULT_WIDTH)
        assert console.color_system is None and not console.is_terminal


def test_color_always_is_colour_with_a_fixed_width_even_for_a_dumb_terminal(monkeypatch):
    monkeypatch.setenv("TERM", "dumb")
    console = make_console(io.StringIO(), width=77, color="always")
    assert console.width == 77 and console.color_system is not None


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "environ, coloured",
    [({}, True), ({"NO_COLOR": "1"}, False), ({"NO_COLOR": "true"}, False), ({"NO_COLOR": "yes"}, False),
     ({"NO_COLOR": ""}, True), ({"TERM": "dumb"}, False), ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True),
     ({"TERM": "dumb", "FORCE_COLOR": "3"}, True), ({"NO_COLOR": "1", "TERM": "dumb", "FORCE_COLOR": "1"}, True)],
)
def test_on_a_terminal_the_colour_follows_the_environment(environ, coloured):
    console = make_console(FakeTerminal(), width=80, color="auto", environ=environ)
    assert (console.color_system is not None) is coloured
    assert make_console(FakeTerminal(), width=80, color="never", environ={"FORCE_COLOR": "1"}).color_system is None


def test_rich_private_arguments_are_not_used():
    source = (ROOT / "scalarlang" / "render" / "text.py").read_text(encoding="utf-8")
    assert "_environ" not in source


# ---- start-up: import only what the job needs ----------------------------------------------------


def _imported(code: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_importing_the_package_loads_no_engine():
    modules = _imported("import scalarlang")
    assert not {"scalarlang.engine.scalar", "scalarlang.interpreter.core", "rich", "lark", "prompt_toolkit"} & modules


def test_the_package_exports_load_on_first_use():
    import scalarlang

    assert scalarlang.Scalar.__module__ == "scalarlang.engine.scalar"
    assert set(scalarlang.__all__) <= set(dir(scalarlang))
    for name in scalarlang.__all__:
        assert getattr(scalarlang, name) is not None
    with pytest.raises(AttributeError):
        scalarlang.no_such_name  # noqa: B018


def test_help_and_version_load_neither_the_engine_nor_rich_nor_lark():
    for args in (["--version"], ["--help"]):
        code = f"from scalarlang.front import cli\nassert cli.main({args!r}) == 0"
        modules = _imported(code)
        assert not {"scalarlang.engine.scalar", "scalarlang.interpreter.core", "rich", "lark", "prompt_toolkit", "shtab"} & modules


def test_a_json_script_loads_neither_rich_nor_prompt_toolkit():
    code = "from scalarlang.front import cli\ncli.main(['--json', '-c', 'let x = var 2'])"
    modules = _imported(code)
    assert "scalarlang.interpreter.core" in modules
    assert not {"rich", "prompt_toolkit", "shtab", "argcomplete"} & modules


def test_a_text_script_loads_no_prompt_toolkit():
    modules = _imported("from scalarlang.front import cli\ncli.main(['-c', 'let x = var 2'])")
    assert not {"prompt_toolkit", "shtab"} & modules


def test_a_script_that_shows_nothing_loads_neither_rich_nor_help_nor_pictures():
    """Issue 41: start-up within 60 ms of Python's own. What a run does not show is not loaded:
    the consoles (rich) wait for the first outcome, --help's texts for --help."""
    modules = _imported("from scalarlang.front import cli\nassert cli.main(['-c', 'let x = var 2']) == 0")
    assert "scalarlang.interpreter.core" in modules
    unused = {"rich", "scalarlang.render.text", "scalarlang.front.help_layout", "scalarlang.pictures",
              "scalarlang.pictures.charts", "IPython", "prompt_toolkit"}
    assert not unused & modules


def test_a_short_program_loads_no_forward_mode_gradient_check_file_reader_or_hints():
    """Issue 41, item 6: a built-in's engine loads when the built-in runs, the hints and the
    `did you mean` matcher when an error asks for them."""
    code = "from scalarlang.front import cli\nassert cli.main(['-c', 'let x = var 2']) == 0"
    modules = _imported(code)
    unused = {"scalarlang.engine.forward", "scalarlang.engine.tensor_gradcheck", "scalarlang.engine.replay",
              "scalarlang.interpreter.library.csv_reader", "scalarlang.language.hints", "difflib"}
    assert not unused & modules
    assert unused & _imported(code.replace("let x = var 2", "let x = var 2\\nlet y = exq(x)").replace("== 0", "== 1"))


def test_a_script_loads_rich_when_it_first_shows_something(capsys):
    program = "let x = var 2\nprint x"
    code = f"from scalarlang.front import cli\nassert cli.main(['-c', {program!r}]) == 0"
    assert "rich" in _imported(code)
    assert cli.main(["-c", "let x = var 2\nlet y = nope\nprint x"]) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err.splitlines()[0]) == ("", "error[undefined-name]: `nope` is not defined")


@needs_command
def test_python_dash_m_is_the_command():
    result = subprocess.run([sys.executable, "-m", "scalarlang", "-c", "print 1"], capture_output=True, timeout=60)
    assert (result.returncode, result.stdout) == (0, b"1\n")


def test_importing_the_library_leaves_sigint_alone():
    # Compared with the handler the process started with: a process started in the background
    # by a shell starts with SIGINT ignored, not with Python's default handler.
    code = (
        "import signal\nbefore = signal.getsignal(signal.SIGINT)\n"
        "import scalarlang, scalarlang.front.cli\nprint(signal.getsignal(signal.SIGINT) is before, before is not None)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "True True"
