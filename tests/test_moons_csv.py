"""examples/moons.csv, the data of the moons example (issue 24), and the script that made it."""

from __future__ import annotations

import csv
import importlib.util
import math
import subprocess
import sys
from pathlib import Path

from scalarlang.interpreter.library.csv_reader import read_table

ROOT = Path(__file__).resolve().parent.parent
MOONS = ROOT / "examples" / "moons.csv"
SCRIPT = ROOT / "examples" / "make_moons.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_moons", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_running_the_script_again_writes_the_same_bytes(tmp_path):
    out = tmp_path / "moons.csv"
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True, timeout=60)
    assert out.read_bytes() == MOONS.read_bytes()


def test_the_scripts_default_output_is_the_example(tmp_path):
    module = _script()
    assert module.OUTPUT == MOONS
    assert module.csv_text(module.moons()).encode("ascii") == MOONS.read_bytes()


def test_the_file_is_a_header_and_100_points_of_two_moons():
    lines = MOONS.read_bytes().decode("ascii").split("\n")
    assert lines[0] == "x1,x2,y" and lines[-1] == ""
    rows = list(csv.reader(lines[1:-1]))
    assert len(rows) == 100 and all(len(row) == 3 for row in rows)
    labels = [row[2] for row in rows]
    assert labels.count("-1") == 50 and labels.count("1") == 50
    for x1, x2, _ in rows:
        for cell in (x1, x2):
            value = float(cell)
            assert repr(value) == cell and round(value, 6) == value and math.isfinite(value)
    # the upper moon (-1) lies above the lower one (1) on average, and to its left
    upper = [(float(a), float(b)) for a, b, y in rows if y == "-1"]
    lower = [(float(a), float(b)) for a, b, y in rows if y == "1"]
    # (the means without noise: (0, 2/pi) and (1, 0.5 - 2/pi), as the half circles' centroids)
    assert 0.5 < sum(b for _, b in upper) / 50 < 0.75 and -0.25 < sum(b for _, b in lower) / 50 < 0.0
    assert -0.1 < sum(a for a, _ in upper) / 50 < 0.1 and 0.9 < sum(a for a, _ in lower) / 50 < 1.1


def test_read_table_reads_it_exactly():
    rows = read_table(MOONS)
    with open(MOONS, newline="") as file:
        expected = [tuple(float(cell) for cell in row) for row in list(csv.reader(file))[1:]]
    assert rows == expected and len(rows) == 100
