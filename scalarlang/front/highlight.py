"""Syntax highlighting of `.sad` source: a Pygments lexer and its colours.

``SadLexer`` is a Pygments ``RegexLexer`` (alias ``sad``, files ``*.sad``): keywords, built-in
functions, numbers, strings with their ``{...}`` holes, comments, operators, block braces and
table brackets. Its lexical rules (keywords, names, numbers, operators) are the grammar's
terminals, read by ``lexicon``; this module adds only the colours. The REPL uses it
through prompt_toolkit's ``PygmentsLexer`` with ``prompt_toolkit_style_rules()``; anything that
prints with rich (diagnostics, for one) can colour a source line the same way with
``highlight_source``. This module does not import prompt_toolkit.

A `.sad` token never spans lines (strings end on their line; a newline inside parentheses is
only whitespace), so every line can be lexed on its own: the REPL lexes only the lines it shows.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from pygments.lexer import Future, RegexLexer, bygroups, include, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
    _TokenType,
)

from ..language import lexicon

if TYPE_CHECKING:
    from rich.style import Style
    from rich.text import Text

# Every lexical rule comes from the grammar's terminals (lexicon.py); only the colours are here.
_CONSTANT_WORDS = lexicon.VALUE_KEYWORDS
_KEYWORD_WORDS = tuple(word for word in lexicon.KEYWORDS if word not in _CONSTANT_WORDS)
_NAME = lexicon.NAME
_NUMBER = lexicon.NUMBER
_KIND = lexicon.KIND
_PUNCTUATION_TERMINALS = {"QUOTE", "LBRACE", "RBRACE", "LSQB", "RSQB", "LPAR", "RPAR", "_COMMA", "_SEMI", "_COLON"}
# Longest first, so that `**` is one operator and not two `*`.
_OPERATOR = "|".join(
    re.escape(value)
    for value in sorted(
        (v for name, v in lexicon.OPERATORS.items() if name not in _PUNCTUATION_TERMINALS),
        key=len,
        reverse=True,
    )
)


def _builtin_names() -> tuple[str, ...]:
    from ..interpreter.library.registry import builtin_names

    return builtin_names()


class _Builtins(Future):
    """The built-in function names as a Pygments pattern, read from the interpreter when the
    lexer is first used (Pygments resolves a Future then), so that importing this module
    (a Pygments plugin entry point) does not import the interpreter."""

    def get(self) -> str:
        return words(_builtin_names(), suffix=r"\b").get()


def __getattr__(name: str):
    if name == "BUILTINS":  # the built-in names, for whoever asks; read when asked
        return _builtin_names()
    raise AttributeError(name)


class SadLexer(RegexLexer):
    """The `.sad` language of scalarlang."""

    name = "scalarlang"
    aliases = ["sad", "scalarlang"]
    filenames = ["*.sad"]
    mimetypes = ["text/x-sad"]

    tokens = {
        "root": [
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (rf"(let)([ \t]+)({_NAME})", bygroups(Keyword.Declaration, Whitespace, Name.Variable)),
            (rf"(fn)([ \t]+)({_NAME})", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (rf"(expect)([ \t]+)({_KIND})", bygroups(Keyword, Whitespace, Name.Exception)),
            include("expression"),
            (r"[;:{}]", Punctuation),  # outside a string, braces are a block's
        ],
        "expression": [
            (r"\n", Whitespace),
            (r"[ \t\f\r]+", Whitespace),
            (words(_CONSTANT_WORDS, suffix=r"\b"), Keyword.Constant),
            (words(_KEYWORD_WORDS, suffix=r"\b"), Keyword),
            (_Builtins(), Name.Builtin),
            (_NAME, Name),
            (_NUMBER, Number.Float),
            (_OPERATOR, Operator),
            (r"[(),\[\]]", Punctuation),
        ],
        "string": [
            (r'"', String.Double, "#pop"),
            (r'\\["\\n]', String.Escape),
            (r"\{\{|\}\}", String.Escape),
            (r"\{", String.Interpol, "hole"),
            (r"\n", Whitespace, "#pop"),  # a string never spans lines: the rest is code again
            (r'[^"\\{}\n]+', String.Double),
            (r"\\[^\n]?|\}", Error),  # an unknown escape, or a single `}`
        ],
        "hole": [
            (r"\}", String.Interpol, "#pop"),
            (r"\n", Whitespace, "#pop:2"),
            (r'"', Error, "#pop:2"),  # the string ended inside `{...}`
            (r"#[^\n]*", Comment.Single),
            include("expression"),
        ],
    }


# ---- colours ------------------------------------------------------------------------------
# One table for both front ends, in rich's notation; prompt_toolkit's is derived from it. A
# token also takes the styles of its parents (`Keyword.Constant` is bold like `Keyword`).
# Plain named colours, so they read on a 16-colour terminal and on light and dark backgrounds.

TOKEN_STYLES: dict[_TokenType, str] = {
    Comment: "italic bright_black",
    Keyword: "bold magenta",
    Keyword.Constant: "magenta",
    Name.Builtin: "blue",
    Name.Variable: "bold",
    Name.Function: "bold blue",
    Name.Exception: "yellow",
    Number: "cyan",
    String: "green",
    String.Escape: "bold green",
    String.Interpol: "bold yellow",
    Operator: "bold",
    Error: "bold red",
}

_STYLE_CACHE: dict[_TokenType, Style] = {}
_LEXER: SadLexer | None = None


def style_of(token: _TokenType) -> Style:
    """The rich style of a token: its parents' entries with its own on top, as prompt_toolkit
    combines the class names of a token (``Keyword.Constant`` is bold from ``Keyword``)."""
    style = _STYLE_CACHE.get(token)
    if style is None:
        from rich.style import Style

        chain = []
        current = token
        while current is not None:
            if current in TOKEN_STYLES:
                chain.append(Style.parse(TOKEN_STYLES[current]))
            current = current.parent
        style = Style.chain(*reversed(chain)) if chain else Style.null()
        _STYLE_CACHE[token] = style
    return style


def highlight_source(text: str) -> Text:
    """``text`` as a rich ``Text`` coloured like the REPL colours it; the characters are
    exactly those of ``text`` (no newline added or removed, tabs kept). Never raises: if the
    lexer fails, the text comes back plain."""
    global _LEXER
    from rich.text import Text

    try:
        if _LEXER is None:
            _LEXER = SadLexer(stripnl=False, ensurenl=False)
        result = Text()
        for _, token, value in _LEXER.get_tokens_unprocessed(text):
            result.append(value, style_of(token))
        return result
    except Exception:
        return Text(text)


def prompt_toolkit_style_rules() -> dict[str, str]:
    """The same colours as prompt_toolkit style rules for ``PygmentsLexer``'s class names
    (``pygments.keyword.constant`` ...), to give to ``Style.from_dict``."""
    return {_class_name(token): _prompt_toolkit_style(style) for token, style in TOKEN_STYLES.items()}


def _class_name(token: _TokenType) -> str:
    # As prompt_toolkit.styles.pygments.pygments_token_to_classname.
    return ".".join(("pygments",) + tuple(token)).lower()


def _prompt_toolkit_style(style: str) -> str:
    """``bold bright_black`` -> ``bold ansibrightblack``."""
    attributes = {"bold", "italic", "underline", "reverse", "blink", "strike"}
    parts = []
    for word in style.split():
        if word in attributes:
            parts.append(word)
        else:
            parts.append("ansi" + word.replace("_", ""))
    return " ".join(parts)


__all__ = [
    "BUILTINS",
    "SadLexer",
    "TOKEN_STYLES",
    "highlight_source",
    "prompt_toolkit_style_rules",
    "style_of",
]
