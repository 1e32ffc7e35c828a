"""`:help TOPIC`: one part of the `:help` page, found in the page's own blocks.

The page is a list of sections (a heading and its rows: the language by task, from
language/overview.py and the registry, then the commands, error kinds and keys). A topic is
not a second list written by hand: it is a section whose heading has the word (`:help lists`,
`:help training`, `:help chain`, `:help keys`), or else the rows whose form has the word as a
whole word (`:help plot`, `:help let`, `:help for`, `:help :draw`), each under its heading. So a
new built-in, form or task is a topic as soon as it is on the page.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from .help_layout import Block, Heading, Row

# Words of a heading that name no topic of their own.
_FILLERS = {"and", "the", "of", "a", "seeing", "more"}


def sections(blocks: Sequence[Block]) -> list[tuple[Heading, list[Block]]]:
    """The page's blocks grouped under their headings (blocks before the first: dropped)."""
    grouped: list[tuple[Heading, list[Block]]] = []
    for block in blocks:
        if isinstance(block, Heading):
            grouped.append((block, []))
        elif grouped:
            grouped[-1][1].append(block)
    return grouped


def topic_words(blocks: Sequence[Block]) -> list[str]:
    """Every word that names a section, in the page's order (for the error of an unknown topic
    and for completion)."""
    words: list[str] = []
    for heading, _ in sections(blocks):
        words += [word for word in heading.text.split() if word not in _FILLERS and word not in words]
    return words


def topic_blocks(word: str, blocks: Sequence[Block]) -> list[Block]:
    """The blocks of topic ``word`` (empty: no such topic)."""
    wanted = word.strip().lower()
    if not wanted:
        return []
    found: list[Block] = []
    for heading, rows in sections(blocks):  # (`lists` and `list` alike)
        words = [text.rstrip("s") for text in heading.text.lower().split() if text not in _FILLERS]
        if heading.text.lower() == wanted or wanted.rstrip("s") in words:
            found += [heading, *rows]
    if found:
        return found
    pattern = re.compile(rf"(?<!\w){re.escape(wanted)}(?!\w)")
    for heading, rows in sections(blocks):
        matching = [row for row in rows if isinstance(row, Row) and pattern.search(row.form.lower())]
        if matching:
            found += [heading, *matching]
    return found


def closest_topic(word: str, blocks: Sequence[Block]) -> str | None:
    """The topic word closest to ``word``, for `did you mean`."""
    close = difflib.get_close_matches(word.lower(), topic_words(blocks), n=1)
    return close[0] if close else None
