"""Syntax highlighting of `.sad` source: a Pygments lexer and its colours.

``SadLexer`` is a Pygments ``RegexLexer`` (alias ``sad``, files ``*.sad``): keywords, built-in
functions, numbers, strings with their ``{...}`` holes, comments and operators. The REPL uses it
through prompt_toolkit's ``PygmentsLexer`` with ``prompt_toolkit_style_rules()``; anything that
prints with rich (diagnostics, for one) can colour a source line the same way with
``highlight_source``. This module does not import prompt_toolkit.

A `.sad` token never spans lines (strings end on their line; a newline inside parentheses is
only whitespace), so every line can be lexed on its own: the REPL lexes only the lines it shows.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, words
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
from rich.style import Style
from rich.text import Text

from .interpreter import KEYWORDS, STATEMENT_FUNCTIONS, VALUE_FUNCTIONS

BUILTINS = tuple(VALUE_FUNCTIONS) + tuple(STATEMENT_FUNCTIONS)

_CONSTANT_WORDS = ("inf", "nan")
_KEYWORD_WORDS = tuple(word for word in KEYWORDS if word not in _CONSTANT_WORDS)
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_KIND = r"[a-z]+(?:-[a-z]+)*"


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
            (rf"(expect)([ \t]+)({_KIND})", bygroups(Keyword, Whitespace, Name.Exception)),
            include("expression"),
            (r"[;:]", Punctuation),
        ],
        "expression": [
            (r"\n", Whitespace),
            (r"[ \t\f\r]+", Whitespace),
            (words(_CONSTANT_WORDS, suffix=r"\b"), Keyword.Constant),
            (words(_KEYWORD_WORDS, suffix=r"\b"), Keyword),
            (words(BUILTINS, suffix=r"\b"), Name.Builtin),
            (_NAME, Name),
            (_NUMBER, Number.Float),
            (r"==|!=|<=|>=|[-+*/<>=]", Operator),
            (r"[(),]", Punctuation),
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
