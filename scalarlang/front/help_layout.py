"""Help texts laid out at a terminal's width: headings, rows of a form and what it does (the
text in a column beside the forms, wrapped with a hanging indent), and paragraphs. Pure text,
for `:help` (repl_core.py styles the pieces) and `--help` (cli.py, which loads no engine, lark
or rich); `language_blocks` puts the language's forms and the registry's entries under their
tasks.

Lines break only at spaces, so the words read in order at any width; a form breaks between its
alternatives (`a · b`) before it breaks inside one, and no wrapped text ends with one word
broken off a longer line (`STATEMENT` alone on a line).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..language.overview import FORMS, NOTES, TASKS


class Heading(NamedTuple):
    text: str


class Row(NamedTuple):
    """A form and what it does; each line of ``text`` (notes) starts a line of its own."""

    form: str
    text: str


class Paragraph(NamedTuple):
    """Text from ``indent``, its further lines ``hanging`` further in."""

    text: str
    indent: int = 2
    hanging: int = 2


Block = Heading | Row | Paragraph
# A line: pieces of text with what each is ("heading", "form" or "text": how it is styled).
Line = list[tuple[str, str]]

INDENT = 2  # a row under its heading
GAP = 2  # between a form and its text
WIDEST_FORM = 24  # a longer form has its text on the lines under it
FEWEST_TEXT = 36  # with less room than this beside the forms, each text goes under its form
UNDER = 6  # where a text under its form starts
NARROWEST = 20  # narrower terminals are laid out as if this wide


def lay_out(blocks: Sequence[Block], width: int, *, margin: int = 0, widest_form: int = WIDEST_FORM) -> list[Line]:
    """``blocks`` as lines at most ``width`` columns wide, ``margin`` columns in."""
    width = max(width, NARROWEST + margin)
    forms = [len(block.form) for block in blocks if isinstance(block, Row) and len(block.form) <= widest_form]
    column = margin + INDENT + max(forms, default=0) + GAP
    if width - column < FEWEST_TEXT:
        column = margin + UNDER
    lines: list[Line] = []
    for block in blocks:
        if isinstance(block, Heading):  # (its further lines indented as its rows are)
            for index, text in enumerate(wrap_words(block.text, width - margin, width - margin - INDENT)):
                lines.append([(" " * (margin + (INDENT if index else 0)), "text"), (text, "heading")])
        elif isinstance(block, Paragraph):
            start, further = margin + block.indent, margin + block.indent + block.hanging
            for index, text in enumerate(wrap_words(block.text, width - start, width - further)):
                lines.append([(" " * (start if index == 0 else further), "text"), (text, "text")])
        else:
            lines.extend(_row(block, width, margin + INDENT, column))
    return lines


def _row(row: Row, width: int, start: int, column: int) -> list[Line]:
    forms = wrap_form(row.form, width - start, width - start - 2)
    lines: list[Line] = [[(" " * (start if index == 0 else start + 2), "text"), (form, "form")] for index, form in enumerate(forms)]
    beside = len(forms) == 1 and start + len(forms[0]) + GAP <= column
    texts = [text for paragraph in row.text.split("\n") for text in wrap_words(paragraph, width - column)]
    for index, text in enumerate(texts):
        if index == 0 and beside:
            lines[0].append((" " * (column - start - len(forms[0])) + text, "text"))
        else:
            lines.append([(" " * column + text, "text")])
    return lines


def wrap_form(form: str, first: int, further: int) -> list[str]:
    """``form`` in lines of ``first`` then ``further`` columns, broken after a ` ·` between
    its alternatives, or inside one too long for a line."""
    items = form.split(" · ")
    pieces = [item + " ·" for item in items[:-1]] + items[-1:]
    lines: list[str] = []
    current = ""
    for piece in pieces:
        room = first if not lines else further
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= room:
            current = joined
            continue
        if current:
            lines.append(current)
            room = further
        wrapped = wrap_words(piece, room, further)
        lines.extend(wrapped[:-1])
        current = wrapped[-1]
    lines.append(current)
    return lines


def wrap_words(text: str, first: int, further: int | None = None) -> list[str]:
    """``text`` in lines of ``first`` then ``further`` columns (default: ``first``), broken at
    spaces (a word longer than a line is cut, after a hyphen where one fits); the last line is never one word broken off a
    line of three or more."""
    further = first if further is None else further
    lines: list[list[str]] = [[]]
    used = 0
    for word in text.split():
        room = first if len(lines) == 1 else further
        if lines[-1] and used + 1 + len(word) > room:
            lines.append([])
            used, room = 0, further
        while not lines[-1] and len(word) > room > 0:
            cut = word.rfind("-", 0, room) + 1 or room  # after a hyphen where one fits (an error kind)
            lines[-1].append(word[:cut])
            lines.append([])
            word, room = word[cut:], further
        used += len(word) + (1 if lines[-1] else 0)
        lines[-1].append(word)
    if len(lines) >= 2 and len(lines[-1]) == 1 and len(lines[-2]) >= 3:
        moved = [lines[-2][-1], *lines[-1]]
        if len(" ".join(moved)) <= further:
            lines[-2].pop()
            lines[-1] = moved
    return [" ".join(words) for words in lines]


def plain(lines: Iterable[Line]) -> str:
    """The lines as text, one a line, trailing spaces dropped."""
    return "".join("".join(text for text, _ in line).rstrip() + "\n" for line in lines)


def language_blocks(entries: Iterable[tuple[str, str, tuple[str, ...]]]) -> list[Block]:
    """The language by task: under each task's heading its forms (language/overview.py), then
    the built-ins of that category, then the task's notes; ``entries`` are the registry's
    `help_rows` (category, forms, summary and notes). A category that is not a task gets its
    heading after them."""
    rows: dict[str, list[Block]] = {task: [] for task in TASKS}
    for task, form, text in FORMS:
        rows[task].append(Row(form, text))
    for category, usage, (summary, *notes) in entries:
        rows.setdefault(category, []).append(Row(usage, "\n".join([summary, *notes])))
    for task, text in NOTES:
        rows[task].append(Paragraph(text))
    blocks: list[Block] = []
    for task, found in rows.items():
        if found:
            blocks += [Heading(task), *found]
    return blocks
