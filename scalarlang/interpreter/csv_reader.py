"""Tables from CSV files of numbers: the reader behind the language's ``read_table("FILE.csv")``.

A pure module (the standard library only): `read_table` returns the rows as tuples of floats,
or raises `TableError`, data for the interpreter to turn into a diagnostic. The rules:

- The file is UTF-8, with or without a byte-order mark; lines end in LF or CRLF. It is read in
  one go, after its size is checked: more than `MAX_BYTES` is an ``io-error``, and so is a
  missing or unreadable file, a directory, bytes that are not UTF-8 or a NUL byte (a binary
  file).
- Cells are separated by commas. A cell is a finite decimal number in Python's float syntax
  (``-1``, ``0.5``, ``.5``, ``1e-3``, ``1_000``), with blanks (spaces, tabs) around it allowed.
  Anything else is a ``bad-table`` error at the cell: an empty cell, text, ``nan``, ``inf``,
  a number beyond the range of a float (``1e400``), digits other than ASCII ones, quotes.
- The first line is a line of names, and skipped, when one of its cells is text that is not
  a number (``x1,x2,y``); a first line of numbers is the first row. An empty cell, ``nan`` or
  ``1e400`` alone does not make a line of names: they are errors on line 1.
- Every row has as many cells as the first row (the line of names is not counted).
- Blank lines (nothing but blanks) may end the file; a blank line with rows after it is an
  error. An empty file, or one with only a line of names, is the empty table.
- At most `MAX_ROWS` rows and `MAX_CELLS` cells in all, each found before more is read.

Lines and columns are 1-based and count characters (not bytes; the byte-order mark is not
counted); an error in a cell points at the cell's first character (a blank before its number
included), a row with too few cells at the character after its last.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, Iterator

BAD_TABLE = "bad-table"
IO_ERROR = "io-error"
TABLE_ERROR_KINDS = (BAD_TABLE, IO_ERROR)

MAX_ROWS = 1_000_000
# The result of a full table is at most about 32 bytes a cell (a float and its pointer):
# 320 MB at this limit. The file size bounds the text read in one go.
MAX_CELLS = 10_000_000
MAX_BYTES = 64 * 1024 * 1024

# A number as Python's float() reads a decimal literal, in ASCII: digits with single
# underscores between them, an optional point, an optional exponent. Possessive quantifiers:
# no backtracking, so a cell of any length is matched in one pass.
_DIGITS = r"[0-9](?:_?[0-9])*+"
_NUMBER = rf"[+-]?+(?:{_DIGITS}(?:\.(?:{_DIGITS})?+)?+|\.{_DIGITS})(?:[eE][+-]?+{_DIGITS})?+"
_NUMBER_CELL = re.compile(_NUMBER)
# ASCII characters float() takes as blanks around a number, besides space and tab (and CR,
# which is one only where it does not end a line).
_ODD_BLANKS = "\x0b\x0c\x1c\x1d\x1e\x1f"
_ODD_IN_LINE = re.compile(r"[\r\x0b\x0c\x1c-\x1f]")
# Lines longer than this are converted a piece at a time, so that only one piece's cells are
# ever strings at once.
_PIECE = 1 << 16
# What float() reads as a non-finite value: not a name, but a number that is not finite.
_NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE | re.ASCII)
_BLANKS = " \t"
# The rest of the text after a blank line: more blank lines, each with its optional CR.
_BLANK_TO_END = re.compile(r"(?:[ \t]*+\r?+\n)*+[ \t]*+\r?+\Z")
_INF = float("inf")
_SHOWN_LENGTH = 30


class TableError(Exception):
    """Why a file is not a table: ``kind`` (``bad-table`` or ``io-error``), ``message``, the
    1-based ``line`` and ``column`` in the file (``None`` where no place applies) and the
    error's own ``fields`` (``file`` always; others by error, snake_case)."""

    def __init__(
        self, kind: str, message: str, line: int | None = None, column: int | None = None,
        fields: dict[str, Any] | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.fields = dict(fields or {})

    def __repr__(self) -> str:
        return f"TableError({self.kind!r}, {self.message!r}, line={self.line!r}, column={self.column!r})"


def read_table(path: Path, name: str | None = None) -> list[tuple[float, ...]]:
    """The rows of the CSV file at ``path``, or `TableError`. ``name`` is the file as messages
    name it (default: ``str(path)``)."""
    name = str(path) if name is None else name
    return _Reader(name, _text(path, name)).rows()


def _text(path: Path, name: str) -> str:
    """The file's text, byte-order mark removed, or an ``io-error``."""
    try:
        if os.path.isdir(path):
            raise _io_error(name, "is a directory")
        with open(path, "rb") as file:
            status = os.fstat(file.fileno())
            regular = stat.S_ISREG(status.st_mode)
            if regular and status.st_size > MAX_BYTES:
                raise _too_large(name, status.st_size)
            # A regular file's size is known (one byte more sees it grow meanwhile); a pipe or
            # a device is read to one byte past the limit.
            data = file.read((status.st_size if regular else MAX_BYTES) + 1)
    except OSError as error:
        raise _io_error(name, error.strerror or str(error)) from None
    except ValueError as error:  # a NUL in the path
        raise _io_error(name, str(error)) from None
    if len(data) > MAX_BYTES:
        raise _too_large(name, None)
    nul = data.find(b"\0")
    if nul >= 0:
        line, column = _place_of_byte(data, nul)
        raise _io_error(name, f"is a binary file, not text (a NUL byte on line {line})", line, column)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _place_of_byte(data, error.start)
        raise _io_error(
            name, f"is not valid UTF-8 (byte {error.start} on line {line})", line, column, byte=error.start
        ) from None
    return text.removeprefix("\ufeff")


def _place_of_byte(data: bytes, offset: int) -> tuple[int, int]:
    """The line and character column of the byte at ``offset`` (whose line before it is valid
    UTF-8 up to there, or counted in bytes where it is not)."""
    start = data.rfind(b"\n", 0, offset) + 1
    before = data[start:offset]
    if start == 0:
        before = before.removeprefix(b"\xef\xbb\xbf")
    try:
        column = len(before.decode("utf-8")) + 1
    except UnicodeDecodeError:
        column = len(before) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _io_error(name: str, reason: str, line: int | None = None, column: int | None = None, **fields: Any) -> TableError:
    return TableError(IO_ERROR, f"cannot read {name}: {reason}", line, column, {"file": name, **fields})


def _too_large(name: str, size: int | None) -> TableError:
    amount = f" ({size:,} bytes)" if size is not None else ""
    megabytes = MAX_BYTES / (1024 * 1024)
    limit = f"{megabytes:g} MB" if megabytes >= 1 else f"{MAX_BYTES} bytes"
    return _io_error(name, f"it is larger than the {limit} a table may have{amount}", limit=MAX_BYTES)


class _Reader:
    """One pass over the text, line by line (lines are found as they are read, so a file of
    many short lines is never split whole)."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text
        self.width = 0  # the first row's, once read

    def rows(self) -> list[tuple[float, ...]]:
        text = self.text
        # Where float() reads more than a cell may hold: digits other than ASCII ones, and
        # blanks other than spaces and tabs around a number. Without them in the text, a line
        # that float() reads cell by cell into finite numbers is a row.
        careful = (
            not text.isascii()
            or text.count("\r") != text.count("\r\n")
            or any(blank in text for blank in _ODD_BLANKS)
        )
        rows: list[tuple[float, ...]] = []
        cells = 0
        start, number, end = 0, 0, len(text)
        while start < end:
            stop = text.find("\n", start)
            if stop < 0:
                stop = end
            number += 1
            line = text[start:stop].removesuffix("\r")
            start = stop + 1
            if len(line) >= MAX_CELLS and line.count(",") >= MAX_CELLS:
                raise self.error(f"line {number} has more than {MAX_CELLS:,} cells", number, 1, limit=MAX_CELLS)
            try:
                row: tuple[float, ...] | None = (
                    tuple(map(float, line.split(","))) if len(line) <= _PIECE else _floats(line)
                )
            except ValueError:
                row = None
            if row is None or careful and not _plain(line):
                if not line.strip(_BLANKS):
                    if _BLANK_TO_END.match(text, start):
                        break
                    raise self.error(f"line {number} is blank, and rows follow it", number, 1)
                if number == 1 and self.is_names(line):
                    continue
                self.check_cells(line, number)
                raise AssertionError(f"line {number} of {self.name} is neither a row nor an error")  # pragma: no cover
            total = sum(row)
            if total - total != 0:  # an inf or nan cell (or finite cells whose sum overflows)
                self.check_cells(line, number)
            if not rows:
                self.width = len(row)
            elif len(row) != self.width:
                raise self.ragged(line, number, len(rows) + 1, len(row))
            if len(rows) == MAX_ROWS:
                raise self.error(f"the table has more than {MAX_ROWS:,} rows", number, 1, limit=MAX_ROWS)
            cells += len(row)
            if cells > MAX_CELLS:
                raise self.error(f"the table has more than {MAX_CELLS:,} cells", number, 1, limit=MAX_CELLS)
            rows.append(row)
        return rows

    @staticmethod
    def is_names(line: str) -> bool:
        """A line of names: one of its cells is text that is not a number at all."""
        for _, cell in _cells(line):
            cell = cell.strip(_BLANKS)
            if cell and not _NUMBER_CELL.fullmatch(cell) and not _NON_FINITE.fullmatch(cell):
                return True
        return False

    def check_cells(self, line: str, number: int) -> None:
        """Raises the error of the first cell, from the left, that is not a finite number."""
        for index, (column, cell) in enumerate(_cells(line), 1):
            text = cell.strip(_BLANKS)
            fields = {"cell": text, "cell_index": index}
            if not text:
                raise self.error(f"cell {index} is empty", number, column, **fields)
            if _NUMBER_CELL.fullmatch(text):
                if float(text) in (_INF, -_INF):
                    raise self.error(
                        f"cell `{_shown(text)}` is beyond the range of a float (about 1.8e308)",
                        number, column, **fields,
                    )
            elif _NON_FINITE.fullmatch(text):
                raise self.error(f"cell `{_shown(text)}` is not a finite number", number, column, **fields)
            else:
                raise self.error(f"cell `{_shown(text)}` is not a number", number, column, **fields)

    def ragged(self, line: str, number: int, row: int, count: int) -> TableError:
        if count > self.width:  # at the first cell past the first row's width
            column = next(column for index, (column, _) in enumerate(_cells(line)) if index == self.width)
        else:  # after the last character
            column = len(line) + 1
        plural = "" if count == 1 else "s"
        return self.error(
            f"row {row} has {count} cell{plural}, the first row has {self.width}",
            number, column, row=row, cells=count, width=self.width,
        )

    def error(self, message: str, line: int, column: int, **fields: Any) -> TableError:
        return TableError(BAD_TABLE, message, line, column, {"file": self.name, **fields})


def _cells(line: str) -> Iterator[tuple[int, str]]:
    """Each cell of ``line`` with the column of its first character, one at a time."""
    start = 0
    while True:
        stop = line.find(",", start)
        if stop < 0:
            yield start + 1, line[start:]
            return
        yield start + 1, line[start:stop]
        start = stop + 1


def _plain(line: str) -> bool:
    return line.isascii() and _ODD_IN_LINE.search(line) is None


def _floats(line: str) -> tuple[float, ...]:
    """float() of each cell of a long ``line``, a piece at a time (ValueError if one is not a
    number to float())."""
    values: list[float] = []
    start = 0
    while True:
        cut = line.find(",", start + _PIECE)
        if cut < 0:
            values.extend(map(float, line[start:].split(",")))
            return tuple(values)
        values.extend(map(float, line[start:cut].split(",")))
        start = cut + 1


def _shown(cell: str) -> str:
    """A cell as a message quotes it: at most 30 characters, anything unprintable escaped."""
    shown = cell if len(cell) <= _SHOWN_LENGTH else cell[: _SHOWN_LENGTH - 1] + "…"
    if shown.isprintable():
        return shown
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
