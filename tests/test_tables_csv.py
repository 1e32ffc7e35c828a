"""`read_table`: CSV files of numbers as tables (scalarlang/interpreter/library/csv_reader.py, issue 24).

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
from hypothesis import assume, example, given
from hypothesis import strategies as st

from scalarlang.interpreter.library import csv_reader as tables
from scalarlang.interpreter.library.csv_reader import MAX_ROWS, TableError, read_table

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
        ("1e-310", 1e-310), ("0e-400", 0.0), ("-0.000e-999", -0.0), ("1.7976931348623157e308", 1.7976931348623157e308), (" 7 ", 7.0), ("\t7\t", 7.0),
        ("  -.25  ", -0.25), ("0.1", 0.1),
    ],
)
def test_a_cell_is_a_finite_decimal_number_in_python_float_syntax(cell, value):
    rows = read(f"0,{cell}\n")
    assert rows == [(0.0, value)]
    assert math.copysign(1, rows[0][1]) == math.copysign(1, value)


@pytest.mark.parametrize(
    "cell",
    ["abc", "1 2", "1\"", "0x10", "1e", "e1", "--1", "1__0", "_1", "1_", "1._5", ".", "+", "1.2.3",
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


# --- quotes (issue 36) ----------------------------------------------------------------------


def test_quoted_numbers_are_numbers():
    assert read('"1","2"\n"3","4"\n') == [(1.0, 2.0), (3.0, 4.0)]
    assert read('"x","y"\r\n"1.5",-2\r\n') == [(1.5, -2.0)]
    assert read('1, "2" ,\t"3"\n') == [(1.0, 2.0, 3.0)]  # blanks around the quotes
    assert read('" 1 ",2\n') == [(1.0, 2.0)]  # and inside, as around any number


def test_a_quoted_name_may_hold_commas_quotes_and_line_ends():
    assert read('"x, first","say ""y"""\n1,2\n') == [(1.0, 2.0)]
    assert read('"x\ny",z\n1,2\n') == [(1.0, 2.0)]
    # Lines are counted in the file, the name's line end included.
    assert where(failure('"x\r\ny",z\n1,2\n3,q\n')) == ("bad-table", 4, 3, "cell `q` is not a number")


def test_a_quoted_cell_that_is_not_a_number_is_an_error_at_its_first_character():
    assert where(failure('1,2\n3, "a"\n')) == ("bad-table", 2, 3, "cell `a` is not a number")
    assert where(failure('1,2\n3,""\n')) == ("bad-table", 2, 3, "cell 2 is empty")
    assert where(failure('1,2\n"4\n5",6\n7,8\n')) == ("bad-table", 2, 1, "cell `4\\n5` is not a number")
    assert where(failure('1,2\n"1e400",6\n')) == (
        "bad-table", 2, 1, "cell `1e400` is beyond the range of a float (about 1.8e308)"
    )


def test_a_quote_that_is_not_closed_is_an_error_not_an_empty_table():
    error = failure('x,y\n1,"2\n3,4\n')
    assert where(error) == ("bad-table", 2, 3, "the quote that opens cell 2 is not closed")
    assert error.fields == {"file": NAME, "cell_index": 2}
    assert where(failure('"x,y\n1,2\n')) == ("bad-table", 1, 1, "the quote that opens cell 1 is not closed")
    assert where(failure('1,"2""\n')) == ("bad-table", 1, 3, "the quote that opens cell 2 is not closed")


def test_text_after_a_closing_quote_is_an_error():
    error = failure('1,"2"3\n')
    assert where(error) == ("bad-table", 1, 6, "cell 2 has `3` after its closing quote")
    assert error.fields == {"file": NAME, "cell": "3", "cell_index": 2}
    assert where(failure('"x" y,z\n1,2\n')) == ("bad-table", 1, 5, "cell 1 has `y` after its closing quote")


def test_quoted_rows_are_checked_as_any_other():
    assert where(failure('1,2\n"3","4","5"\n')) == ("bad-table", 2, 9, "row 2 has 3 cells, the first row has 2")
    assert where(failure('1,2,3\n"3\n","4"\n')) == ("bad-table", 2, 1, "cell `3\\n` is not a number")
    assert where(failure('1,2\n"3"\n')) == ("bad-table", 2, 4, "row 2 has 1 cell, the first row has 2")


def test_a_quote_inside_an_unquoted_cell_is_part_of_it():
    assert read('x"1,y\n1,2\n') == [(1.0, 2.0)]
    assert where(failure('1,2\n1,2"\n')) == ("bad-table", 2, 3, 'cell `2"` is not a number')


# --- numbers a float cannot hold (issue 36) ----------------------------------------------------


@pytest.mark.parametrize("cell", ["1e-400", "-2.5e-999", "0.0001e-321", "0." + "0" * 400 + "1", "1_0e-4_00"])
def test_a_number_a_float_would_round_to_zero_is_an_error(cell):
    # The same literal in a program is an error; read quietly as 0 it would change the data.
    shown = cell if len(cell) <= 30 else cell[:29] + "…"
    error = failure(f"0,0\n0,{cell}\n")
    assert where(error) == (
        "bad-table", 2, 3,
        f"cell `{shown}` is too small for a float: it would be 0 (the smallest positive float is about 4.9e-324)",
    )
    assert error.fields == {"file": NAME, "cell": cell, "cell_index": 2}
    assert failure(f"{cell},1\n").line == 1  # not a line of names


def test_zeros_written_as_zeros_are_numbers():
    assert read("0,-0,0e-999,0.000,00,+0.0e400\n") == [(0.0,) * 6]
    assert read("x\n0\n0\n1e-323\n") == [(0.0,), (0.0,), (1e-323,)]
    assert read('"0e5"," -0.0E-400 ",1e-5\n') == [(0.0, -0.0, 1e-5)]


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


def test_a_lone_cr_ends_a_line():
    # Files from old Mac programs and some spreadsheet exports end lines in CR alone (issue 36).
    assert read("x,y\r1,2\r3,4\r") == [(1.0, 2.0), (3.0, 4.0)]
    assert read("1,2\r3,4") == [(1.0, 2.0), (3.0, 4.0)]
    assert read("1,2\r\n3,4\r5,6\n7,8\r\r\n") == [(1.0, 2.0), (3.0, 4.0), (5.0, 6.0), (7.0, 8.0)]
    assert where(failure("1,2\n3,4\r5\n")) == ("bad-table", 3, 2, "row 3 has 1 cell, the first row has 2")
    assert where(failure("x,y\r1,2\r3,x\r")) == ("bad-table", 3, 3, "cell `x` is not a number")
    assert where(failure("1,2\r\r3,4\r")) == ("bad-table", 2, 1, "line 2 is blank, and rows follow it")


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
    # Patched: a small limit, the same code (the real 1,000,000 rows: the next test).
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
    # Patched: a small limit; the real one takes a table of millions of cells to reach.
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
    # Patched: a small limit; the real 64 MB takes a file of 64 MB to reach.
    monkeypatch.setattr(tables, "MAX_BYTES", 1000)
    assert len(read("1\n" * 500)) == 500
    error = failure("1\n" * 501)
    assert where(error) == (
        "io-error", None, None, "cannot read t.csv: it is larger than the 1000 bytes a table may have (1,002 bytes)"
    )
    assert error.fields == {"file": NAME, "limit": 1000}


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_not_read():
    # (issue 40: a device or a FIFO is an io-error at once; a FIFO blocked forever)
    with pytest.raises(TableError) as caught:
        read_table(Path("/dev/zero"), name="zero")
    assert where(caught.value) == ("io-error", None, None, "cannot read zero: is a device, not a regular file")


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
    b"1e-400", b"-0.0e-999", b"x1", b"abc", b"", b" ", b"\t", b",", b",", b",", b",", b"\n", b"\n", b"\n", b"\r\n", b"\r",
    b"\xef\xbb\xbf", b"\x00", b"\xff", b"\xc3", b"\xc3\xa9", "\u0661".encode(), "\u00a0".encode(), b"\x0b",
    b"\x1c", b'"1"', b'"', b'"', b'""', b'"1,2"', b'"x\n"', b' "2" ', b'"3"x', b"1 2", b"\x1b[31m", b"1_", b"e", b".", b"+", b"-",
]
_fragment = st.one_of(
    st.sampled_from(_FRAGMENTS),
    st.floats().map(lambda x: repr(x).encode()),
    st.integers(-(10**400), 10**400).map(lambda n: str(n).encode()),
    st.binary(max_size=12),
    st.text(max_size=8).map(lambda s: s.encode("utf-8", "surrogatepass")),
)
_rows_of_numbers = st.lists(
    st.lists(st.sampled_from([b"1", b"-2.5", b" 3 ", b"4e2", b".5", b"nan", b"", b"x", b'"5"', b"1e-999"]), min_size=1, max_size=4)
    .map(b",".join),
    max_size=8,
).flatmap(lambda lines: st.sampled_from([b"\n", b"\r\n", b"\r"]).map(lambda end: end.join(lines)))
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
        value = float(text)
        if math.isinf(value):
            return "huge"
        mantissa = re.split("[eE]", text)[0]
        return "tiny" if value == 0 and any(digit in mantissa for digit in "123456789") else "number"
    if _MODEL_NON_FINITE.fullmatch(text):
        return "non-finite"
    return "text"


def _model_shown(text: str) -> str:
    shown = text if len(text) <= 30 else text[:29] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)


class _ModelError(Exception):
    pass


def _model_record(text: str, at: int, line: int):
    """The record that starts at ``at`` (on ``line``), read a character at a time: its cells as
    (line, column, text), the line and column just after its last character, and where the
    next record starts; or _ModelError of (kind, line, column, message)."""
    cells = []
    column = 1
    index = 0
    while True:
        index += 1
        cell_line, cell_column = line, column
        scan = at
        while scan < len(text) and text[scan] in " \t":
            scan += 1
        if scan < len(text) and text[scan] == '"':
            scan += 1
            column += scan - at
            content = ""
            while True:
                if scan == len(text):
                    raise _ModelError(("bad-table", cell_line, cell_column, f"the quote that opens cell {index} is not closed"))
                char = text[scan]
                if char == '"' and text[scan + 1 : scan + 2] == '"':
                    content += '"'
                    scan += 2
                    column += 2
                elif char == '"':
                    scan += 1
                    column += 1
                    break
                else:
                    content += char
                    scan += 1
                    line, column = (line + 1, 1) if char == "\n" else (line, column + 1)
            while scan < len(text) and text[scan] in " \t":
                scan += 1
                column += 1
            if scan < len(text) and text[scan] not in ",\n":
                rest = ""
                while scan + len(rest) < len(text) and text[scan + len(rest)] not in ",\n":
                    rest += text[scan + len(rest)]
                rest = rest.rstrip(" \t")
                message = f"cell {index} has `{_model_shown(rest)}` after its closing quote"
                raise _ModelError(("bad-table", line, column, message))
            cells.append((cell_line, cell_column, content))
        else:
            content = ""
            scan = at
            while scan < len(text) and text[scan] not in ",\n":
                content += text[scan]
                scan += 1
            column += len(content)
            cells.append((cell_line, cell_column, content))
        if scan < len(text) and text[scan] == ",":
            at = scan + 1
            column += 1
            continue
        return cells, (line, column), scan + 1


def model(data: bytes):
    """What the rules say of ``data``: the rows, or (kind, line, column, message) of the error;
    for an io-error just (kind, line)."""
    if b"\0" in data:
        return ("io-error", data[: data.index(b"\0")].count(b"\n") + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return ("io-error", data[: error.start].count(b"\n") + 1)
    # A line ends in LF, CRLF or CR.
    text = re.sub("\r\n?", "\n", text.removeprefix("\ufeff"))
    rows: list[tuple[float, ...]] = []
    at, line = 0, 1
    while at < len(text):
        physical = text[at:].split("\n")[0]
        if not physical.strip(" \t"):
            if not text[at:].strip(" \t\n"):
                break
            return ("bad-table", line, 1, f"line {line} is blank, and rows follow it")
        try:
            cells, (end_line, end_column), at = _model_record(text, at, line)
        except _ModelError as error:
            return error.args[0]
        first, line = line == 1, end_line + 1
        kinds = [_model_cell(cell) for _, _, cell in cells]
        if first and "text" in kinds:
            continue
        for index, ((cell_line, column, cell), kind) in enumerate(zip(cells, kinds)):
            shown = _model_shown(cell.strip(" \t"))
            message = {
                "empty": f"cell {index + 1} is empty",
                "huge": f"cell `{shown}` is beyond the range of a float (about 1.8e308)",
                "tiny": f"cell `{shown}` is too small for a float: it would be 0 (the smallest positive float is about 4.9e-324)",
                "non-finite": f"cell `{shown}` is not a finite number",
                "text": f"cell `{shown}` is not a number",
            }.get(kind)
            if message:
                return ("bad-table", cell_line, column, message)
        if rows and len(cells) != len(rows[0]):
            width = len(rows[0])
            place = cells[width][:2] if len(cells) > width else (end_line, end_column)
            s = "" if len(cells) == 1 else "s"
            return ("bad-table", *place, f"row {len(rows) + 1} has {len(cells)} cell{s}, the first row has {width}")
        rows.append(tuple(float(cell) for _, _, cell in cells))
    return rows


@given(malformed)
@example(b"x,\xc3\xa9\n1,2\n")
@example(b"1,2\r\r\n")
@example(b'"0e5",1e-400\n')
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
# Names a spreadsheet may write: with commas, quotes, blanks and line ends (the csv module
# quotes them), at least one letter so that the line is a line of names.
_odd_names = st.builds(
    lambda before, name, after: before + name + after,
    st.text(alphabet=' ,"\n\r\t;', max_size=3), _names, st.text(alphabet=' ,"\n\r', max_size=3),
)


@given(
    st.integers(1, 6).flatmap(
        lambda width: st.tuples(
            st.lists(st.tuples(*[st.floats(allow_nan=False, allow_infinity=False)] * width), min_size=1, max_size=20),
            st.none() | st.lists(_names | _odd_names, min_size=width, max_size=width),
        )
    ),
    st.sampled_from(["\r\n", "\n", "\r"]),
    st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]),
    st.booleans(),
)
@example(table=([(1.0, 2.0)], ["x, first", 'say "y"']), line_end="\r", quoting=csv.QUOTE_ALL, bom=False)
def test_what_pythons_csv_module_writes_reads_back_exactly(table, line_end, quoting, bom):
    """Every row, whatever the line ends and the quoting (issue 36: a file of bare CRs, or of
    quoted cells, read as an empty table)."""
    rows, header = table
    # Quoting only where it must, the csv module quotes a name for the characters of its own
    # line end only: a CR in a name of a file of LFs (or an LF in one of CRs) is written bare,
    # and ends a line for any reader of CSV, the csv module's own included.
    bare = {"\r", "\n"} - set(line_end)
    assume(quoting != csv.QUOTE_MINIMAL or header is None or not any(set(name) & bare for name in header))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=line_end, quoting=quoting)
    if header is not None:
        writer.writerow(header)
    writer.writerows([[repr(value) for value in row] for row in rows])
    data = ("\ufeff" if bom else "") + buffer.getvalue()
    got = read(data.encode("utf-8"))
    assert [[repr(v) for v in row] for row in got] == [[repr(v) for v in row] for row in rows]


@given(
    st.lists(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=2, max_size=2), max_size=10),
    st.sampled_from(["excel", "excel-tab", "unix"]),
)
def test_a_spreadsheets_csv_reads_back_or_fails_never_shorter(rows, dialect):
    """The csv module's own dialects; a tab-separated file is not a table of commas, but an
    error, never a table with fewer rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, dialect=dialect)
    writer.writerow(["x", "y"])
    writer.writerows([[repr(value) for value in row] for row in rows])
    try:
        got = read(buffer.getvalue())
    except TableError as error:
        assert dialect == "excel-tab" and rows and error.kind == "bad-table", error
        return
    assert got == [tuple(row) for row in rows]


# --- through the language (issue 36's reproducers) ----------------------------------------------


@pytest.mark.parametrize(
    ("data", "rows"),
    [
        (b"x,y\r1,2\r3,4\r", [[1.0, 2.0], [3.0, 4.0]]),
        (b'"1","2"\r\n"3","4"\r\n', [[1.0, 2.0], [3.0, 4.0]]),
        (b'"x, first",y\n"0.5",-1\n', [[0.5, -1.0]]),
    ],
)
def test_a_program_reads_every_row(tmp_path, data, rows):
    import scalarlang

    (tmp_path / "t.csv").write_bytes(data)
    session = scalarlang.Session()
    result = session.run(f'let t = read_table("{(tmp_path / "t.csv").as_posix()}")')
    assert result.ok, result.text
    assert [[node.value for node in row] for row in session["t"]] == rows


def test_a_program_gets_a_bad_table_for_a_number_rounded_to_zero(tmp_path):
    import scalarlang

    (tmp_path / "t.csv").write_bytes(b"x,y\n1,2\n1e-400,2\n")
    session = scalarlang.Session()
    result = session.run(f'let t = read_table("{(tmp_path / "t.csv").as_posix()}")')
    assert result.error is not None and result.error.kind == "bad-table", result.text
    assert (result.error.fields["line_in_file"], result.error.fields["column_in_file"]) == (3, 1)
    assert "t" not in session
