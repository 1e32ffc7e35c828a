"""A built-in called without its parentheses (`tanh x`, `backward loss`, `mean 1, 2)`): which
built-ins the hint knows, and the call it suggests, with the arguments as the user wrote them.

hints.py's `token_hint` decides that a name of `BARE_CALLS` followed by a value is such a call;
`bare_call_hint` says how to write it. The arguments run from the value to a `)` that closes
nothing (`mean 1, 2)`: all of them, as written), or else to the end of the line (or the
bracket around the call, `graph(max loss)`), where they are taken only when they are one value:
`grad x + 1` may be `grad(x) + 1` or `grad(x + 1)`, and a comma in `sum(1, tanh 2, 3)` may be
either call's, so the hint then shows no arguments, `grad(...)`.
"""

from __future__ import annotations

import re

# Built-ins that Python's and the maths' habits call without parentheses (`grad x`, `tanh x`):
# a name of these followed by a value is a call. (tests/test_parser.py checks they are built-ins.)
BARE_CALLS = frozenset({
    "grad", "value", "backward", "detach", "len", "exp", "log", "tanh", "sqrt", "relu", "sigmoid", "abs",
    "sum", "mean", "max", "min", "softmax", "logsumexp", "argmax",
})
# After the value: a binding (`sum x1 = 2`: a misspelled `let`?) or a call (`value f(x)`).
NOT_AN_ARGUMENT = re.compile(r"[ \t]*(=(?!=)|\()")

# One value, once each bracket's and text's contents are left out: a name, a number, a text, a
# group or a list, then any calls and indexings (`W[0]`, `f(x)[1]`).
_ONE_VALUE = re.compile(
    r'(?:[A-Za-z_][A-Za-z0-9_]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|""|\(\)|\[\])(?:\(\)|\[\])*'
)
_LONGEST = 80  # arguments longer than this are not repeated in the hint
_OPENERS, _CLOSERS = "([{", ")]}"


def bare_call_hint(name: str, start: int, text: str, enclosed: bool) -> str:
    """The note for ``name`` called without parentheses, its first argument at ``text[start]``;
    ``enclosed``: the call is inside a bracket still open before it."""
    arguments = call_arguments(text, start, enclosed)
    shown = arguments if arguments is not None and len(arguments) <= _LONGEST else "..."
    return f"help: a function's arguments are in parentheses: `{name}({shown})`"


def call_arguments(text: str, start: int, enclosed: bool) -> str | None:
    """The arguments from ``start`` as written, or None where they cannot be told for sure."""
    depth = 0
    skeleton: list[str] = []  # the arguments with every bracket's and text's contents left out
    at = start
    while at < len(text):
        char = text[at]
        if char == '"':
            end = _text_end(text, at)
            if end is None:
                return None  # (an unclosed text)
            if depth == 0:
                skeleton.append('""')
            at = end
            continue
        if char in "\n;#" and depth == 0:  # the end of the line or the statement; a comment
            break
        if char in _OPENERS:
            depth += 1
            if depth == 1:
                skeleton.append(char)
        elif char in _CLOSERS:
            if depth == 0:
                if char == ")" and not enclosed:  # a `)` that closes nothing: the call's own
                    return text[start:at].strip() or None
                break  # the bracket around the call
            depth -= 1
            if depth == 0:
                skeleton.append(char)
        elif depth == 0:
            skeleton.append(char)
        at += 1
    if depth:
        return None
    return text[start:at].strip() if _ONE_VALUE.fullmatch("".join(skeleton).strip()) else None


def _text_end(text: str, at: int) -> int | None:
    """Just past the text literal starting at ``text[at]`` on its line (None: not closed on it)."""
    index = at + 1
    while index < len(text) and text[index] != "\n":
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return index + 1
        index += 1
    return None
