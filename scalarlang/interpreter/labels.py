"""How the session names nodes: the first name bound to a node, else the source text that made
it; and which nodes are counts (shown as whole numbers).

One dictionary, node -> entry, where an entry is ``(source, span, count)`` for a node made by
an expression and ``(name, None, count)`` once a name was bound to it. An entry is a tuple the
compiler made once per expression, so recording where a node was made costs one dictionary
store and no allocation: a training loop makes a hundred thousand nodes.

Holding a node in a table keeps it alive, and a program that keeps every node it ever made
alive runs at half speed (no memory is reused, the table keeps growing). So entries live in
generations: new nodes are recorded in a small nursery (``entries``); between statements,
once it is full, the entries of nodes nothing else refers to any more are dropped (the graphs
of earlier loop iterations), the rest move to a middle generation, and only what survives
that too moves to the old table, itself pruned whenever it has doubled (see
`drop_unreferenced`). No table grows with the iteration count of a loop.

Straight-line statements (outside any loop) bind what they make, so their nurseries are
nearly all live: one that is goes to the old table at once, the statements `straight` runs
then record their next few nurseries' worth in the old table itself (`straight_table`), and the old
table, found nearly all live too, is next pruned at four times its size. A long straight-line
program's entries are then walked about once in all, not three times, and most are stored
once, not copied from table to table.
"""

from __future__ import annotations

import difflib
import re
import sys
from typing import cast

from ..engine.scalar import Scalar, ScalarOperation
from ..engine.numbers import format_count, format_number, format_parameter
from ..language.source import Source, Span, indexed_span

# Labels made from source text are cut to this many characters, whitespace collapsed; so are
# names longer than that, in labels and messages.
LABEL_LIMIT = 60
# The table is pruned when it has grown to twice its size after the last pruning, and never
# below this many entries (pruning walks every entry).
PRUNE_MINIMUM = 50_000
# The nursery is settled once it holds this many entries: more than a training step of a
# small model makes, so a step's graph is dead by the time it is looked at a second time.
NURSERY_SIZE = 1_024
# "Nearly all": live entries times this at least the nursery's size (90%).
LASTING_SHARE = 10 / 9
# After a nursery filled outside loops was nearly all live, `straight` records this many
# nurseries' worth in the old table unlooked; the next nursery is looked at again.
TRUSTED_NURSERIES = 7

Entry = tuple  # made: (Source, Span, count); named: (name, the made entry or None, count)
# A made entry's span may also be ``(start, end, LineIndex)``, made into a Span when read (a
# Span costs five times a tuple to make), and `straight`'s made entries are ``(Source, item,
# count, where, spans)``: the statement's int item and which of its match's groups the span
# runs over, found again by ``spans.span(item, where)`` when read. `straight` records four
# nodes a statement; this form costs one tuple a node, of objects that exist already.


class Labels:
    __slots__ = ("entries", "middle", "old", "prune_at", "straight_limit", "straight_table")

    def __init__(self) -> None:
        self.entries: dict[Scalar, Entry] = {}  # the nursery: where new nodes are recorded
        self.middle: dict[Scalar, Entry] = {}
        self.old: dict[Scalar, Entry] = {}
        self.prune_at = PRUNE_MINIMUM
        # Where `straight` records (top-level statements only): the nursery, or the old
        # table while nurseries filled outside loops are trusted; it settles once the table
        # holds more than `straight_limit` entries.
        self.straight_table = self.entries
        self.straight_limit = NURSERY_SIZE

    def entry(self, node: Scalar) -> Entry | None:
        entry = self.entries.get(node)
        if entry is None:
            entry = self.middle.get(node)
            if entry is None:
                entry = self.old.get(node)
        return entry

    def label_of(self, node: Scalar) -> str:
        """The first name bound to ``node``, else the source text that made it."""
        entry = self.entry(node)
        if entry is None:
            return str(node.operation)
        if entry[0].__class__ is str:
            name = entry[0]
            return name if len(name) <= LABEL_LIMIT else shorten(name, LABEL_LIMIT)
        return source_label(entry[0].text, made_span(entry))

    def made_at(self, node: Scalar) -> tuple[Source, Span] | None:
        """Where the node was made, when the session saw it made."""
        entry = self.entry(node)
        if entry is not None and entry[0].__class__ is str:
            entry = entry[1]
        return None if entry is None else (entry[0], made_span(entry))

    def is_count(self, node: Scalar) -> bool:
        entry = self.entry(node)
        return entry is not None and entry[2]

    def name(self, node: Scalar, name: str) -> None:
        """Record ``name`` as the node's label unless it has one already. Never journaled: a
        node that gets its first name was made by the input that binds it (a node from an
        earlier input is reached only through a name, so it has one)."""
        entries = self.entries
        entry = entries.get(node)
        if entry is None:
            entry = self.entry(node)
            if entry is None:
                entries[node] = (name, None, False)
            elif entry[0].__class__ is not str:  # not named yet (a node is in one generation)
                for table in (self.middle, self.old):
                    if node in table:
                        table[node] = (name, entry, entry[2])
        elif entry[0].__class__ is not str:
            entries[node] = (name, entry, entry[2])

    def formatted(self, node: Scalar) -> str:
        """The node's value as a person reads it: counts as whole numbers."""
        entry = self.entry(node)
        if entry is not None and entry[2]:
            return format_count(node.value)
        return format_number(node.value)

    def clear(self) -> None:
        self.entries.clear()
        self.middle.clear()
        self.old.clear()
        self.prune_at = PRUNE_MINIMUM
        self.straight_table, self.straight_limit = self.entries, NURSERY_SIZE

    def settle(self, others: tuple[dict, ...] = (), lasting: bool = False) -> None:
        """Move the nursery's live entries to the middle generation and the middle's to the
        old table; drop the entries of nodes only side tables (these and ``others``) hold.

        ``lasting``: the nursery was filled by statements outside any loop. If nearly all of
        it is live, it goes to the old table at once: what straight-line statements make,
        they bind, and a second look in the middle generation would find it live again.
        Then `straight` records `TRUSTED_NURSERIES` nurseries' worth in the old table
        itself (`straight_table`): what died among them stays alive until the old table is pruned.
        A settle ends that (the old table has grown by as much, or the nursery is full).
        """
        trusting = False
        if self.straight_table is not self.old or self.entries:
            self.old.update(survivors(self.middle, others))
            made = len(self.entries)
            live = survivors(self.entries, others)  # empties the nursery, in place
            if lasting and len(live) * LASTING_SHARE >= made:
                self.old.update(live)
                self.middle = {}
                trusting = self.straight_table is not self.old  # (not twice in a row unlooked)
            else:
                self.middle = live
        if len(self.old) > self.prune_at:
            before = len(self.old)
            self.old = survivors(self.old, others)
            # Nearly all live (a long straight-line program): four times the size before the
            # next look, or its entries would be walked again at each doubling.
            growth = 4 if len(self.old) * LASTING_SHARE >= before else 2
            self.prune_at = max(PRUNE_MINIMUM, growth * len(self.old))
        if trusting:
            self.straight_table, self.straight_limit = self.old, len(self.old) + TRUSTED_NURSERIES * NURSERY_SIZE
        else:
            self.straight_table, self.straight_limit = self.entries, NURSERY_SIZE


def made_span(entry: Entry) -> Span:
    """The span of a made entry (see `Entry`)."""
    if len(entry) == 5:
        return entry[4].span(entry[1], entry[3])
    where = entry[1]
    return indexed_span(*where) if where.__class__ is tuple else where  # type: ignore[return-value]


def survivors(table: dict, others: tuple[dict, ...] = ()) -> dict:
    """Empty ``table``; return its entries whose keys something refers to besides the
    tables (``table`` and ``others``), in their order.

    Nodes are freed by reference counting alone (see ``Interpreter.run_program``), so a node
    whose count is made up of these tables' references is unreachable: no name, graph or
    outcome can show it again. Keys are popped newest first, so an unreachable result is
    freed (when the next key is popped) before its operands are looked at. The count of an
    unreferenced key is measured on a probe, whatever the Python version adds.
    """
    if not table:
        return {}
    table[object()] = None
    key, entry = table.popitem()
    baseline = sys.getrefcount(key)
    # Two flat lists, not a pair per survivor: a session of a million live nodes is pruned too.
    keys: list = []
    values: list = []
    popitem, getrefcount, keep_key, keep_value = table.popitem, sys.getrefcount, keys.append, values.append
    if others:
        while table:
            key, entry = popitem()
            count = getrefcount(key)
            for other in others:
                if key in other:
                    count -= 1
            if count > baseline:
                keep_key(key)
                keep_value(entry)
    else:  # (the loop without side tables, as most runs settle: it walks every live node)
        while table:
            key, entry = popitem()
            if getrefcount(key) > baseline:
                keep_key(key)
                keep_value(entry)
    key = entry = None
    keys.reverse()
    values.reverse()
    return dict(zip(keys, values))


def drop_unreferenced(table: dict, others: tuple[dict, ...] = ()) -> None:
    """Delete the keys of ``table`` that nothing refers to but ``table`` and ``others``."""
    table.update(survivors(table, others))


def operation_text(node: Scalar) -> str:
    """The operation as tables show it: ``pow 2`` carries its exponent."""
    operation = node.operation
    if operation is ScalarOperation.POW:
        return f"pow {format_parameter(cast(float, node.exponent))}"  # a pow node has one
    return str(operation)


# Runs of non-space characters, in pieces no longer than a label can show.
_LABEL_PIECE = re.compile(r"\S{1,%d}" % (LABEL_LIMIT + 1))


def source_label(text: str, span: Span) -> str:
    """The span's text, whitespace collapsed, cut to ``LABEL_LIMIT``. Reads no more than a label
    can show (after collapsing): chains of 100,000 terms have huge spans."""
    pieces: list[str] = []
    length, previous_end = 0, span.start
    for piece in _LABEL_PIECE.finditer(text, span.start, span.end):
        if pieces and piece.start() != previous_end:
            pieces.append(" ")
            length += 1
        pieces.append(piece.group())
        length += len(piece.group())
        previous_end = piece.end()
        if length > LABEL_LIMIT:
            break
    return shorten("".join(pieces), LABEL_LIMIT)


def suggestion(word: str, candidates: list[str]) -> tuple[str, ...]:
    """The ``help: did you mean`` note for the candidate closest to ``word``, if one is close.
    A word longer than a label is not compared (difflib's time grows with its square)."""
    if len(word) > LABEL_LIMIT:
        return ()
    close = difflib.get_close_matches(word, candidates, n=1)
    return (f"help: did you mean `{close[0]}`?",) if close else ()


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten(text: str, limit: int = LABEL_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def origin(source: Source, span: Span, count: bool = False) -> Entry:
    return (source, span, count)
