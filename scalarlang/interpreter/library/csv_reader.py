"""Tables from CSV files of numbers: the reader behind the language's ``read_table("FILE.csv")``.

A pure module (the standard library only): `read_table` returns the rows as tuples of floats,
or raises `TableError`, data for the interpreter to turn into a diagnostic. The rules:

- The file is UTF-8, with or without a byte-order mark; lines end in LF, CRLF or a CR alone (as
  old Mac programs and some spreadsheets write). It is read in one go, after its size is
  checked: more than `MAX_BYTES` is an ``io-error``, and so is a missing or unreadable file, a
  directory or any other file that is not a regular one (a FIFO, a device, a socket: reading
  one could block forever or never end), bytes that are not UTF-8 or a NUL byte (a binary file).
- Cells are separated by commas. A cell is a finite decimal number in Python's float syntax
  (``-1``, ``0.5``, ``.5``, ``1e-3``, ``1_000``), with blanks (spaces, tabs) around it allowed.
  Anything else is a ``bad-table`` error at the cell: an empty cell, text, ``nan``, ``inf``,
  a number beyond the range of a float (``1e400``) or one it would round to 0 (``1e-400``,
  an error in a program too), digits other than ASCII ones.
- A cell may be quoted as CSV quotes it (``"1.5"``, ``"x, first"``): its text is what is
  between the quotes, a doubled quote in it is one quote, and a line end in it is part of it
  (the line of names may hold one). Blanks may stand around the quotes. A quote that is not
  closed, or text after a closing quote, is a ``bad-table`` error, never a shorter table.
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

from functools import reduce
import operator
import os
import re
import stat
from pathlib import Path
from typing import Any, Iterable, Iterator

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
# ASCII characters float() takes as blanks around a number, besides space and tab (a CR always
# ends a line).
_ODD_BLANKS = "\x0b\x0c\x1c\x1d\x1e\x1f"
_ODD_IN_LINE = re.compile(r"[\x0b\x0c\x1c-\x1f]")
# A digit that makes a number's mantissa not zero: such a number read as 0 was rounded away.
_NONZERO_DIGIT = re.compile(r"[1-9]")
# Lines longer than this are converted a piece at a time, so that only one piece's cells are
# ever strings at once.
_PIECE = 1 << 16
# What float() reads as a non-finite value: not a name, but a number that is not finite.
_NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE | re.ASCII)
_BLANKS = " \t"
# The rest of the text after a blank line: more blank lines.
_BLANK_TO_END = re.compile(r"(?:[ \t]*+\n)*+[ \t]*+\Z")
# Within a record that holds a quote: the blanks a cell may start with, and an unquoted cell
# (or what follows a closing quote) up to its comma or line end.
_LEADING_BLANKS = re.compile(r"[ \t]*+")
_UNQUOTED = re.compile(r"[^,\n]*+")
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
        with open_regular(path) as file:
            status = os.fstat(file.fileno())
            if status.st_size > MAX_BYTES:
                raise _too_large(name, status.st_size)
            # (one byte more than its size sees it grow meanwhile)
            data = file.read(status.st_size + 1)
    except NotRegular as error:
        raise _io_error(name, f"is {error.what}") from None
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


class NotRegular(Exception):
    """A path that names no regular file: ``what`` it is, as a message says it after "is"
    (``a directory``, ``a FIFO (a named pipe), not a regular file``)."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (a named pipe), not a regular file"),
    (stat.S_ISCHR, "a device, not a regular file"),
    (stat.S_ISBLK, "a device, not a regular file"),
    (stat.S_ISSOCK, "a socket, not a regular file"),
)


def open_regular(path: Path):
    """``path`` opened for reading in binary, or `NotRegular` when it is not a regular file
    (or OSError). A FIFO would block the open until a writer comes, a device read may never
    end: the file's kind is asked first, without opening it, and asked again of the file
    opened (without blocking) in case it was replaced meanwhile."""
    _check_regular(os.stat(path).st_mode)
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        _check_regular(os.fstat(descriptor).st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegular(next((what for test, what in _KINDS if test(mode)), "not a regular file"))


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
        # One line end from here on: a CR alone or before an LF ends a line as an LF does.
        self.text = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
        self.width = 0  # the first row's, once read

    def rows(self) -> list[tuple[float, ...]]:
        text = self.text
        # Where float() reads more than a cell may hold: digits other than ASCII ones, and
        # blanks other than spaces and tabs around a number. Without them in the text, a line
        # that float() reads cell by cell into finite numbers is a row.
        careful = not text.isascii() or any(blank in text for blank in _ODD_BLANKS)
        quoted = '"' in text
        rows: list[tuple[float, ...]] = []
        cells = 0
        start, number, end = 0, 0, len(text)
        while start < end:
            stop = text.find("\n", start)
            if stop < 0:
                stop = end
            number += 1
            first = number == 1
            line = text[start:stop]
            record: _Line | _Record
            suspect = False  # a 0 that may be a number rounded away (a record checks its own)
            if quoted and '"' in line:  # a record of CSV's quoted cells, maybe of several lines
                record = _Record(self, start, number)
                row = record.row()
                start, number = record.end, record.last_line
            else:
                record = _Line(line, number)
                start = stop + 1
                row = self.plain_row(line, number, careful)
                suspect = row is not None and 0.0 in row and _may_round_away(line)
                if row is None and not line.strip(_BLANKS):
                    if _BLANK_TO_END.match(text, start):
                        break
                    raise self.error(f"line {number} is blank, and rows follow it", number, 1)
            if row is None:
                if first and self.is_names(record):
                    continue
                self.check_cells(record)
                raise AssertionError(f"line {number} of {self.name} is neither a row nor an error")  # pragma: no cover
            total = reduce(operator.add, row, 0.0)  # a left fold (Python 3.12's `sum()` is compensated)
            if total - total != 0 or suspect:  # an inf or nan cell (or finite cells whose sum overflows)
                self.check_cells(record)
            if not rows:
                self.width = len(row)
            elif len(row) != self.width:
                raise self.ragged(record, len(rows) + 1, len(row))
            if len(rows) == MAX_ROWS:
                raise self.error(f"the table has more than {MAX_ROWS:,} rows", number, 1, limit=MAX_ROWS)
            cells += len(row)
            if cells > MAX_CELLS:
                raise self.error(f"the table has more than {MAX_CELLS:,} cells", number, 1, limit=MAX_CELLS)
            rows.append(row)
        return rows

    def plain_row(self, line: str, number: int, careful: bool) -> tuple[float, ...] | None:
        """The numbers of a line without quotes as float() reads them, or None if one is not
        a number to float() or (``careful``) the line holds what float() reads more kindly."""
        if len(line) >= MAX_CELLS and line.count(",") >= MAX_CELLS:
            raise self.too_wide(number)
        try:
            row = tuple(map(float, line.split(","))) if len(line) <= _PIECE else _floats(line)
        except ValueError:
            return None
        return None if careful and not _plain(line) else row

    @staticmethod
    def is_names(record: Iterable[_Cell]) -> bool:
        """A line of names: one of its cells is text that is not a number at all."""
        for _, _, cell in record:
            cell = cell.strip(_BLANKS)
            if cell and not _NUMBER_CELL.fullmatch(cell) and not _NON_FINITE.fullmatch(cell):
                return True
        return False

    def check_cells(self, record: Iterable[_Cell]) -> None:
        """Raises the error of the first cell, from the left, that is not a finite number a
        float holds."""
        for index, (number, column, cell) in enumerate(record, 1):
            text = cell.strip(_BLANKS)
            fields = {"cell": text, "cell_index": index}
            if not text:
                raise self.error(f"cell {index} is empty", number, column, **fields)
            if _NUMBER_CELL.fullmatch(text):
                value = float(text)
                if value in (_INF, -_INF):
                    raise self.error(
                        f"cell `{_shown(text)}` is beyond the range of a float (about 1.8e308)",
                        number, column, **fields,
                    )
                if value == 0 and _rounded_away(text):
                    raise self.error(
                        f"cell `{_shown(text)}` is too small for a float: it would be 0"
                        " (the smallest positive float is about 4.9e-324)",
                        number, column, **fields,
                    )
            elif _NON_FINITE.fullmatch(text):
                raise self.error(f"cell `{_shown(text)}` is not a finite number", number, column, **fields)
            else:
                raise self.error(f"cell `{_shown(text)}` is not a number", number, column, **fields)

    def ragged(self, record: _Line | _Record, row: int, count: int) -> TableError:
        if count > self.width:  # at the first cell past the first row's width
            number, column, _ = next(cell for index, cell in enumerate(record) if index == self.width)
        else:  # after the last character
            number, column = record.last_line, record.end_column
        plural = "" if count == 1 else "s"
        return self.error(
            f"row {row} has {count} cell{plural}, the first row has {self.width}",
            number, column, row=row, cells=count, width=self.width,
        )

    def too_wide(self, number: int) -> TableError:
        return self.error(f"line {number} has more than {MAX_CELLS:,} cells", number, 1, limit=MAX_CELLS)

    def error(self, message: str, line: int, column: int, **fields: Any) -> TableError:
        return TableError(BAD_TABLE, message, line, column, {"file": self.name, **fields})


# A cell as errors place it: its line, its column (its first character's) and its text.
_Cell = tuple[int, int, str]


class _Line:
    """The cells of a line without quotes."""

    def __init__(self, line: str, number: int):
        self.line = line
        self.last_line = number
        self.end_column = len(line) + 1

    def __iter__(self) -> Iterator[_Cell]:
        for column, cell in _cells(self.line):
            yield self.last_line, column, cell


class _Record:
    """The cells of a record that holds a quote, read as CSV reads them (the quotes removed,
    a doubled quote one quote, a line end inside quotes part of the cell). Each pass over it
    reads the text again, so its cells are never all kept at once; after the first (`row`),
    `end` is where the next record starts, `last_line` the number of its last line and
    `end_column` the column just after its last character."""

    def __init__(self, reader: _Reader, start: int, number: int):
        self.reader = reader
        self.start = start
        self.number = number
        self.end = self.last_line = self.end_column = 0

    def row(self) -> tuple[float, ...] | None:
        """Its numbers, or None if a cell is not a plain number (a quote not closed, or text
        after one, is an error here)."""
        values: list[float] = []
        plain = True
        for count, (_, _, cell) in enumerate(self, 1):
            if count > MAX_CELLS:
                raise self.reader.too_wide(self.number)
            text = cell.strip(_BLANKS)
            if plain and _NUMBER_CELL.fullmatch(text):
                value = float(text)
                plain = value != 0 or not _rounded_away(text)
                values.append(value)
            else:
                plain = False
        return tuple(values) if plain else None

    def __iter__(self) -> Iterator[_Cell]:
        text, reader = self.reader.text, self.reader
        position, number, line_start = self.start, self.number, self.start
        index = 0
        while True:
            index += 1
            cell_start, column = position, position - line_start + 1
            opening = _end_of(_LEADING_BLANKS, text, position)
            if not text.startswith('"', opening):
                position = _end_of(_UNQUOTED, text, position)
                yield number, column, text[cell_start:position]
            else:
                cell, position = _quoted(text, opening + 1)
                if position < 0:
                    raise reader.error(
                        f"the quote that opens cell {index} is not closed", number, column, cell_index=index
                    )
                cell_line, lines = number, text.count("\n", opening, position)
                if lines:
                    number += lines
                    line_start = text.rindex("\n", opening, position) + 1
                after = _end_of(_UNQUOTED, text, position)
                rest = text[position:after]
                if rest.strip(_BLANKS):
                    shown = rest.strip(_BLANKS)
                    where = position + len(rest) - len(rest.lstrip(_BLANKS)) - line_start + 1
                    raise reader.error(
                        f"cell {index} has `{_shown(shown)}` after its closing quote", number, where,
                        cell=shown, cell_index=index,
                    )
                position = after
                yield cell_line, column, cell
            if not text.startswith(",", position):
                self.end, self.last_line, self.end_column = position + 1, number, position - line_start + 1
                return
            position += 1


def _end_of(pattern: re.Pattern[str], text: str, start: int) -> int:
    """Where ``pattern`` (one that matches an empty text too) ends when matched at ``start``."""
    match = pattern.match(text, start)
    return start if match is None else match.end()


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The text of a quoted cell whose first character is at ``start`` (just after its quote)
    and where it ends (just after its closing quote), or -1 if it is not closed."""
    pieces = []
    while True:
        close = text.find('"', start)
        if close < 0:
            return "", -1
        pieces.append(text[start:close])
        if not text.startswith('"', close + 1):
            return "".join(pieces), close + 1
        pieces.append('"')
        start = close + 2


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


def _may_round_away(text: str) -> bool:
    """Whether ``text`` may hold a number a float rounds to 0 (`1e-400`): one needs an exponent,
    or more than 320 characters (at least 323 zeros after its point)."""
    return "e" in text or "E" in text or len(text) > 320


def _rounded_away(number: str) -> bool:
    """Whether a ``number`` float() reads as 0 was rounded to it: its digits are not all 0."""
    return _NONZERO_DIGIT.search(number.lower().partition("e")[0]) is not None


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
