"""The lexical rules of `.sad`, read from the grammar's terminals: the one place they live.

``grammars/scalarlang.lark`` defines every terminal on one line (``NAME: /.../``,
``LET: "let"``). The parser's lexer takes them from lark; the Pygments highlighter and the
REPL's completion take them from here, read with one regex when this module is imported (no
lark: the highlighter is a Pygments plugin and must stay cheap to import).

- ``KEYWORDS``: the word-like string terminals, in the grammar's order (``let`` ... ``quiet``);
  ``VALUE_KEYWORDS`` the ones that are values (``inf``, ``nan``).
- ``NAME``, ``NUMBER``, ``KIND``: the regexes of names, numbers and error kinds (Python syntax).
- ``OPERATORS``: the other string terminals (``**``, ``..``, ``(`` ...) by terminal name.
"""

from __future__ import annotations

import re
from pathlib import Path

# An installed wheel or sdist holds the grammar inside the package (pyproject maps the top-level
# grammars/ folder to the subpackage scalarlang.grammars); a checkout or an editable install
# finds it in the top-level folder itself, its one home.
_PACKAGED_GRAMMAR = Path(__file__).parents[1] / "grammars" / "scalarlang.lark"
GRAMMAR_PATH = (
    _PACKAGED_GRAMMAR
    if _PACKAGED_GRAMMAR.is_file()
    else Path(__file__).parents[2] / "grammars" / "scalarlang.lark"
)

# `NAME.2: /regex/flags` or `NAME: "string"`, alone on a line (after an optional priority).
_TERMINAL = re.compile(
    r'^(?P<name>_?[A-Z][A-Z0-9_]*)(?:\.-?\d+)?[ \t]*:[ \t]*'
    r'(?:"(?P<string>(?:[^"\\]|\\.)*)"|/(?P<regex>(?:[^/\\]|\\.)*)/[imslux]*)[ \t]*$',
    re.MULTILINE,
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def read_terminals(text: str) -> dict[str, tuple[str, str]]:
    """``{terminal name: ("string", text) or ("regex", pattern)}``, in the grammar's order."""
    terminals = {}
    for match in _TERMINAL.finditer(text):
        if match.group("string") is not None:
            # Lark's string escapes are Python's for the ones the grammar uses (`\"`, `\\`).
            value = re.sub(r"\\(.)", r"\1", match.group("string"))
            terminals[match.group("name")] = ("string", value)
        else:
            terminals[match.group("name")] = ("regex", match.group("regex").replace("\\/", "/"))
    return terminals


TERMINALS = read_terminals(GRAMMAR_PATH.read_text(encoding="utf-8"))

KEYWORDS: tuple[str, ...] = tuple(
    value for kind, value in TERMINALS.values() if kind == "string" and _WORD.match(value)
)
VALUE_KEYWORDS: tuple[str, ...] = tuple(TERMINALS[name][1] for name in ("INF", "NAN"))
OPERATORS: dict[str, str] = {
    name: value
    for name, (kind, value) in TERMINALS.items()
    if kind == "string" and not _WORD.match(value)
}
NAME: str = TERMINALS["NAME"][1]
NUMBER: str = TERMINALS["NUMBER"][1]
KIND: str = TERMINALS["KIND"][1]

__all__ = [
    "GRAMMAR_PATH",
    "KEYWORDS",
    "KIND",
    "NAME",
    "NUMBER",
    "OPERATORS",
    "TERMINALS",
    "VALUE_KEYWORDS",
    "read_terminals",
]
