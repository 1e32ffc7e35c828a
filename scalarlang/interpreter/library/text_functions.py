"""The built-in functions of texts: `read_text`, `lines`, `chars`, `join`, `encode` and `decode`
(`len` and indexing of a text are the list forms'). Their entries are in ``registry``; each is
compiled as ``node_functions`` says.

A text is a constant: none of these makes a node, except `encode`, whose indices are constants
(counts: they print as whole numbers). A vocabulary is a list of one-character texts (what
`chars` gives) or a text (its characters); a character's index is its first place in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...engine.numbers import format_number
from ...engine.scalar import Scalar
from ...language import tree
from ..failures import index_out_of_range, not_a_text
from ..values import MAX_TEXT, ListValue, TextValue, characters, describe, quoted, whole_number

if TYPE_CHECKING:
    from ..context import Compiling

# A file of more bytes than this has more than `MAX_TEXT` characters (UTF-8 takes at most 4 a
# character), so no more is read.
MAX_TEXT_BYTES = 4 * MAX_TEXT


def compile_read_text(compiler: Compiling, call: tree.Call):
    """``read_text("FILE")``: the file's text; the path is relative to the program's folder
    (the working folder for text that came from no file), as `read_table`'s."""
    (argument,) = call.args  # a text (its entry says so)
    name_of, folder = compiler.text_argument(argument, "`read_text`"), compiler.source.folder

    def read(args) -> TextValue:
        name = name_of(args)
        if not name:  # (the path would be the folder, "a directory")
            raise compiler.fail(
                "io-error", "the file name is empty: there is no file to read", argument.span, {"path": name}
            )
        path = Path(name) if folder is None else Path(folder) / name
        data = _bytes(compiler, path, name, argument.span)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise compiler.fail(
                "bad-text",
                f"`{name}` is not UTF-8: byte {error.start:,} (on line {line:,}) is 0x{data[error.start]:02x}",
                argument.span,
                {"byte": error.start, "line_in_file": line},
                ("help: save the file as UTF-8 (most editors offer it under “Save as” or “Encoding”)",),
            ) from None
        text = text.removeprefix("\ufeff").replace("\r\n", "\n")
        if len(text) > MAX_TEXT:
            raise _too_long_file(compiler, name, argument.span, len(text))
        return TextValue(text)

    return read, ()


def _bytes(compiler: Compiling, path: Path, name: str, span) -> bytes:
    """The file's bytes (at most one more than `MAX_TEXT_BYTES`), or the error."""
    from .csv_reader import NotRegular, open_regular  # (on first use: start-up reads no file)

    try:
        with open_regular(path) as file:
            data = file.read(MAX_TEXT_BYTES + 1)
    except NotRegular as error:  # a FIFO would block, a device might never end
        raise compiler.fail("io-error", f"cannot read `{name}`: it is {error.what}", span, {"path": name}) from None
    except OSError as error:
        raise compiler.fail(
            "io-error", f"cannot read `{name}`: {error.strerror or error}", span, {"path": name}
        ) from None
    except ValueError as error:  # a NUL in the path
        raise compiler.fail("io-error", f"cannot read `{name}`: {error}", span, {"path": name}) from None
    if len(data) > MAX_TEXT_BYTES:
        raise _too_long_file(compiler, name, span, None)
    return data


def _too_long_file(compiler: Compiling, name: str, span, length: int | None):
    size = f"{length:,} characters" if length is not None else f"more than {MAX_TEXT_BYTES:,} bytes"
    return compiler.fail(
        "too-long", f"`{name}` has {size}; a text may have at most {MAX_TEXT:,}", span,
        {"length": length, "limit": MAX_TEXT},
    )


def compile_lines(compiler: Compiling, call: tree.Call):
    """``lines(T)``: the lines of T, without their `\\n`; a final `\\n` ends the last line
    (it starts no empty one)."""
    def lines(args, value):  # (a text: `STRING`)
        pieces = value.split("\n")
        if pieces[-1] == "":
            pieces.pop()
        return ListValue([TextValue(piece) for piece in pieces])

    return lines, compiler.values(call)


def compile_chars(compiler: Compiling, call: tree.Call):
    """``chars(T)``: T's distinct characters sorted by code point: a vocabulary."""
    def chars(args, value):  # (a text: `STRING`)
        return ListValue([TextValue(char) for char in sorted(set(value))])

    return chars, compiler.values(call)


def compile_join(compiler: Compiling, call: tree.Call):
    """``join(L)``, ``join(L, SEP)``: the texts of L one after another (SEP between them)."""
    exprs = compiler.values(call)

    def join(args, items, separator=None):  # (a list of texts and a text: `TEXTS`, `STRING`)
        sep = separator if separator is not None else ""
        length = sum(len(item) for item in items) + len(sep) * max(len(items) - 1, 0)
        if length > MAX_TEXT:
            raise compiler.fail(
                "too-long", f"the joined text would be {length:,} characters; the most is {MAX_TEXT:,}",
                call.span, {"length": length, "limit": MAX_TEXT},
            )
        return TextValue(sep.join(items))

    return join, exprs


class _Vocabulary:
    """A vocabulary checked: its characters in order and each one's first index."""

    __slots__ = ("characters", "index")

    def __init__(self, characters: list[str]):
        self.characters = characters
        self.index: dict[str, int] = {}
        for position, char in enumerate(characters):
            self.index.setdefault(char, position)


def _vocabulary_check(compiler: Compiling, call: tree.Call, position: int):
    """``check(value)``: the vocabulary at argument ``position``: a list of one-character
    texts, or a text."""
    expr = compiler.values(call)[position]
    source, text, span, function = compiler.source, compiler.text_of(expr), expr.span, call.function

    def check(value: Any) -> _Vocabulary:
        if value.__class__ is TextValue:
            return _Vocabulary(list(value))
        if value.__class__ is not ListValue:
            raise compiler.fail(
                "not-a-list", f"`{text}` is {describe(value)}, not a vocabulary: `{function}` takes a list of"
                " characters (or a text)", span, {"found": "node"},
                ("help: a text's vocabulary is `chars(T)`, its sorted distinct characters",),
            )
        for index, item in enumerate(value):
            if item.__class__ is not TextValue:
                raise not_a_text(source, item, f"{text}[{index}]", span, f"`{function}`'s vocabulary, each item")
            if len(item) != 1:
                raise compiler.fail(
                    "wrong-arguments",
                    f"`{text}[{index}]` is {characters(len(item))}, {quoted(item)}: a vocabulary's items are"
                    " single characters",
                    span, {"function": function, "index": index},
                    ("help: `chars(T)` gives the characters of a text, each once",),
                )
        return _Vocabulary(list(value))

    return check


def compile_encode(compiler: Compiling, call: tree.Call):
    """``encode(T, VOCAB)``: the index in VOCAB of each of T's characters, as constants."""
    vocabulary_of = _vocabulary_check(compiler, call, 1)
    origin = compiler.origin(call.span, True)
    text_expr, vocabulary_text = compiler.values(call)
    vocabulary_name = compiler.text_of(vocabulary_text)

    def encode(args, text, vocabulary):  # (T: `STRING`)
        vocabulary = vocabulary_of(vocabulary)
        index = vocabulary.index
        try:
            numbers = [index[char] for char in text]
        except KeyError:
            position = next(at for at, char in enumerate(text) if char not in index)
            raise _not_in_vocabulary(compiler, text, position, vocabulary_name, text_expr.span) from None
        made = []
        for number in numbers:
            node = Scalar.constant(number)
            node.tag = origin
            made.append(node)
        return ListValue(made)

    return encode, compiler.values(call)


def _not_in_vocabulary(compiler: Compiling, text: str, position: int, vocabulary: str, span):
    char = text[position]
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    where = f"index {position:,}" + (f", line {line:,} column {column:,}" if "\n" in text else "")
    return compiler.fail(
        "not-in-vocabulary",
        f"the character {quoted(char)} (U+{ord(char):04X}) at {where} of the text is not in `{vocabulary}`",
        span,
        {"character": char, "position": position, "line_in_text": line, "column_in_text": column},
        ("help: a vocabulary that holds every character of a text is `chars(T)`",),
    )


def compile_decode(compiler: Compiling, call: tree.Call):
    """``decode(L, VOCAB)``: the text of the characters at the indices L holds (indices as
    indexing takes them: whole numbers, negative ones from the end)."""
    list_expr, vocabulary_expr = compiler.values(call)
    vocabulary_of = _vocabulary_check(compiler, call, 1)
    list_text, vocabulary_text = compiler.text_of(list_expr), compiler.text_of(vocabulary_expr)
    span = list_expr.span

    def decode(args, items, vocabulary):  # (L: `NODES`)
        letters, of_text = vocabulary_of(vocabulary).characters, vocabulary.__class__ is TextValue
        if len(items) > MAX_TEXT:  # a character an index
            raise compiler.fail(
                "too-long", f"the decoded text would be {len(items):,} characters; the most is {MAX_TEXT:,}",
                call.span, {"length": len(items), "limit": MAX_TEXT},
            )
        length = len(letters)
        made = []
        for position, item in enumerate(items):
            value = item._value
            at = whole_number(value)
            if at is None:
                raise compiler.fail(
                    "not-an-index",
                    f"`{list_text}[{position}]` is {format_number(value)}: an index must be a whole number",
                    span, {"value": value, "position": position},
                )
            if not -length <= at < length:
                raise index_out_of_range(compiler.source, value, length, vocabulary_text, span, of_text)
            made.append(letters[at])
        return TextValue("".join(made))

    return decode, compiler.values(call)

