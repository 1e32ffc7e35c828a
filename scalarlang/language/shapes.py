"""The parser's fast path: a top-level statement of a shape it has parsed before.

A long program repeats a few statement shapes (`let aN = aN-1 * 1.0000001 + k`). Where the
parser is between two top-level statements, `Shapes.match` lexes the next statement along a
trie of the token kinds already seen there, each token with the lexer mode the parser's state
had at that point when it was parsed in full; at the end of a known sequence it fills in the
compact form of the statement (see `compact`) from the tokens, without the LALR parser, the
builder or token objects. A shape met at that point lately is first tried with one regex for
the whole statement and its separator: for the benchmark's 100,000 lines, 14 us a statement
instead of 55. A statement that regex matches is kept as an int naming where it is and which
shape (`Template.item`): the text is its compact form, read again by `rebuild` (nodes) or
`straight` (running it), and the parse makes nothing more for it.

What the fast path knows comes from the full parse (`learn`): the token kinds of a statement
and the compact form the builder made of it, whose values are mapped back to the tokens they
came from (a span's start and end, a name's text, a number's value). LALR is deterministic,
so the same kinds in the same parser state parse the same way; the builder depends on
token texts only where this module does the same (numbers, with the check of literals
rounded to zero) or where the shape is not eligible (`_ELIGIBLE`: no strings, tables, name
lists, blocks, `expect`/`quiet`). Names are mapped by text, so a template holds for the
statements whose equal names sit at the same places (``a * a`` and ``a * b`` are two). Any
doubt (a keyword where a name should be, a newline inside parentheses, an unknown kind, the
end of the text) hands the statement back to the full parse, which says what is wrong.
"""

from __future__ import annotations

import marshal
import re
import struct
from sys import intern
from typing import Any

from .compact import _LITERAL, _SPAN, decode_values, encode
from .compact import _steps as postfix_steps
from .lexicon import KEYWORDS
from .source import LineIndex

# The token kinds a fast statement may hold: the grammar's expressions, `let`, `print` of
# values, `assert`, `zero_grad`, calls with named arguments.
_ELIGIBLE = frozenset(
    (
        "NAME", "NUMBER", "INF", "NAN", "PLUS", "MINUS", "STAR", "SLASH", "PERCENT", "POW",
        "LPAR", "RPAR", "_COMMA", "_COLON", "LET", "_EQUAL", "VAR", "CONST", "PRINT",
        "ZERO_GRAD", "ASSERT", "WITHIN", "EQ", "NE", "LT", "LE", "GT", "GE",
    )
)
_SEPARATORS = frozenset(("_NL", "_SEMI"))
_NUMBERS = frozenset(("NUMBER", "INF", "NAN"))
_KEYWORD_SET = frozenset(KEYWORDS)
_KEYWORD_KINDS = frozenset(word.upper() for word in KEYWORDS)
# Bounds on what is learnt: shapes (templates) and the operations of one statement.
MAX_TEMPLATES = 4_096
MAX_TOKENS = 200
MAX_SEEN = 100_000
RECENT = 4  # shapes tried with their whole-statement regex first, at each root
_IGNORED = frozenset(("WS", "COMMENT"))


class Compacted:
    """A whole statement and its separator for the parser's driver: once the reductions its
    first token's kind (``type``) calls for are done, ``data`` (the compact statement, bytes or an int:
    nothing on the parser's stack that error messages could take for a token) goes on the
    stack as the nonterminal `statement`, then the separator (a ``separator`` token, whose
    value no reduction keeps). ``more``: None, or the statements right after it, each of
    the same first kind and separator, where the lexer knows the driver's step for such a
    statement leaves the parser's stacks as they were."""

    __slots__ = ("data", "more", "separator", "type")

    def __init__(self, kind: str, data: bytes | int, separator: str):
        self.type = kind
        self.data = data
        self.separator = separator
        self.more: list | None = None


class Template:
    """A statement shape: its compact form's operations and how its values come from the
    tokens (``fill``), and a regex for the whole statement (None where one cannot be
    written) that matches exactly where the lexer's modes would lex these kinds, names not
    keywords, and a separator after."""

    __slots__ = (
        "fill", "fill_groups", "first", "fits", "lean", "number", "operations", "pattern", "pieces",
        "regex", "runner", "same_names",
    )

    def __init__(self, operations: bytes, fill: Any, tokens: list, separator_mode: Any, pattern: tuple):
        self.operations = operations
        self.fill, self.fill_groups, self.fits, self.pieces = fill
        self.first = tokens[0][0]
        self.pattern = pattern
        self.same_names = _names_check(tuple(i for i, t in enumerate(tokens) if t[0] == "NAME"), pattern)
        self.regex, self.lean = _statement_regexes(tokens, separator_mode)
        self.runner: Any = None  # `straight`'s function for the statements of this shape
        self.number: int | None = None  # in `_TEMPLATES`, for the items that name the shape
        if self.regex is not None and len(_TEMPLATES) < _TEMPLATE_MASK + 1:
            self.number = len(_TEMPLATES)
            _TEMPLATES.append(self)

    def whole(self, text: str, pos: int) -> tuple[int, Compacted] | None:
        """The statement at `pos` if it is one of this shape, from one regex match: (where
        its separator ends, the statement as a `Compacted`)."""
        found = self.item(text, pos)
        if found is None:
            return None
        end, item, separator = found
        return end, Compacted(self.first, item, separator)

    def item(self, text: str, pos: int) -> tuple[int, bytes | int, str] | None:
        """The statement at `pos` if it is one of this shape: (where its separator ends, the
        statement as an int naming `pos` and the shape (the text is the compact form:
        `rebuild` reads it again) or, for a shape not numbered, as bytes, the separator)."""
        match = self.regex.match(text, pos)
        if match is None:
            return None
        groups = match.groups()
        if not self.same_names(groups) or not self.fits(groups):
            return None
        if self.number is not None:
            return match.end(), pos << _TEMPLATE_BITS | self.number, match.lastgroup  # type: ignore[return-value]
        data = marshal.dumps((self.operations, self.fill_groups(match.regs, groups)))
        return match.end(), data, match.lastgroup  # type: ignore[return-value]


# Templates by number, process-wide as the parser's shapes are (see `Template.whole`). An
# item is ``position << _TEMPLATE_BITS | number``.
_TEMPLATE_BITS = 16
_TEMPLATE_MASK = (1 << _TEMPLATE_BITS) - 1
_TEMPLATES: list[Template] = []


def is_compact(item: Any) -> bool:
    """Whether a program's statement is held compact (bytes, or an int naming a shape)."""
    return item.__class__ is bytes or item.__class__ is int


def template_match(item: int, text: str) -> tuple[Template, Any]:
    """The shape an int item names and its match in `text` (found when it was parsed), made
    again by the template's lean regex."""
    template = _TEMPLATES[item & _TEMPLATE_MASK]
    return template, template.lean.match(text, item >> _TEMPLATE_BITS)


def rebuild(item: int, text: str, lines: LineIndex) -> Any:
    """The statement an int item names, made again from the text it was parsed from."""
    template, match = template_match(item, text)
    return decode_values(template.operations, template.fill_groups(match.regs, match.groups()), lines)


def _names_check(names: tuple[int, ...], pattern: tuple[int, ...]) -> Any:
    """A function telling whether a match's names (``groups[i]`` for i in `names`) are equal
    where the template's were and different elsewhere (its `pattern`)."""
    firsts = [index for index, first in zip(names, pattern) if index == first]
    if len(firsts) > 8:  # many names: compare the patterns themselves
        def same(groups: tuple) -> bool:
            seen: dict[str, int] = {}
            return tuple(seen.setdefault(groups[i], i) for i in names) == pattern
        return same
    tests = [f"g[{index}] == g[{first}]" for index, first in zip(names, pattern) if index != first]
    tests += [f"g[{a}] != g[{b}]" for n, a in enumerate(firsts) for b in firsts[n + 1 :]]
    namespace: dict[str, Any] = {}
    exec(f"def same(g):\n    return {' and '.join(tests) or 'True'}\n", namespace)  # noqa: S102 - indices only
    return namespace["same"]


def _statement_regexes(tokens: list, separator_mode: Any) -> tuple[Any, Any]:
    """One regex for a statement of these tokens (each lexed in its mode), or None; and its
    lean twin, for the statements it has matched. At each token: the mode's skipped prefix,
    then none of the alternatives the mode tries before this kind, then this kind's pattern,
    atomic (as the lexer matches it alone); a name is not a keyword; then a separator, as the
    separator's mode would lex it.

    The lean regex leaves out the checks that the token is not of another kind (the guards,
    lookaheads that take no text): every other piece is atomic or possessive, so a match
    takes one path and each piece the same text with or without them, and where the full
    regex matched the lean one makes the same groups, at half the cost (`template_match`).
    (Where the full one skips blanks alone before a token, so does the lean one, without the
    test for a `#`: where the full one matched there is none.)"""
    pieces, lean = [], []
    for kind, text, _, _, mode in tokens:
        piece = _position(mode, kind, text)
        if piece is None:
            return None, None
        guard, not_keyword, pattern = piece
        # Before a token that cannot start at a line's end, a comment (which runs to the
        # line's end) cannot come: only blanks are skipped, and a `#` there fails at once,
        # as the whole match would.
        lone = mode.blanks is not None and _starts_no_line_end(pattern)
        pieces.append(f"{mode.blanks}(?!#){guard}((?>{not_keyword}{pattern}))" if lone else f"{mode.prefix}{guard}((?>{not_keyword}{pattern}))")
        lean.append(f"{mode.blanks if lone else mode.prefix}((?>{pattern}))")
    separators, lean_separators = [], []
    for kind in sorted(_SEPARATORS):  # a group named by its kind: the match's `lastgroup`
        piece = _position(separator_mode, kind, "")
        if piece is not None:
            separators.append(f"{piece[0]}(?P<{kind}>{piece[1]}{piece[2]})")
            lean_separators.append(f"(?P<{kind}>{piece[2]})")
    if not separators:
        return None, None
    pieces.append(f"{separator_mode.prefix}(?:{'|'.join(separators)})")
    lean.append(f"{separator_mode.prefix}(?:{'|'.join(lean_separators)})")
    try:
        return re.compile("".join(pieces)), re.compile("".join(lean))
    except (re.error, RecursionError, OverflowError):
        return None, None


_NAME_END = "(?![A-Za-z0-9_])"
# What may let a regex match a newline (or an empty text: the end of the text).
_MAY_TAKE_NEWLINE = ("\n", "\\n", "\\s", "\\W", "\\D", "\\Z", "[^", "(?s", "$", "\\x0", "\\u", "\\N", "\\0", "\\1")


def _starts_no_line_end(pattern: str) -> bool:
    """Whether a token's regex cannot match at a newline or at the end of the text: it
    names nothing that takes a newline, and matches no empty text. (Conservative: a
    pattern that might is treated as if it did.)"""
    if any(piece in pattern for piece in _MAY_TAKE_NEWLINE):
        return False
    try:
        return re.fullmatch(pattern, "") is None
    except re.error:
        return False


def _position(mode: Any, kind: str, text: str) -> tuple[str, str, str] | None:
    """(a guard that no alternative tried before it matches, for a name a guard that it is no
    keyword, the pattern) of a token of `kind` in `mode`; None if the mode has no plain way
    to it."""
    names = [name for name, _ in mode.alternatives]
    if any(name in _IGNORED for name in names):
        return None  # the mode matches skipped text as tokens (inside strings): not here
    patterns = dict(mode.alternatives)
    not_keyword = ""
    if kind in patterns:
        index, pattern = names.index(kind), patterns[kind]
        if kind == "NAME":
            words = "|".join(sorted(_KEYWORD_SET, key=len, reverse=True))
            not_keyword = f"(?!(?:{words}){_NAME_END})"
    elif kind in _KEYWORD_KINDS and "NAME" in patterns and mode.rename.get("NAME", {}).get(text) == kind:
        index, pattern = names.index("NAME"), re.escape(text) + _NAME_END  # NAME renamed
    else:
        return None
    earlier = [regex for _, regex in mode.alternatives[:index]]
    guard = f"(?!{'|'.join(earlier)})" if earlier else ""
    return guard, not_keyword, pattern


class _Node:
    """A point of the trie: the lexer mode for the next token, the next points by token kind,
    and, where a statement may end, its templates by the pattern of equal names."""

    __slots__ = ("children", "mode", "recent", "templates")

    def __init__(self, mode: Any):
        self.mode = mode
        self.children: dict[str, _Node] = {}
        self.templates: dict[tuple, Template] | None = None
        self.recent: list[Template] = []  # at a root: the shapes met last there


class _Unfit(Exception):
    pass


class Shapes:
    """The trie of one parser (its states and modes), learnt across parses."""

    def __init__(self) -> None:
        self.roots: dict[tuple, _Node] = {}
        self.seen: set[tuple] = set()  # shapes parsed in full once: learnt the second time
        self.templates = 0

    # ---- the fast path --------------------------------------------------------------------

    def match(self, text: str, pos: int, root: _Node) -> tuple[int, Compacted] | None:
        """The statement at `pos` and its separator if its shape is known: (where the
        separator ends, the compact statement); None to parse it in full. The shapes met
        last at `root` are tried first, each with one regex for the whole statement."""
        for template in root.recent:
            found = template.whole(text, pos)
            if found is not None:
                return found
        walked = self._walk(text, pos, root)
        if walked is not None:
            end, statement, template = walked
            recent = root.recent
            if template.regex is not None and template not in recent:
                recent.insert(0, template)
                del recent[RECENT:]
            return end, statement
        return None

    def run_of(self, text: str, pos: int, root: _Node, kind: str, separator: str) -> tuple[int, list]:
        """The statements from `pos` on that the shapes met last at `root` take whole, as
        long as each starts with a token of `kind` and ends with `separator`: (where the
        last one's separator ends, their compact forms)."""
        items: list = []
        recent = root.recent
        while True:
            for template in recent:
                found = template.item(text, pos)
                if found is not None:
                    break
            else:
                return pos, items
            if template.first != kind or found[2] != separator:
                return pos, items  # (met again at the next boundary)
            pos = found[0]
            items.append(found[1])

    def _walk(self, text: str, pos: int, root: _Node) -> tuple[int, Compacted, Template] | None:
        """`match` token by token along the trie."""
        node = root
        starts: list[int] = []
        ends: list[int] = []
        texts: list[str] = []
        names: dict[str, int] = {}
        pattern: list[int] = []
        kind: Any = None
        while True:
            match = node.mode.regex.match(text, pos)
            if match is None:
                return None
            kind = match.lastgroup
            start, end = match.span(kind)
            value = match.group(kind)
            rename = node.mode.rename.get(kind)
            if rename:
                kind = rename.get(value, kind)
            if kind in _SEPARATORS:
                templates = node.templates
                if templates is None or not starts:
                    return None
                template = templates.get(tuple(pattern))
                if template is None:
                    return None
                try:
                    values = template.fill(starts, ends, texts)
                except _Unfit:  # a literal rounded to zero: the full parse says so
                    return None
                data = marshal.dumps((template.operations, values))
                return end, Compacted(template.first, data, kind), template
            child = node.children.get(kind)
            if child is None:
                return None
            if kind == "NAME":
                if value in _KEYWORD_SET:
                    return None
                pattern.append(names.setdefault(value, len(starts)))
            starts.append(start)
            ends.append(end)
            texts.append(value)
            pos = end
            node = child

    # ---- learning from the full parse -------------------------------------------------------

    def root(self, boundary: tuple, mode: Any) -> _Node:
        node = self.roots.get(boundary)
        if node is None:
            node = self.roots[boundary] = _Node(mode)
        return node

    def learn(self, root: _Node, tokens: list, separator_mode: Any, statement: Any, lines: LineIndex) -> None:
        """Remember a statement the full parse made: its tokens ``(kind, text, start, end,
        mode)`` after `root`, the mode its separator was lexed in, its nodes."""
        if not tokens or len(tokens) > MAX_TOKENS:
            return
        if self.templates >= MAX_TEMPLATES or any(token[0] not in _ELIGIBLE for token in tokens):
            return
        names: dict[str, int] = {}
        pattern = tuple(names.setdefault(t[1], i) for i, t in enumerate(tokens) if t[0] == "NAME")
        key = (id(root), tuple(t[0] for t in tokens), pattern)
        if key not in self.seen:  # once is not yet a shape that repeats
            if len(self.seen) < MAX_SEEN:
                self.seen.add(key)
            return
        data = encode(statement, lines)
        if data.__class__ is not bytes:
            return
        operations, values = marshal.loads(data)
        try:
            fill = _filler(operations, values, tokens)
        except _Unfit:
            return
        if root.mode is not tokens[0][4]:
            return
        node = root
        for index, token in enumerate(tokens):
            # A point's mode is the one its next token was lexed in (the separator's last).
            mode = tokens[index + 1][4] if index + 1 < len(tokens) else separator_mode
            child = node.children.get(token[0])
            if child is None:
                child = node.children[token[0]] = _Node(mode)
            elif child.mode is not mode:  # cannot be (LALR is deterministic): learn nothing
                return
            node = child
        if node.templates is None:
            node.templates = {}
        if pattern not in node.templates:
            node.templates[pattern] = Template(operations, fill, tokens, separator_mode, pattern)
            self.templates += 1


def _filler(operations: bytes, values: list, tokens: list) -> Any:
    """A function ``fill(starts, ends, texts)`` making the values of the compact form of a
    statement of this shape from its tokens, written out from one instance's values."""
    by_start = {t[2]: i for i, t in enumerate(tokens)}
    by_end = {t[3]: i for i, t in enumerate(tokens)}
    first_by_text: dict[str, int] = {}
    for index, token in enumerate(tokens):
        first_by_text.setdefault(token[1], index)
    pieces: list[tuple[str, tuple]] = []  # a piece of code ({s}, {e}, {t}: a token's) and its token
    constants: list = []
    at = 0
    span_start: int | None = None  # the token the latest span starts at
    for operation, _ in postfix_steps(operations):
        if operation == _SPAN:
            start, end = values[at], values[at + 1]
            if start not in by_start or end not in by_end:
                raise _Unfit
            span_start = by_start[start]
            pieces += [("{s}", (span_start,)), ("{e}", (by_end[end],))]
            at += 2
        elif operation == _LITERAL:
            value = values[at]
            at += 1
            if value.__class__ is float:
                # A number node's value, from the token its span starts at.
                if span_start is None or tokens[span_start][0] not in _NUMBERS:
                    raise _Unfit
                if struct.pack("<d", _number(tokens[span_start][1])) != struct.pack("<d", value):
                    raise _Unfit
                # (`n` again only for a zero, which may be a literal rounded away)
                pieces.append(("(float({t}) or n({t}))", (span_start,)))
            elif value.__class__ is str:
                if span_start is not None and tokens[span_start][1] == value:
                    index = span_start  # a name, a call's function, `var`: where its span starts
                else:
                    index = first_by_text.get(value, -1)
                if index >= 0 and tokens[index][0] == "NAME":
                    pieces.append(("i({t})", (index,)))
                elif index >= 0:  # an operator or keyword: its kind has one text
                    constants.append(intern(value))
                    pieces.append((f"c[{len(constants) - 1}]", ()))
                else:
                    constants.append(value)
                    pieces.append((f"c[{len(constants) - 1}]", ()))
            elif value is None:
                pieces.append(("None", ()))
            else:
                raise _Unfit
    # Two versions: from the trie walk's lists, and from a whole-statement match (its
    # groups' spans and texts; group 0 is the whole match).
    listed = ", ".join(piece.format(s="s[{0}]", e="e[{0}]", t="t[{0}]").format(*index) for piece, index in pieces)
    grouped = [piece.format(s="r[{0}][0]", e="r[{0}][1]", t="g[{0}]").format(*shifted) for piece, shifted in _shift(pieces)]
    # Whether a match's number literals are what the builder takes (none rounded to zero).
    numbers = sorted({index[0] for piece, index in pieces if piece.startswith("(float(")})
    checks = "".join(f"        float(g[{index}]) or n(g[{index}])\n" for index in numbers)
    code = (
        f"def fill(s, e, t):\n    return [{listed}]\n"
        f"def fill_groups(r, g):\n    return [{', '.join(grouped)}]\n"
        f"def fits(g):\n    try:\n{checks}        return True\n    except Unfit:\n        return False\n"
    )
    used: dict[str, Any] = {"n": _number, "i": intern, "c": tuple(constants)}  # by the pieces
    namespace = {**used, "Unfit": _Unfit}
    exec(code, namespace)  # noqa: S102 - generated from operation codes and token indices only
    # Each value as `fill_groups` reads it, for `straight`, with the names it uses.
    return namespace["fill"], namespace["fill_groups"], namespace["fits"], (tuple(grouped), used)


def _shift(pieces: list) -> list:
    """The pieces' indices for `fill_groups`: spans from group index + 1, texts from the
    groups tuple (which leaves out group 0)."""
    shifted = []
    for piece, index in pieces:
        if "{s}" in piece or "{e}" in piece:
            shifted.append((piece, tuple(i + 1 for i in index)))
        else:
            shifted.append((piece, index))
    return shifted


def _number(text: str) -> float:
    """A number literal's value as the builder reads it; a literal whose digits are not all
    zero but whose value is (``1e-400``) is left to the full parse, which reports it."""
    value = float(text)
    if value == 0.0:
        mantissa = text.split("e")[0].split("E")[0]
        if any(digit in mantissa for digit in "123456789"):
            raise _Unfit
    return value


__all__ = ["Compacted", "Shapes"]
