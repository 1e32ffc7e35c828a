"""Lines of output wrapped at the width: the one place a line too long for it is broken.

- `broken(text, first, further)`: a styled text broken at its blanks into lines of at most
  ``first``, then ``further`` cells (a word longer than a line is cut);
- `hanging(text, width, indent)`: the same, its further lines indented: what the renderer does
  to any line too long for the console, keeping the line's own indent and adding `INDENT`;
- `flow`, `sentence`, `prose`: headings and prose made of words and labels (a label is never
  split unless it is wider than a line), continuation lines indented, as every renderer's
  headings are (explain, paths, walk, vjp_check, the tables' headings, forward mode).
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

from rich.cells import get_character_cell_size
from rich.text import Text

from .styles import STYLES

# How far a heading's or a sentence's further lines are indented under its first.
INDENT = "  "

# One item of a flowed line: the separator before it on the same line, and the item: one text,
# or several parts that may go on separate lines when the item is too long for one.
Piece = tuple[str, Union[Text, tuple[Text, ...]]]


def hanging(text: Text, width: int, indent: str) -> list[Text]:
    """``text`` in lines at most ``width`` cells wide, broken at its blanks, the lines after the
    first led by ``indent`` (blanks; at most half the width)."""
    count = min(len(indent), width // 2)
    lines = broken(text, width, width - count)
    for line in lines[1:]:
        line.pad_left(count)
    return lines


def broken(text: Text, first: int, further: int) -> list[Text]:
    """``text`` in pieces of at most ``first`` cells, then ``further`` cells each, broken after
    the last blank that fits (the blanks at a break are dropped) or, in a word longer than a
    line, cut; styles are kept."""
    plain = text.plain
    spans = break_spans(plain, first, further)
    if not text.spans:  # (one style: no need to divide the spans, 20 times faster on 10 MB)
        return [Text(plain[start:end].rstrip(" "), text.style, justify=text.justify, overflow=text.overflow)
                for start, end in spans]
    offsets = [offset for span in spans for offset in span]
    pieces = text.divide(offsets)
    lines = [pieces[2 * index + 1] for index in range(len(spans))]
    for line in lines:
        line.rstrip()
    return lines


def wrapped(text: str, width: int) -> list[str]:
    """A plain ``text`` in pieces of at most ``width`` cells, broken as `broken` breaks."""
    return [text[start:end].rstrip(" ") for start, end in break_spans(text, width, width)]


def break_spans(plain: str, first: int, further: int) -> list[tuple[int, int]]:
    """Where `broken` breaks ``plain``: (start, end) of each piece."""
    uniform = plain.isascii() and plain.isprintable()  # (every character one cell: the common case)
    spans: list[tuple[int, int]] = []
    start, size, room = 0, len(plain), max(1, first)
    while True:
        if spans:
            while start < size and plain[start] == " ":
                start += 1
        end = min(size, start + room) if uniform else _fitting(plain, start, room)
        if end >= size:
            spans.append((start, size))
            return spans
        blank = plain.rfind(" ", start + 1, end + 1)  # (the blank just past the room counts)
        if blank > start:
            spans.append((start, blank))
            start = blank + 1
        else:
            end = max(end, start + 1)  # (a character wider than the room: alone on its line)
            spans.append((start, end))
            start = end
        room = max(1, further)


def _fitting(plain: str, start: int, room: int) -> int:
    """The end of the longest piece of ``plain`` from ``start`` at most ``room`` cells wide."""
    cells, end = 0, start
    while end < len(plain):
        cells += get_character_cell_size(plain[end])
        if cells > room:
            break
        end += 1
    return end


def flow(
    lead: Text,
    pieces: Sequence[Piece],
    width: int,
    indent: str,
    max_lines: int | None = None,
    more: Callable[[int], str] | None = None,
) -> list[Text]:
    """``lead`` and the pieces on as few lines as fit ``width``: a piece that does not fit
    starts a new line, indented, without its separator's leading blanks; a piece of several
    parts too long for a line breaks between them. With ``max_lines``, the lines past it are
    left out and the last line is ``more(count of pieces not shown whole)``. A part wider than
    a line alone (a long label) is broken at its blanks, its further lines indented too."""
    lines: list[Text] = []
    finished: list[int] = []  # pieces that end on each line
    current, done = lead.copy(), 0
    started = bool(lead.plain.strip())

    def new_line(start: str) -> None:
        nonlocal current, done
        lines.append(current)
        finished.append(done)
        current, done = Text(indent + start), 0

    def place(part: Text) -> None:
        # (A part that does not fit the rest of its line starts the line: see above.)
        first, *further = broken(part, width - current.cell_len, width - len(indent))
        current.append_text(first)
        for piece in further:
            new_line("")
            current.append_text(piece)

    for separator, item in pieces:
        parts = item if isinstance(item, tuple) else (item,)
        whole = sum(part.cell_len for part in parts) + len(parts) - 1
        start = separator.lstrip()
        if not started or current.cell_len + len(separator) + whole <= width:
            current.append(separator)  # it fits
        elif len(indent) + len(start) + whole <= width or current.cell_len + len(separator) + parts[0].cell_len > width:
            new_line(start)  # it fits a line of its own, or not even its first part fits here
        else:
            current.append(separator)  # too long for any line: broken between its parts from here
        for position, part in enumerate(parts):
            if position:
                if current.cell_len + 1 + part.cell_len > width:
                    new_line("")
                else:
                    current.append(" ")
            place(part)
        done += 1
        started = True
    lines.append(current)
    finished.append(done)
    if max_lines is not None and more is not None and len(lines) > max_lines:
        kept = max(1, max_lines - 1)
        lines = lines[:kept] + [Text(f"{indent}{more(len(pieces) - sum(finished[:kept]))}", STYLES["dim"])]
    for line in lines:
        line.rstrip()
    return lines


def sentence(parts: Sequence[str | Text], width: int, indent: str = INDENT, style: str = "") -> list[Text]:
    """Text and labels wrapped at the text's blanks (a label is never split), continuation
    lines indented; punctuation next to a label stays with it."""
    pieces: list[Piece] = []
    separator = ""
    lead_blanks = ""
    rest = list(parts)
    first = rest[0] if rest else None
    while isinstance(first, str) and not first.strip():  # the lead's blanks
        lead_blanks += first
        rest.pop(0)
        first = rest[0] if rest else None
    if isinstance(first, str):
        lead_blanks += first[: len(first) - len(first.lstrip(" "))]
        rest[0] = first.lstrip(" ")
    for part in rest:
        if isinstance(part, Text):
            _add(pieces, separator, part.copy())
            separator = ""
            continue
        for position, word in enumerate(part.split(" ")):
            if position:
                separator = " "
            if word:
                _add(pieces, separator, Text(word, style))
                separator = ""
    if not pieces:
        return [Text()]
    return flow(Text(lead_blanks), pieces, width, indent)


def _add(pieces: list[Piece], separator: str, text: Text) -> None:
    """A word or a label; glued to the one before when nothing separates them (`x:`)."""
    if pieces and not separator:
        previous = pieces[-1][1]
        assert isinstance(previous, Text)
        previous.append_text(text)
    else:
        pieces.append((separator, text))


def prose(text: str, width: int, indent: str = INDENT, style: str = "") -> list[Text]:
    """A sentence of plain text wrapped at its blanks to ``width``."""
    return sentence([text], width, indent, style)
