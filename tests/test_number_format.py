"""The one number formatter in its two styles (issue 35, item 1): short by default (whole
numbers as integers, others with 12 significant digits, no trailing zeros) and N decimals with
``--digits N`` (``--digits 12``: the chapter's style, byte for byte); the tables align numbers
on the decimal point; and every example prints the same numbers in both styles."""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalarlang
from commands import run_program_in_process
from conftest import SLOW_EXAMPLES
from sessions import script_output
from scalarlang.engine.numbers import digits, format_count, format_exponent, format_number
from scalarlang.front.repl_core import ReplCore
from scalarlang.front.runner import read_source
from scalarlang.language.source import Source
from scalarlang.render.text import Renderer, make_console

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))


# ---- the short style, the default -------------------------------------------------------


@pytest.mark.parametrize(
    "value, text",
    [
        (12345.0, "12345"),
        (8.0, "8"),
        (0.0, "0"),
        (-0.0, "-0"),
        (0.5, "0.5"),
        (-0.25, "-0.25"),
        (0.9093643492046, "0.909364349205"),
        (1.687904417046e-07, "1.68790441705e-07"),
        (0.1 + 0.2, "0.3"),
        (999999999999999.0, "999999999999999"),
        (1e15, "1e+15"),
        (1.5e307, "1.5e+307"),
        (5e-324, "4.94065645841e-324"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (math.nan, "nan"),
    ],
)
def test_short_numbers(value, text):
    assert format_number(value) == text


def test_short_exponent_style_is_the_short_number():
    assert format_exponent(1e-9) == "1e-09"
    assert format_exponent(0.0) == "0"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_short_number_reads_back_to_twelve_significant_digits(value):
    text = format_number(value)
    assert float(text) == pytest.approx(value, rel=5e-12, abs=0)
    assert text == text.strip() and not re.search(r"\.\d*0(e|$)", text)  # no trailing zeros
    if value.is_integer() and abs(value) < 1e15:
        assert text.lstrip("-").isdigit() and float(text) == value  # whole: exact


def test_counts_are_whole_in_both_styles():
    assert format_count(100.0) == "100"
    with digits(12):
        assert format_count(100.0) == "100"


@pytest.mark.parametrize("style", [[], ["--digits", "3"], ["--digits", "17"]])
def test_a_count_prints_whole_however_large_in_the_commands_output(style):
    # a loop index past 1e15 printed `1e+15` (issue 40); `{i}`, a list and a value line too
    program = (
        "for i in 999999999999999..1000000000000002 { print i, \"{i}\", [i] }\n"
        "let n = 2 ** 70\nfor k in n..n + 2 ** 18 {\n  print k\n  break\n}\n"
    )
    result = run_program_in_process(program, *style)
    assert result.stdout.splitlines() == [
        "999999999999999 999999999999999 [999999999999999]",
        "1000000000000000 1000000000000000 [1000000000000000]",
        "1000000000000001 1000000000000001 [1000000000000001]",
        str(2**70),
    ], result.stderr


def test_digits_out_of_range_is_refused():
    with pytest.raises(ValueError):
        with digits(18):
            pass


# ---- where the style is chosen ------------------------------------------------------------


def test_the_python_api_takes_digits():
    assert scalarlang.run("print 12345, 1/3").text == "12345 0.333333333333\n"
    assert scalarlang.run("print 12345, 1/3", digits=2).text == "12345.00 0.33\n"
    session = scalarlang.Session(digits=12)
    assert session.run("print 8").text == "8.000000000000\n"
    with pytest.raises(ValueError):
        scalarlang.Session(digits=-1)


def _repl(*inputs: str) -> str:
    file = io.StringIO()
    core = ReplCore(Renderer(make_console(file, width=100, color="never")))
    for text in inputs:
        core.handle(text)
    return file.getvalue()


def test_the_repl_digits_command():
    text = _repl("let V = var 9", ":vars", ":digits 12", ":vars", ":digits", ":vars", ":digits x")
    lines = text.splitlines()
    assert lines[0] == "V = 9 (variable, gradient 0)"
    assert "V = 9.000000000000 (variable, gradient 0.000000000000)" in lines
    assert lines.count("V = 9 (variable, gradient 0)") == 2
    assert "`:digits` takes a whole number from 0 to 17" in text


def test_the_command_takes_digits():
    program = "let x = var 3\nprint x * x, x / 7\n"
    plain = subprocess.run([sys.executable, "-m", "scalarlang", "-c", program], capture_output=True, text=True)
    fixed = subprocess.run(
        [sys.executable, "-m", "scalarlang", "--digits", "12", "-c", program], capture_output=True, text=True
    )
    assert plain.stdout == "9 0.428571428571\n"
    assert fixed.stdout == "9.000000000000 0.428571428571\n"
    bad = subprocess.run([sys.executable, "-m", "scalarlang", "--digits", "99", "-c", "1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "digits" in bad.stderr


def test_tables_align_numbers_on_the_decimal_point():
    text = scalarlang.run("let x = var 0.5\nlet y = x * 100 + 3.25\nbackward(y)", width=100).text
    rows = [line for line in text.splitlines() if re.match(r"\d  ", line)][:5]
    header = text.splitlines()[2]
    column = header.index("value") + len("value")  # right edge of the value column
    points = set()
    for row in rows:
        cell = row[: column + 4].rstrip()
        number = cell.split()[-1]
        start = cell.rindex(number)
        points.add(start + (number.index(".") if "." in number else len(number)))
    assert len(points) == 1, rows


# ---- every example: only the numbers differ between the styles ------------------------------

_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)")


# Examples run with fewer training steps here (`let steps = 11`, the documented way: steps 0
# and 10 printed, the pictures and the checks after the loop as in the full run).
FEWER_STEPS = {"moons_tensor": ("let steps = 100\n", "let steps = 11\n")}


def _output(path: Path, decimals: int | None) -> str:
    source = read_source(str(path.relative_to(ROOT)))
    if path.stem in FEWER_STEPS:
        full, fewer = FEWER_STEPS[path.stem]
        assert source.text.count(full) == 1, f"{path.name} changed: update FEWER_STEPS"
        source = Source(source.name, source.text.replace(full, fewer), source.folder)
    with digits(decimals):
        # wide enough that no table is split and no message wrapped, in either style
        return script_output(source, width=2000)[1]


# Not the long examples (conftest's SLOW_EXAMPLES: 100 and 300 training steps, twice over, 40 s)
# nor xor (4,000 steps, twice over, 3 s): their lines are the loss lines, tables and names the
# others print too (fit_line and neuron train and print their losses); moons_tensor runs 11 of
# its 100 steps (FEWER_STEPS: 1 s of CPU less).
@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.stem not in SLOW_EXAMPLES | {"xor"}], ids=lambda path: path.stem)
def test_an_example_prints_the_same_numbers_in_both_styles(path: Path, monkeypatch):
    monkeypatch.chdir(ROOT)
    short, fixed = _output(path, None), _output(path, 12)
    short_words, fixed_words = (
        [word for word in text.split() if word.strip("─")] for text in (short, fixed)  # rules' widths differ
    )
    assert len(short_words) == len(fixed_words)
    for a, b in zip(short_words, fixed_words):
        if a == b:
            continue
        pieces_a, pieces_b = _NUMBER.split(a), _NUMBER.split(b)
        assert pieces_a == pieces_b, (a, b)  # the same text around the numbers
        for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
            assert float(x) == pytest.approx(float(y), rel=1e-11, abs=1e-12), (a, b)


# ---- the chapter's style: --digits 12 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, text",
    [
        (0.0, "0.000000000000"),
        (8.0, "8.000000000000"),
        (-8.0, "-8.000000000000"),
        (1.587431271430, "1.587431271430"),
        (1e-6, "0.000001000000"),
        (-1e-6, "-0.000001000000"),
        (9.99e-7, "9.990000000000e-7"),
        (2.5e-7, "2.500000000000e-7"),
        (-2.5e-7, "-2.500000000000e-7"),
        (999999999999999.9, "999999999999999.875000000000"),
        (1e15, "1.000000000000e15"),
        (-1e15, "-1.000000000000e15"),
        (1.5e307, "1.500000000000e307"),
        (5e-324, "4.940656458412e-324"),
        (123456.789, "123456.789000000004"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (math.nan, "nan"),
    ],
)
def test_format_number_with_twelve_decimals(value, text):
    with digits(12):
        assert format_number(value) == text


@pytest.mark.parametrize(
    "value, text",
    [
        (0.0, "0.000000000000e0"),
        (1e-9, "1.000000000000e-9"),
        (8.0, "8.000000000000e0"),
        (1.5e307, "1.500000000000e307"),
        (-2.5e-7, "-2.500000000000e-7"),
        (12345.0, "1.234500000000e4"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (math.nan, "nan"),
    ],
)
def test_format_exponent_with_twelve_decimals(value, text):
    with digits(12):
        assert format_exponent(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_format_number_shape_with_twelve_decimals(value):
    with digits(12):
        text = format_number(value)
    magnitude = abs(value)
    if magnitude == 0.0 or 1e-6 <= magnitude < 1e15:
        assert "e" not in text
        whole, fraction = text.lstrip("-").split(".")
        assert len(fraction) == 12 and whole.isdigit()
    else:
        mantissa, exponent = text.split("e")
        assert "+" not in exponent and not exponent.lstrip("-").startswith("0")
        figures = mantissa.lstrip("-")
        assert len(figures) == 14 and figures[1] == "." and figures[0] in "123456789"
    # the text reads back as (a 12-decimal rounding of) the value
    assert float(text) == pytest.approx(value, rel=1e-11, abs=5e-13)
    if value != 0.0:
        assert text.startswith("-") == (value < 0)


