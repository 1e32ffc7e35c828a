"""The contextual lexer of `.sad`: tokens for lark's LALR parser, one regex match each.

In each parser state only the terminals that state can take are tried, as lark's contextual
lexer does, so `non-finite-seed` is a KIND after `expect` and a subtraction elsewhere, and a
keyword where only a name fits is a NAME (then rejected). ``Guard`` checks, token by token,
what the grammar cannot say: newlines inside `( ... )` and `[ ... ]` are dropped, keywords are
not names, and nesting stops at MAX_NESTING before the parser's stack grows. The lexer also
drops the newlines between a block's `}` and an `else` on a later line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from .lexicon import KEYWORDS
from .syntax_errors import (
    MAX_NESTING,
    keyword_as_name,
    tok_span,
    too_deep,
    unexpected_character,
)

if TYPE_CHECKING:
    from lark.lexer import PatternStr

    from .shapes import Shapes

_KEYWORD_SET = frozenset(KEYWORDS)
# After a block's `}`: blank or comment lines, then `else` (not `elsewhere`).
_ELSE_AHEAD = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n)+[ \t]*(?=else(?![A-Za-z0-9_]))")


class Mode:
    """The lexer for one set of terminals the parser can take next, as one of lark's
    contextual lexers would do it, in a single regex match per token: alternatives in lark's
    order, keywords found by NAME and renamed (lark's "unless"), and ignored terminals (spaces,
    comments) skipped as a prefix of the match unless something outranks them (inside a
    string, TEXT.2 does: there they are ordinary alternatives that the lexer drops)."""

    def __init__(self, terminals: list, ignore: frozenset[str]):
        from lark.lexer import PatternStr

        terminals = sorted(
            terminals,
            key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name),
        )
        self.rename: dict[str, dict[str, str]] = {}  # regex terminal -> {word: string terminal}
        embedded = set()
        for rex in (t for t in terminals if not isinstance(t.pattern, PatternStr)):
            for term in terminals:
                if isinstance(term.pattern, PatternStr) and term.priority == rex.priority:
                    word = term.pattern.value
                    match = re.match(rex.pattern.to_regexp(), word)
                    if match and match.group(0) == word:
                        self.rename.setdefault(rex.name, {})[word] = term.name
                        embedded.add(term.name)
        kept = _fast_order([t for t in terminals if t.name not in embedded], PatternStr)
        skipped = [t for t in kept if t.name in ignore]
        prefix, blanks = "", None
        if skipped and all(t.priority <= min(s.priority for s in skipped) for t in kept):
            prefix, blanks = skip_prefix([t.pattern.to_regexp() for t in skipped]), _blanks_of(skipped)
            kept = [t for t in kept if t.name not in ignore]
        # The alternatives in the order they are tried, and the prefix: `shapes` writes a
        # regex for a whole statement from them.
        self.alternatives = tuple((t.name, _whole_word(t, PatternStr)) for t in kept)
        self.prefix = prefix
        # The blanks part of the prefix alone (None where the prefix is not blanks and a `#`
        # comment): before a token that cannot start where a line ends, a comment cannot be.
        self.blanks = blanks
        alternatives = "|".join(f"(?P<{name}>{regex})" for name, regex in self.alternatives)
        self.regex = re.compile(f"{prefix}(?:{alternatives})")


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# This grammar's ignored terminals: a run of blanks (no newline among them), a comment from
# `#` to the end of its line (`shapes` counts on the `#`).
_BLANKS = re.compile(r"\[(?: |\t|\\t)+\]\+")
_LINE_COMMENT = re.compile(r"#\[\^(?:\n|\\n)\]\*")


def _blanks_of(skipped: list) -> str | None:
    short = _blanks_and_comment([t.pattern.to_regexp() for t in skipped])
    return None if short is None else f"{short[0][:-1]}*+"


def skip_prefix(skipped: list[str]) -> str:
    """The regex that skips any run of the ignored terminals (`skipped`: their regexes)
    before a token; atomic, so that a failed match never backtracks into a comment. For
    blanks and a line comment it is ``blanks, then at most one comment``: the comment ends
    where the line does, and no blank takes a newline, so nothing follows it in the run. The
    same text is skipped, at half the cost of a repeated alternation (the regex of a whole
    statement pays this before every token)."""
    short = _blanks_and_comment(skipped)
    if short is not None:
        blanks, comment = short
        return f"{blanks[:-1]}*+(?:{comment}+)?+"
    return "(?>(?:" + "|".join(skipped) + ")*)"


def _blanks_and_comment(skipped: list[str]) -> tuple[str, str] | None:
    """(the blanks' regex, the comment's) when the ignored terminals are just those two."""
    if len(skipped) != 2:
        return None
    blanks = [regex for regex in skipped if _BLANKS.fullmatch(regex)]
    comments = [regex for regex in skipped if _LINE_COMMENT.fullmatch(regex)]
    if len(blanks) == 1 and len(comments) == 1:
        return blanks[0], comments[0]
    return None


def _whole_word(terminal: Any, string_pattern: type[PatternStr]) -> str:
    """A keyword where no name fits only matches as a whole word: `for x indata` is not
    `for x in data` (lark's lexer would take `in` there and go on)."""
    regex = terminal.pattern.to_regexp()
    if isinstance(terminal.pattern, string_pattern) and _WORD.match(terminal.pattern.value):
        return regex + "(?![A-Za-z0-9_])"
    return regex


# The alternatives most often taken, tried first (a regex tries its alternatives in order).
_COMMON = ("_NL", "PLUS", "STAR", "RPAR", "_COMMA", "MINUS", "SLASH", "LPAR", "_EQUAL", "_SEMI")


def _fast_order(terminals: list, string_pattern: type[PatternStr]) -> list:
    """lark's order of alternatives, except that the plain strings (and the newline) go
    commonest first. Two strings can only both match where one is a prefix of the other, so
    the longer of those is kept ahead: the same token wins as in lark's order."""
    loose = [t for t in terminals if isinstance(t.pattern, string_pattern) or t.name == "_NL"]
    fixed = [t for t in terminals if t not in loose]
    rank = {name: index for index, name in enumerate(_COMMON)}
    loose.sort(key=lambda t: rank.get(t.name, len(rank)))  # stable: lark's order otherwise
    ordered: list = []
    for term in loose:
        value = term.pattern.value
        at = len(ordered)
        for index, earlier in enumerate(ordered):  # a prefix of this one already placed?
            if earlier.name != "_NL" and value != earlier.pattern.value and value.startswith(earlier.pattern.value):
                at = index
                break
        ordered.insert(at, term)
    return fixed + ordered


class Lexer:
    """Tokens for lark's LALR parser, each lexed with the mode of the parser's current state."""

    # Only inside a string does TEXT make sense; elsewhere it would swallow any stray text.
    _CONTEXT_ONLY = ("TEXT",)

    def __init__(self, terminals: list, ignore: list[str]):
        self.terminals = {t.name: t for t in terminals}
        self.ignore = frozenset(ignore)
        self.modes: dict[Any, Mode] = {}  # parser state -> mode
        self.by_names: dict[frozenset, Mode] = {}  # many states take the same terminals
        everything = [t for t in terminals if t.name not in self._CONTEXT_ONLY]
        self.root = Mode(everything, self.ignore)  # to say what is there when nothing fits
        ignored = "|".join(self.terminals[name].pattern.to_regexp() for name in ignore)
        self.skip = re.compile(f"(?:{ignored})*")

    def mode(self, state: Any, choices: dict) -> Mode:
        """The mode for a parser state, from what that state can take (`choices`)."""
        mode = self.modes.get(state)
        if mode is None:
            # A newline is always lexed (the parser may not take it, inside parentheses).
            names = frozenset(n for n in choices if n in self.terminals) | {"_NL"} | self.ignore
            mode = self.by_names.get(names)
            if mode is None:
                mode = Mode([self.terminals[n] for n in names], self.ignore)
                self.by_names[names] = mode
            self.modes[state] = mode
        return mode

    def tokens(self, text: str, interactive: Any, fast: FastPath | None = None):
        """The tokens of `text` for lark's interactive parser, whose state is read before
        each token; ends at the end of the text. With `fast`, between two top-level
        statements a statement of a known shape comes as one `Compacted` (see `shapes`), and
        the ones parsed in full are learnt from."""
        from lark import Token

        # A token's fields set here: lark's Token() checks for a deprecated keyword, then
        # calls Token._future_new, which sets them (two calls more per token).
        new_token = str.__new__
        state_stack = interactive.parser_state.state_stack
        guard = Guard()
        track, ignore, watched, keywords = guard.track, self.ignore, _WATCHED, _KEYWORD_SET
        previous = None  # the kind of the last token the parser was given
        modes = self.modes
        pos, line, line_start = 0, 1, 0
        kind: Any  # a terminal's name: `match.lastgroup` is never None, every alternative is a named group
        if fast is not None:
            shapes, boundaries, boundary_states = fast.shapes, fast.boundaries, fast.states
            value_stack, lines, steady = interactive.parser_state.value_stack, fast.lines, fast.steady
        else:
            boundary_states = frozenset()
        recording: list | None = None  # the tokens of a top-level statement parsed in full
        root: Any = None
        while True:
            state = state_stack[-1]
            mode = modes.get(state) or self.mode(state, interactive.choices())
            if state in boundary_states and (boundary := tuple(state_stack)) in boundaries:
                if recording:  # the statement before is reduced but for its separator
                    separator = recording.pop()
                    where = boundaries[boundary]
                    if where is not None and separator[0] in _SEPARATOR_KINDS:
                        shapes.learn(root, recording, separator[4], value_stack[where], lines)
                root = shapes.root(boundary, mode)
                found = shapes.match(text, pos, root)
                if found is not None:
                    pos, statement = found
                    previous = statement.separator
                    if previous == "_NL":  # the only newline of such a statement
                        line, line_start = line + 1, pos
                    recording = None
                    if steady.get((*boundary, statement.type, previous)) is not None:
                        # The driver's steps would leave the parser here again: the statements
                        # after it that start and end alike come with it (`Compacted.more`).
                        pos, more = shapes.run_of(text, pos, root, statement.type, previous)
                        if more:
                            statement.more = more
                            if previous == "_NL":
                                line, line_start = line + len(more), pos
                    yield statement
                    continue
                recording = []
            match = mode.regex.match(text, pos)
            if match is None:
                mode, match = self.root, self.unexpected(text, pos)
                if match is None:
                    return
            kind = match.lastgroup
            start, end = match.span(kind)  # the group is the match's end
            if start > pos and (skipped := text.count("\n", pos, start)):
                line, line_start = line + skipped, text.rfind("\n", pos, start) + 1
            value = match.group(kind)
            rename = mode.rename.get(kind)
            if rename:
                kind = rename.get(value, kind)
            column = start - line_start + 1
            newlines = value.count("\n")
            if newlines:
                line_start = text.rfind("\n", start, end) + 1
                end_line, end_column = line + newlines, end - line_start + 1
            else:
                end_line, end_column = line, column + (end - start)
            token = new_token(Token, value)
            token.type, token.value, token.start_pos, token.end_pos = kind, value, start, end
            token.line, token.column, token.end_line, token.end_column = line, column, end_line, end_column
            pos, line = end, end_line
            # What the grammar cannot say (the guard, below); most tokens need no look.
            if kind in watched:
                if not track(kind, token, previous):
                    recording = None
                    continue  # a newline inside brackets
            elif kind == "NAME":
                if value in keywords:
                    raise guard.keyword_as_name(token, previous)
            elif kind in ignore:
                recording = None
                continue
            previous = kind
            if recording is not None:
                recording.append((kind, value, start, end, mode))
            yield token
            if kind == "RBRACE" and guard.block_closed:
                ahead = _ELSE_AHEAD.match(text, pos)
                if ahead is not None:  # `}` newline `else`: as if on one line
                    line += text.count("\n", pos, ahead.end())
                    line_start = text.rfind("\n", pos, ahead.end()) + 1
                    pos = ahead.end()

    def unexpected(self, text: str, pos: int) -> re.Match[str] | None:
        """Nothing the parser takes is at `pos`: the root match of whatever token is there
        (the parser will reject it and say what it expected), None at the end of the text."""
        match = self.root.regex.match(text, pos)
        if match is not None:
            return match
        bad = cast("re.Match[str]", self.skip.match(text, pos)).end()  # `(?:...)*` matches anywhere
        if bad >= len(text):
            return None
        raise unexpected_character(text, bad)


class FastPath:
    """What the lexer needs for the fast path of `shapes`: the trie, the parser's stacks
    between two top-level statements (each with where on the value stack the statement just
    finished is, None after a bare separator or at the start), their top states (to test
    cheaply first), the line index the compact statements' spans refer to, and the driver's
    steady steps (``syntax._steady``: for a state stack, a statement's first kind and its
    separator, a callback where the steps for it leave the stack as it was)."""

    __slots__ = ("boundaries", "lines", "shapes", "states", "steady")

    def __init__(self, shapes: Shapes, boundaries: dict[tuple, int | None], lines: Any, steady: dict):
        self.shapes = shapes
        self.boundaries = boundaries
        self.states = frozenset(boundary[-1] for boundary in boundaries)
        self.lines = lines
        self.steady = steady


_SEPARATOR_KINDS = frozenset(("_NL", "_SEMI"))

# What the guard keeps on its stack for each open bracket.
_PAREN, _BRACKET, _BLOCK, _HOLE, _STRING = "(", "[", "{", "h", '"'
_WATCHED = frozenset(
    ("LPAR", "RPAR", "LSQB", "RSQB", "LBRACE", "RBRACE", "QUOTE", "_NL", "_SEMI", "EXPECT",
     "QUIET", "IF")
)


class Guard:
    """What the grammar cannot say, checked token by token for one parse.

    ``open`` holds the brackets open now: `(`, `[`, a block's `{`, a string's `{` hole and a
    string's `"`. A newline is dropped when the innermost is `(` or `[` and no string is open
    (strings never span lines, even inside a hole's parentheses). ``level`` is the nesting of
    the statement being read: each block, `expect`, `quiet` and `else if` is one; a newline or
    `;` goes back to the level of the enclosing block.
    """

    __slots__ = ("block_closed", "block_levels", "brackets", "level", "open", "parens", "strings")

    def __init__(self) -> None:
        self.open: list[str] = []
        self.parens = self.strings = self.level = 0
        self.block_levels: list[int] = []  # the level inside each open block
        self.block_closed = False
        self.brackets: list = []  # the open `(` and `[` tokens, for an error to point back at

    def keyword_as_name(self, token: Any, previous: str | None):
        """The error for a keyword lexed as a NAME (where only a name fits)."""
        bracket = self.brackets[-1] if self.brackets and self.open[-1] in "([" else None
        return keyword_as_name(token, previous, bracket)

    def track(self, kind: str, token: Any, previous: str | None) -> bool:
        """Follow a bracket, separator or statement prefix (a kind in ``_WATCHED``); False
        for a token the parser must not see (a newline inside brackets)."""
        opened = self.open
        if kind == "_NL":
            if opened and opened[-1] in "([" and not self.strings:
                return False
            self.level = self.block_levels[-1] if self.block_levels else 0
        elif kind == "LPAR":
            opened.append(_PAREN)
            self.brackets.append(token)
            self.parens += 1
            if self.parens > MAX_NESTING:
                raise too_deep(tok_span(token))
        elif kind == "RPAR":
            if opened and opened[-1] == _PAREN:
                opened.pop()
                self.brackets.pop()
                self.parens -= 1
        elif kind == "QUOTE":
            if opened and opened[-1] == _STRING:
                opened.pop()
                self.strings -= 1
            else:
                opened.append(_STRING)
                self.strings += 1
        elif kind == "LBRACE":
            if opened and opened[-1] == _STRING:
                opened.append(_HOLE)
            else:
                opened.append(_BLOCK)
                self._deeper(token, "blocks nest")
                self.block_levels.append(self.level)
        elif kind == "RBRACE":
            self.block_closed = bool(opened) and opened[-1] == _BLOCK
            if self.block_closed:
                self.level = self.block_levels.pop() - 1  # the header's level, for `else`
            if opened and opened[-1] in (_BLOCK, _HOLE):
                opened.pop()
        elif kind == "LSQB":
            opened.append(_BRACKET)
            self.brackets.append(token)
        elif kind == "RSQB":
            if opened and opened[-1] == _BRACKET:
                opened.pop()
                self.brackets.pop()
        elif kind == "_SEMI":
            self.level = self.block_levels[-1] if self.block_levels else 0
        elif kind == "IF":
            if previous == "ELSE":
                self._deeper(token, "`else if` chains nest")
        else:  # EXPECT, QUIET
            self._deeper(token, "statements nest")
        return True

    def _deeper(self, token: Any, what: str) -> None:
        self.level += 1
        if self.level > MAX_NESTING:
            raise too_deep(tok_span(token), what)
