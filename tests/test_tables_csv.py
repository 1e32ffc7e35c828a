"""`read_table`: CSV files of numbers as tables (scalarlang/interpreter/csv_reader.py, issue 24).

Each rule with its exact error (kind, line, column, message); properties: any bytes give a
table or a `TableError` of the two kinds, the reader agrees with a plain model of the rules
written here, and what Python's csv module writes from finite floats reads back exactly.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import os
import re
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scalarlang.interpreter import csv_reader as tables
from scalarlang.interpreter.csv_reader import MAX_ROWS, TableError, read_table

NAME = "t.csv"
_WORK = tempfile.TemporaryDirectory(prefix="tables-csv-")


def _write(data: bytes) -> Path:
    path = Path(_WORK.name) / NAME
    path.write_bytes(data)
    return path


def read(data: bytes | str) -> list[tuple[float, ...]]:
    return read_table(_write(data.encode() if isinstance(data, str) else data), name=NAME)


def failure(data: bytes | str) -> TableError:
    with pytest.raises(TableError) as caught:
        read(data)
    return caught.value


def where(error: TableError) -> tuple[str, int | None, int | None, str]:
    return error.kind, error.line, error.column, error.message


# --- what a table is ---------------------------------------------------------------------


def test_a_first_line_of_names_is_skipped():
    assert read("x1,x2,y\n0.5,-1,1\n2,3e-2,-1\n") == [(0.5, -1.0, 1.0), (2.0, 0.03, -1.0)]


def test_a_first_line_of_numbers_is_the_first_row():
    assert read("1,2\n3,4\n") == [(1.0, 2.0), (3.0, 4.0)]


def test_one_name_among_numbers_makes_a_line_of_names():
    assert read("1,y\n3,4\n") == [(3.0, 4.0)]
    assert read('"x, first",y\n3,4\n') == [(3.0, 4.0)]  # its width is not checked


def test_a_line_of_names_is_only_the_first_line():
    assert where(failure("x1,x2\n1,2\nx1,x2\n")) == ("bad-table", 3, 1, "cell `x1` is not a number")
    assert where(failure("x1,x2\ny1,y2\n1,2\n")) == ("bad-table", 2, 1, "cell `y1` is not a number")


def test_empty_cells_nan_and_huge_numbers_on_line_1_are_errors_not_names():
    assert where(failure("1,,2\n")) == ("bad-table", 1, 3, "cell 2 is empty")
    assert where(failure("nan,1\n")) == ("bad-table", 1, 1, "cell `nan` is not a finite number")
    assert where(failure("1, 1e400\n")) == (
        "bad-table", 1, 3, "cell `1e400` is beyond the range of a float (about 1.8e308)"
    )


def test_rows_are_tuples_of_floats_and_a_width_of_one_is_a_table():
    rows = read("y\n1\n-2\n")
    assert rows == [(1.0,), (-2.0,)]
    assert all(type(row) is tuple and all(type(v) is float for v in row) for row in rows)


@pytest.mark.parametrize("data", ["", "\ufeff", "x1,x2,y\n", "x1,x2,y", "\n", "\n\n  \n\t\r\n", "x\n\n"])
def test_no_rows_is_the_empty_table(data):
    assert read(data) == []


# --- cells ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("0", 0.0), ("-0", -0.0), ("+1", 1.0), ("007", 7.0), ("0.5", 0.5), (".5", 0.5), ("5.", 5.0),
        ("-1.5e3", -1500.0), ("1E-3", 0.001), ("2e+2", 200.0), ("1_000", 1000.0), ("1_0.2_5e1_0", 10.25e10),
        ("1e-400", 0.0), ("1.7976931348623157e308", 1.7976931348623157e308), (" 7 ", 7.0), ("\t7\t", 7.0),
        ("  -.25  ", -0.25), ("0.1", 0.1),
    ],
)
def test_a_cell_is_a_finite_decimal_number_in_python_float_syntax(cell, value):
    rows = read(f"0,{cell}\n")
    assert rows == [(0.0, value)]
    assert math.copysign(1, rows[0][1]) == math.copysign(1, value)


@pytest.mark.parametrize(
    "cell",
    ["abc", "1 2", '"1"', "0x10", "1e", "e1", "--1", "1__0", "_1", "1_", "1._5", ".", "+", "1.2.3",
     "\u0661", "\uff11", "(1)", "1e5x", "1;2", "True", "1.2.3e4"],
)
def test_anything_else_is_not_a_number(cell):
    error = failure(f"0,0\n0,{cell}\n")
    assert where(error) == ("bad-table", 2, 3, f"cell `{cell}` is not a number")
    assert error.fields == {"file": NAME, "cell": cell, "cell_index": 2}


def test_blanks_other_than_spaces_and_tabs_are_not_around_a_number():
    for blank, shown in [("\u00a0", "\\xa0"), ("\x0b", "\\x0b"), ("\x0c", "\\x0c"), ("\x1f", "\\x1f")]:
        assert where(failure(f"0,0\n0,1{blank}\n")) == ("bad-table", 2, 3, f"cell `1{shown}` is not a number")


@pytest.mark.parametrize("cell", ["nan", "NaN", "-nan", "inf", "-inf", "+Infinity", "INF"])
def test_nan_and_inf_are_not_finite_numbers(cell):
    assert where(failure(f"0,0\n0,{cell}\n")) == ("bad-table", 2, 3, f"cell `{cell}` is not a finite number")


@pytest.mark.parametrize("cell", ["1e400", "-1e309", "1" * 400, "1.8e308"])
def test_numbers_beyond_the_float_range_are_errors(cell):
    shown = cell if len(cell) <= 30 else cell[:29] + "…"
    error = failure(f"0,0\n0,{cell}\n")
    assert where(error) == ("bad-table", 2, 3, f"cell `{shown}` is beyond the range of a float (about 1.8e308)")


def test_finite_numbers_whose_sum_overflows_are_a_row():
    assert read("1e308,1e308,-1e308\n") == [(1e308, 1e308, -1e308)]


@pytest.mark.parametrize(
    ("line", "column", "index"),
    [(",1,2", 1, 1), ("1,,2", 3, 2), ("1,2,", 5, 3), ("1, ,2", 3, 2), ("1,\t,2", 3, 2)],
)
def test_an_empty_cell_is_an_error_at_its_column(line, column, index):
    assert where(failure(f"0,0,0\n{line}\n")) == ("bad-table", 2, column, f"cell {index} is empty")


def test_the_column_is_the_cells_first_character_blanks_included():
    assert failure("1,2,3\n10,  20,  x\n").column == 9
    assert failure("1,2,3\n10,  20,\tx \n").column == 9


def test_the_first_bad_cell_from_the_left_is_reported():
    assert where(failure("0,0,0\n1,abc,nan\n")) == ("bad-table", 2, 3, "cell `abc` is not a number")


def test_cells_are_shown_short_and_printable():
    long = "x" * 100
    assert failure(f"1\n{long}\n").message == f"cell `{'x' * 29}…` is not a number"
    assert failure("1\n\x1b[31m\n").message == "cell `\\x1b[31m` is not a number"
    assert failure("1\n1\x0b\n").message == "cell `1\\x0b` is not a number"


# --- rows ----------------------------------------------------------------------------------


def test_a_row_with_too_few_cells_points_after_its_last_character():
    error = failure("x,y,z\n1,2,3\n4,5,6\n7,8\n")
    assert where(error) == ("bad-table", 4, 4, "row 3 has 2 cells, the first row has 3")
    assert error.fields == {"file": NAME, "row": 3, "cells": 2, "width": 3}
    assert failure("1,2\n3\n").message == "row 2 has 1 cell, the first row has 2"


def test_a_row_with_too_many_cells_points_at_the_first_extra_cell():
    assert where(failure("1,2\n3,4\n5, 6 ,7,8\n")) == ("bad-table", 3, 7, "row 3 has 4 cells, the first row has 2")


def test_crlf_lf_and_a_missing_last_newline_all_read():
    expected = [(1.0, 2.0), (3.0, 4.0), (5.0, 6.0)]
    assert read("1,2\r\n3,4\r\n5,6\r\n") == expected
    assert read("1,2\n3,4\r\n5,6") == expected
    assert read("1,2\r\n3,4\r\n5,6\r") == expected


def test_a_lone_cr_inside_a_line_is_part_of_a_cell():
    assert where(failure("1,2\n3,4\r5\n")) == ("bad-table", 2, 3, "cell `4\\r5` is not a number")


def test_a_byte_order_mark_is_skipped_and_not_counted_in_columns():
    assert read(b"\xef\xbb\xbfx1,x2\r\n1,2\r\n") == [(1.0, 2.0)]
    assert read(b"\xef\xbb\xbf1,2\n") == [(1.0, 2.0)]
    assert where(failure(b"\xef\xbb\xbf1,,2\n")) == ("bad-table", 1, 3, "cell 2 is empty")


def test_blank_lines_may_end_the_file():
    assert read("1,2\n3,4\n\n \n\t\r\n\r\n") == [(1.0, 2.0), (3.0, 4.0)]
    assert read("1,2\n\n  ") == [(1.0, 2.0)]


def test_a_blank_line_with_rows_after_it_is_an_error():
    assert where(failure("1,2\n\n3,4\n")) == ("bad-table", 2, 1, "line 2 is blank, and rows follow it")
    assert where(failure("1,2\r\n  \r\n3,4\r\n")) == ("bad-table", 2, 1, "line 2 is blank, and rows follow it")
    assert where(failure("\n1,2\n")) == ("bad-table", 1, 1, "line 1 is blank, and rows follow it")
    assert where(failure("x,y\n\n1,2\n")) == ("bad-table", 2, 1, "line 2 is blank, and rows follow it")


def test_columns_count_characters_not_bytes():
    assert failure("1,2\n\u00e9\u00e9,x\n").column == 1
    assert where(failure("1,2\n\u00e9,\u00e9x\n")) == ("bad-table", 2, 1, "cell `\u00e9` is not a number")
    assert where(failure("1,2\n1,\u00e9x\n")) == ("bad-table", 2, 3, "cell `\u00e9x` is not a number")


# --- limits --------------------------------------------------------------------------------


def test_at_most_max_rows_rows(monkeypatch):
    monkeypatch.setattr(tables, "MAX_ROWS", 3)
    assert read("x\n1\n2\n3\n\n") == [(1.0,), (2.0,), (3.0,)]
    error = failure("x\n1\n2\n3\n4\n")
    assert where(error) == ("bad-table", 5, 1, "the table has more than 3 rows")
    assert error.fields == {"file": NAME, "limit": 3}


def test_a_million_and_one_rows_are_too_many():
    assert MAX_ROWS == 1_000_000
    assert where(failure("1\n" * (MAX_ROWS + 1))) == (
        "bad-table", 1_000_001, 1, "the table has more than 1,000,000 rows"
    )


def test_at_most_max_cells_cells(monkeypatch):
    monkeypatch.setattr(tables, "MAX_CELLS", 6)
    assert read("1,2,3\n4,5,6\n") == [(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)]
    assert where(failure("1,2,3\n4,5,6\n7,8,9\n")) == ("bad-table", 3, 1, "the table has more than 6 cells")
    assert where(failure("1,2,3,4,5,6,7\n")) == ("bad-table", 1, 1, "line 1 has more than 6 cells")


def test_a_long_line_is_read_in_pieces():
    values = [float(i) / 7 for i in range(30_000)]
    line = ",".join(map(repr, values))
    assert len(line) > 4 * tables._PIECE
    assert read(f"{line}\n{line}\n") == [tuple(values)] * 2
    error = failure(f"{line}\n{line[:-1]}x\n")
    assert (error.line, error.column, error.fields["cell_index"]) == (2, line.rindex(",") + 2, 30_000)


# --- files that cannot be read ---------------------------------------------------------------


def test_a_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(TableError) as caught:
        read_table(tmp_path / "nope.csv")
    error = caught.value
    name = str(tmp_path / "nope.csv")
    assert where(error) == ("io-error", None, None, f"cannot read {name}: No such file or directory")
    assert error.fields == {"file": name}


def test_a_directory_is_an_io_error(tmp_path):
    with pytest.raises(TableError) as caught:
        read_table(tmp_path, name="data")
    assert where(caught.value) == ("io-error", None, None, "cannot read data: is a directory")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_an_io_error(tmp_path):
    path = tmp_path / "secret.csv"
    path.write_text("1\n")
    path.chmod(0)
    try:
        with pytest.raises(TableError) as caught:
            read_table(path, name="secret.csv")
    finally:
        path.chmod(0o600)
    assert where(caught.value) == ("io-error", None, None, "cannot read secret.csv: Permission denied")


def test_a_nul_in_the_path_is_an_io_error():
    with pytest.raises(TableError) as caught:
        read_table(Path("a\0b.csv"), name="a.csv")
    assert caught.value.kind == "io-error"


def test_a_nul_byte_makes_a_binary_file():
    error = failure(b"1,2\n\xc3\xa9,\x00\n")
    assert where(error) == ("io-error", 2, 3, "cannot read t.csv: is a binary file, not text (a NUL byte on line 2)")


def test_bytes_that_are_not_utf8_are_an_io_error():
    error = failure(b"x,y\n1,2\n3,\xe9\n")
    assert where(error) == ("io-error", 3, 3, "cannot read t.csv: is not valid UTF-8 (byte 10 on line 3)")
    assert error.fields == {"file": NAME, "byte": 10}
    assert failure(b"\xef\xbb\xbf\xc3\xa9,\xff\n").column == 3
    assert failure(b"\xef\xbb\xbf\xc3\xa9,\xff\n").kind == "io-error"


def test_a_file_larger_than_the_limit_is_not_read(monkeypatch):
    assert tables.MAX_BYTES == 64 * 1024 * 1024
    monkeypatch.setattr(tables, "MAX_BYTES", 1000)
    assert len(read("1\n" * 500)) == 500
    error = failure("1\n" * 501)
    assert where(error) == (
        "io-error", None, None, "cannot read t.csv: it is larger than the 1000 bytes a table may have (1,002 bytes)"
    )
    assert error.fields == {"file": NAME, "limit": 1000}


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_read_to_one_byte_past_the_limit(monkeypatch):
    monkeypatch.setattr(tables, "MAX_BYTES", 1000)
    with pytest.raises(TableError) as caught:
        read_table(Path("/dev/zero"), name="zero")
    assert where(caught.value) == ("io-error", None, None, "cannot read zero: it is larger than the 1000 bytes a table may have")


def test_the_name_defaults_to_the_path(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("1\nx\n")
    with pytest.raises(TableError) as caught:
        read_table(path)
    assert caught.value.fields["file"] == str(path)


def test_a_table_error_is_data():
    error = TableError("bad-table", "cell `x` is not a number", 2, 3, {"file": "t.csv"})
    assert (error.kind, error.message, error.line, error.column, error.fields) == (
        "bad-table", "cell `x` is not a number", 2, 3, {"file": "t.csv"}
    )
    assert str(error) == "cell `x` is not a number"
    assert isinstance(error, Exception)
    assert tables.TABLE_ERROR_KINDS == ("bad-table", "io-error")


def test_the_module_imports_only_the_standard_library():
    tree = ast.parse(Path(tables.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            imported.add(node.module or "")
    for module in imported:
        top = module.split(".")[0]
        assert top in sys.stdlib_module_names or module == "scalarlang.language", module


# --- properties ----------------------------------------------------------------------------

_FRAGMENTS = [
    b"1", b"-2.5", b"1e3", b".5", b"5.", b"1_0", b"0", b"nan", b"inf", b"-Infinity", b"1e400", b"-1e999",
    b"1e-400", b"x1", b"abc", b"", b" ", b"\t", b",", b",", b",", b",", b"\n", b"\n", b"\n", b"\r\n", b"\r",
    b"\xef\xbb\xbf", b"\x00", b"\xff", b"\xc3", b"\xc3\xa9", "\u0661".encode(), "\u00a0".encode(), b"\x0b",
    b"\x1c", b'"1"', b"1 2", b"\x1b[31m", b"1_", b"e", b".", b"+", b"-",
]
_fragment = st.one_of(
    st.sampled_from(_FRAGMENTS),
    st.floats().map(lambda x: repr(x).encode()),
    st.integers(-(10**400), 10**400).map(lambda n: str(n).encode()),
    st.binary(max_size=12),
    st.text(max_size=8).map(lambda s: s.encode("utf-8", "surrogatepass")),
)
_rows_of_numbers = st.lists(
    st.lists(st.sampled_from([b"1", b"-2.5", b" 3 ", b"4e2", b".5", b"nan", b"", b"x"]), min_size=1, max_size=4)
    .map(b",".join),
    max_size=8,
).map(b"\n".join)
malformed = st.one_of(
    st.lists(_fragment, max_size=60).map(b"".join),
    st.tuples(_rows_of_numbers, st.lists(_fragment, max_size=4).map(b"".join), _rows_of_numbers).map(b"".join),
)
_long_line = st.builds(
    lambda piece, count, tail: piece * count + tail,
    st.sampled_from([b"1,", b"9", b"x", b" ", b"1.5,-2,", b"\xc3\xa9"]),
    st.integers(1, 80_000),
    st.sampled_from([b"", b"\n", b"1\n", b"x", b"\x00", b"\xff", b"\n1\n"]),
)
junk = st.one_of(
    malformed,
    st.builds(lambda bom, body: bom + body, st.sampled_from([b"", b"\xef\xbb\xbf"]), malformed),
    st.builds(lambda head, line, rest: head + line + rest, _rows_of_numbers, _long_line, malformed),
    st.binary(max_size=2000),
)


@given(junk)
@example(b"\x00" * 10)
@example(b"1,2\n" + b"\xff" * 100)
@example(b"\xef\xbb\xbf")
@example(b"9" * 1000 + b"\n")
def test_any_bytes_give_a_table_or_a_table_error(data):
    try:
        rows = read(data)
    except TableError as error:
        assert error.kind in ("bad-table", "io-error")
        assert isinstance(error.message, str) and error.message
        assert error.message.isprintable()
        assert error.fields["file"] == NAME
        if error.kind == "bad-table":
            assert error.line >= 1 and error.column >= 1
        return
    assert isinstance(rows, list)
    assert len({len(row) for row in rows}) <= 1
    assert all(type(v) is float and math.isfinite(v) for row in rows for v in row)


# The rules, written out plainly: the reader must agree with this on every input.
_MODEL_NUMBER = re.compile(r"[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?", re.ASCII)
_MODEL_NON_FINITE = re.compile(r"[+-]?(inf|infinity|nan)", re.ASCII | re.IGNORECASE)


def _model_cell(cell: str) -> str:
    text = cell.strip(" \t")
    if not text:
        return "empty"
    if _MODEL_NUMBER.fullmatch(text):
        return "huge" if math.isinf(float(text)) else "number"
    if _MODEL_NON_FINITE.fullmatch(text):
        return "non-finite"
    return "text"


def model(data: bytes):
    """What the rules say of ``data``: the rows, or (kind, line, column, message) of the error;
    for an io-error just (kind, line)."""
    if b"\0" in data:
        return ("io-error", data[: data.index(b"\0")].count(b"\n") + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return ("io-error", data[: error.start].count(b"\n") + 1)
    lines = [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]
    if lines[-1] == "":
        lines.pop()
    while lines and not lines[-1].strip(" \t"):
        lines.pop()
    rows: list[tuple[float, ...]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip(" \t"):
            return ("bad-table", number, 1, f"line {number} is blank, and rows follow it")
        cells = line.split(",")
        kinds = [_model_cell(cell) for cell in cells]
        if number == 1 and "text" in kinds:
            continue
        columns = [1]
        for cell in cells:
            columns.append(columns[-1] + len(cell) + 1)
        for index, (cell, kind) in enumerate(zip(cells, kinds)):
            shown = cell.strip(" \t")
            shown = shown if len(shown) <= 30 else shown[:29] + "…"
            shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
            message = {
                "empty": f"cell {index + 1} is empty",
                "huge": f"cell `{shown}` is beyond the range of a float (about 1.8e308)",
                "non-finite": f"cell `{shown}` is not a finite number",
                "text": f"cell `{shown}` is not a number",
            }.get(kind)
            if message:
                return ("bad-table", number, columns[index], message)
        if rows and len(cells) != len(rows[0]):
            width = len(rows[0])
            column = columns[width] if len(cells) > width else len(line) + 1
            s = "" if len(cells) == 1 else "s"
            return ("bad-table", number, column, f"row {len(rows) + 1} has {len(cells)} cell{s}, the first row has {width}")
        rows.append(tuple(float(cell) for cell in cells))
    return rows


@given(malformed)
@example(b"x,\xc3\xa9\n1,2\n")
@example(b"1,2\r\r\n")
@example(b"1\n\r\n\r\r\n")
@example(b"1,\x0b2\n")
@example("1,2\n3,\u0661\n".encode())
def test_the_reader_agrees_with_the_rules_written_plainly(data):
    expected = model(data)
    try:
        got = read(data)
    except TableError as error:
        got = (error.kind, error.line) if error.kind == "io-error" else where(error)
    assert got == expected


@given(st.text(alphabet="0123456789_.eE+-", max_size=12))
@example("1_000.000_1e1_0")
@example("0_0")
def test_the_models_numbers_are_what_python_float_reads(text):
    try:
        float(text)
    except ValueError:
        reads = False
    else:
        reads = True
    assert reads == (_MODEL_NUMBER.fullmatch(text) is not None)


@given(st.text(alphabet="0123456789_.eE+-infatyINFATY \t\x0b\u0661", max_size=12))
def test_a_cell_reads_as_python_float_reads_it_or_is_an_error(cell):
    if not cell.strip(" \t"):
        assert read(f"0\n{cell}\n") == [(0.0,)]
        return
    try:
        rows = read(f"0\n{cell}\n")
    except TableError as error:
        assert (error.kind, error.line) == ("bad-table", 2)
        assert _model_cell(cell) != "number"
    else:
        assert _model_cell(cell) == "number"
        assert rows == [(0.0,), (float(cell),)]


_names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda s: not _MODEL_NON_FINITE.fullmatch(s))


@given(
    st.integers(1, 6).flatmap(
        lambda width: st.tuples(
            st.lists(st.tuples(*[st.floats(allow_nan=False, allow_infinity=False)] * width), min_size=1, max_size=20),
            st.none() | st.lists(_names, min_size=width, max_size=width),
        )
    ),
    st.sampled_from(["\r\n", "\n"]),
    st.booleans(),
)
def test_what_pythons_csv_module_writes_reads_back_exactly(table, line_end, bom):
    rows, header = table
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=line_end)
    if header is not None:
        writer.writerow(header)
    writer.writerows([[repr(value) for value in row] for row in rows])
    data = ("\ufeff" if bom else "") + buffer.getvalue()
    got = read(data.encode("utf-8"))
    assert [[repr(v) for v in row] for row in got] == [[repr(v) for v in row] for row in rows]
