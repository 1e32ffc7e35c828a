"""The state of a session and the one place that changes it: `SessionState` holds the names
(values, functions: one namespace), the generator of `uniform` and `gauss`, the record of the
variables passes reached and the history of passes, and its `bind`, `commit` and `zero` keep
them in step with the undo journal of an atomic run, so a statement never updates one of them
by hand.

The undo journal of an atomic run (`Journal`) is what to put back when the input fails or is
interrupted. It keeps each name's FIRST old value and each node's FIRST saved gradient, nothing per
statement: a REPL line that loops a million times rebinding `loss` journals one old `loss`.
Everything is recorded before it is changed, so whatever point an interrupt stops the run
at, putting the journal back restores the state before the input.

Which gradients matter: those of the nodes the bindings the input started with can reach
(the old values the journal keeps, and the names the input has not bound). A node made by
the input is out of their reach (a node refers only to its operands, made before it), so
once the names are put back nothing can show it again. A pass does not say which of its nodes
are old, so the journal saves them all; when the numbers it saved (a scalar gradient one, a
tensor's its elements: see `numbers_in`) have doubled since it last looked, it keeps only the
old ones. A loop of a million iterations so keeps at most a few iterations' graphs alive, and
the engine's nodes carry nothing for it (a weak reference to each would cost every node 8
bytes: measured, 10-20% slower passes over graphs of 200,000 nodes and more). The table is
rebuilt, never emptied in place, so an interrupt leaves it whole.

Which saved nodes are old is found without walking the bindings' graphs, which may be far
larger than what the input touches (a REPL session holding a graph of a million nodes made
`:load` of a small training file 3 s slower). An input reaches old nodes only through names,
so the old nodes it holds are ones the starting bindings hold themselves (a list's items
included), and every other old node it saved lies below one of those in a pass's topology or
a zeroed graph, each saved whole. So the old saved nodes are those reached from the nodes the
starting bindings hold, walking saved nodes only; a node known to be old is not walked again
(all below it is known too).

`Reached` is which variables a committed backward pass reached since they were made or
zeroed, so that `descend` can warn when it steps by gradients no pass wrote (a training loop that forgot
`backward` prints the same loss forever).

A gradient of 0 says nothing by itself: a pass may reach a variable and add 0 to it (`w * 0`).
So the session keeps the tracked leaves (variables) of the passes it committed, taken from each
pass's topology after its commit (one scan of nodes the pass has just walked: measured, about
3% of a pass over a graph of 24,000 nodes). A variable is forgotten again when it is zeroed
(`zero_grad`, which walks the graph it zeroes only while the record holds something), never
when `descend` steps it: `descend` binds its names to fresh variables that no pass has reached,
while another name may still hold the old one, which a pass did reach (`let A = [w]`, `let B =
[w]`, `descend A`, `descend B`). The record holds the variables themselves, not their `id()`:
an identity is reused by a new node once its node is freed (a loop's `let loss = var 1` freed
each step, and `descend`'s fresh variable given its identity hid a warning). It keeps them
alive only until it is pruned: past `REACHED_MINIMUM` numbers (a tensor variable counts its
elements) and twice what it kept at the last pruning, it keeps those a name holds (directly or
in a list), since `descend` steps only what names hold and nothing brings back a node no name
holds (no built-in returns an operand of a graph; the one exception, a variable held only by
the list a running `for` takes its items from, its names rebound meanwhile, could at worst get
a warning it should not). A training loop so keeps a few steps' variables, and the engine's
nodes carry nothing for it.

`History` is the passes a session has committed and the `zero_grad`s between them, for
``explain``. A node's stored gradient is the sum of the pass adjoints committed since its last `zero_grad`;
``explain(X)`` shows that sum, so the session keeps the committed passes (their records hold
their graphs) and the nodes each `zero_grad` zeroed, newest last. Keeping a pass keeps its
graph alive, so the history holds passes of at most `MAX_NODES` numbers in all (a scalar node
one, a tensor node its elements, with their adjoints), dropping the oldest; a pass larger than
that is not kept (explain says so). A session keeps a history only
once something may ask for it (a program that mentions `explain`, the REPL, a notebook):
otherwise a training loop's passes are freed as soon as they are committed.
"""

from __future__ import annotations

from collections import deque
import random as random_module
from typing import Callable, Iterable

from ..engine.gradients import restore_gradients
from ..engine.passes import topology, zero_gradients
from ..engine.records import BackwardPass
from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..language.plain_data import PlainData
from .values import distinct_nodes


def numbers_in(nodes: Iterable[Scalar]) -> int:
    """What ``nodes`` hold in numbers (a scalar node one, a tensor node its elements): what a
    session keeps for a while (reached variables, saved gradients, kept passes) is bounded so."""
    count = 0
    for node in nodes:
        count += node.size if node.__class__ is Tensor else 1
    return count


class SessionState:
    """What a session keeps between statements, changed only through these methods."""

    __slots__ = ("names", "random", "reached", "history", "_journal", "bind", "_bind_plain")

    def __init__(self) -> None:
        self.names: dict[str, object] = {}
        # `uniform`, `gauss` and `random_seed`: Python's generator, seeded 0 at the start, so
        # output is reproducible (and `random_seed(N)` draws what Python's `random.seed(N)` does).
        self.random = random_module.Random(0)
        # The variables a committed pass reached since they were made or zeroed (`descend`'s
        # warning when it steps by gradients no pass wrote).
        self.reached = Reached(self.names)
        # The committed passes and zero_grads, for `explain`: kept once something may ask for
        # them (a program that mentions `explain`, or a front end that calls `keep_history`).
        self.history: History | None = None
        # ``bind(name, value)``: the one way a name is bound. Without a journal, a store into
        # the names and nothing else (a loop binds its index a million times); with one,
        # `Journal.bind`. Read it at each use: setting `journal` swaps it.
        names = self.names

        def bind(name: str, value: object) -> None:
            names[name] = value

        # (made once: going back to it allocates nothing, so a run's end sets off no collection)
        self.bind: Callable[[str, object], None] = bind
        self._bind_plain = bind
        self._journal: Journal | None = None

    @property
    def journal(self) -> Journal | None:
        """The journal of the atomic run going on (or of the `expect` inside it); None: changes
        are not undone."""
        return self._journal

    @journal.setter
    def journal(self, journal: Journal | None) -> None:
        self._journal = journal
        self.bind = self._bind_plain if journal is None else journal.bind

    def keep_history(self) -> None:
        if self.history is None:
            self.history = History()

    def reset(self) -> None:
        self.names.clear()
        self.random.seed(0)
        self.reached = Reached(self.names)
        if self.history is not None:
            self.history = History()

    # ---- the changes -----------------------------------------------------------------------

    @property
    def watches_passes(self) -> bool:
        """Whether a commit must see the pass's records (to journal or keep them); when not, a
        pass nobody shows can be the engine's own check-and-commit (`commit_unseen`)."""
        return self._journal is not None or self.history is not None

    def commit(self, backward_pass: BackwardPass, output: Callable[[], str]) -> None:
        """Commit a checked pass: journal the gradients it changes, write them, record what it
        reached, keep it in the history (``output()``: its output's label)."""
        journal, history = self._journal, self.history
        if journal is not None:
            journal.remember_gradients(backward_pass.topology)
            if history is not None:
                journal.remember_history(history)
        backward_pass._commit()
        self.reached.committed(backward_pass.topology)
        if history is not None:
            history.committed(backward_pass, output())

    def commit_unseen(self, output: Scalar, seed: float) -> None:
        """A pass from ``output`` that nothing shows, journals or keeps (``watches_passes``
        False): the engine checks it all, then commits it, in one call."""
        self.reached.committed(output.committed_topology(seed))

    def zero(self, outputs: list[Scalar], everything: bool) -> None:
        """`zero_grad` of the graphs of ``outputs`` (``everything``: of every node a name
        holds): journaled, kept in the history, and no pass has reached their variables since."""
        journal, history, reached = self._journal, self.history, self.reached
        walked = None  # the topologies of the outputs, when something needs them
        if journal is not None or history is not None or (not everything and reached.variables):
            walked = [node for output in outputs for node in topology(output)]  # (of tensors too)
            if journal is not None:
                journal.remember_gradients(walked)
                if history is not None:
                    journal.remember_history(history)
            if history is not None:
                history.zeroed(walked)
            zero_gradients(walked)  # (the graphs are walked once)
        else:
            for output in outputs:
                output.zero_grad()
        if everything:
            reached.clear()  # every node a name reaches
        elif walked is not None:
            reached.forget(walked)


# ---- the undo journal -----------------------------------------------------------------------


MISSING = object()
# The saved gradients are looked at when they have grown to twice their numbers after the
# last look (a scalar gradient one, a tensor's its elements), and never below this many.
PRUNE_MINIMUM = 1_024


class Journal:
    __slots__ = (
        "bindings", "names", "gradients", "numbers", "prune_at", "held", "older", "random", "random_state",
        "reached", "reached_variables", "history", "history_saved",
    )

    def __init__(self, state: SessionState) -> None:
        self.bindings = state.names  # the session's names, as the input changes them
        # The session's generator and its state before the input (about 2.5 KB, taken once):
        # draws and `random_seed` are undone with the rest.
        self.random = state.random
        self.random_state = state.random.getstate()
        # Which variables passes reached (`descend`'s warning): the set as it is, which the
        # session copies before it changes it.
        self.reached = state.reached
        self.reached_variables = state.reached.snapshot()
        self.names: dict[str, object] = {}
        self.gradients: dict[Scalar, float] = {}
        self.numbers = 0  # saved (in nodes, a REPL line of names_tensor.sad held 70 steps' graphs)
        self.prune_at = PRUNE_MINIMUM
        # The tracked nodes the starting bindings hold themselves (not their graphs), once
        # needed; the ids of the saved nodes known to be old (the nodes stay alive through the
        # input: the bindings or the journal hold them).
        self.held: list[Scalar] | None = None
        self.older: set[int] = set()
        # The history of passes (`explain`) as it was, saved at the input's first pass or
        # zero_grad: an undone `backward` must not stay in what `explain` sums.
        self.history: History | None = None
        self.history_saved: HistorySnapshot | None = None

    def bind(self, name: str, value: object) -> None:
        """The session's `bind` while this journal is on: the name's old value first."""
        if name not in self.names:
            self.names[name] = self.bindings.get(name, MISSING)
        self.bindings[name] = value

    def remember_gradients(self, nodes: Iterable[Scalar]) -> None:
        saved = self.gradients
        numbers = self.numbers
        for node in nodes:
            gradient = node._gradient  # (a tensor's list is replaced whole, never changed: kept as is)
            if gradient is not None and node not in saved:
                saved[node] = gradient
                numbers += node.size if node.__class__ is Tensor else 1  # (numbers_in, inlined)
        self.numbers = numbers
        if numbers > self.prune_at:
            older = self._older()
            kept = {node: gradient for node, gradient in saved.items() if id(node) in older}
            self.gradients = kept
            self.numbers = numbers = numbers_in(kept)
            self.prune_at = max(PRUNE_MINIMUM, 2 * numbers)

    def remember_history(self, history: History) -> None:
        if self.history_saved is None:
            self.history, self.history_saved = history, history.snapshot()

    def _older(self) -> set[int]:
        """The ids of the saved nodes made before the input (see the module's docstring)."""
        if self.held is None:
            journaled = self.names
            roots = [value for name, value in self.bindings.items() if name not in journaled]
            roots.extend(journaled.values())
            self.held = [node for root in roots for node in distinct_nodes(root) if node.tracks_gradient]
        saved, older = self.gradients, self.older
        stack = [node for node in self.held if node in saved and id(node) not in older]
        while stack:
            node = stack.pop()
            if id(node) not in older:
                older.add(id(node))
                operands = [operand for operand, _ in node.edges] if node.__class__ is Tensor else [
                    edge.parent for edge in node.parents]
                stack.extend(operand for operand in operands if operand in saved and id(operand) not in older)
        return older

    def undo(self) -> None:
        """Put everything back. A second interrupt meanwhile does not stop it half-way: the
        undo starts again (each step puts a value back, so doing one twice is harmless) and
        the interrupt is raised once it is done."""
        interrupted: KeyboardInterrupt | None = None
        while True:
            try:
                self._put_back()
                break
            except KeyboardInterrupt as error:
                interrupted = error
        if interrupted is not None:
            raise interrupted

    def _put_back(self) -> None:
        bindings = self.bindings
        for name, previous in list(self.names.items()):
            if previous is MISSING:
                bindings.pop(name, None)
            else:
                bindings[name] = previous
        restore_gradients(list(self.gradients.items()))
        self.random.setstate(self.random_state)
        self.reached.restore(self.reached_variables)
        if self.history is not None and self.history_saved is not None:
            self.history.restore(self.history_saved)
        self.names = {}
        self.gradients = {}
        self.numbers = 0


# ---- reached variables ---------------------------------------------------------------------

# The record is pruned to what names hold when its variables hold more than this many numbers,
# and twice what it kept (and the number of nodes the names hold) at its last pruning.
REACHED_MINIMUM = 1_024


class Reached:
    """``variables`` is changed in place (a training step adds its variables, not a copy of
    the set: a copy a step measured 2.5% of examples/xor.sad), except when an undo journal holds
    it (``snapshot``): the next change copies it first, so the journal's stays as it was and is
    put back (a REPL input that ran `backward` and then failed reached nothing). One copy per
    input at most, none per statement. Counted in variables, not numbers, names_tensor.sad (5
    tensor variables, 12,000 numbers a step) kept every step's: 1 MB a step, 150 MB at 100."""

    __slots__ = ("variables", "numbers", "names", "prune_at", "shared")

    def __init__(self, names: dict[str, object]) -> None:
        self.variables: set[Scalar] = set()
        self.numbers = 0  # the numbers the variables hold (see `numbers_in`)
        self.names = names  # the session's names: what `descend` can reach
        self.prune_at = REACHED_MINIMUM
        self.shared = False  # a journal holds ``variables``: copy before changing it

    def snapshot(self) -> set[Scalar]:
        """The variables as they are, for a journal to put back; not changed in place after."""
        self.shared = True
        return self.variables

    def restore(self, variables: set[Scalar]) -> None:
        self.variables = variables
        self.numbers = numbers_in(variables)
        self.shared = True  # (the journal's, which it may put back again)

    def _own(self) -> set[Scalar]:
        if self.shared:
            self.variables = set(self.variables)
            self.shared = False
        return self.variables

    def committed(self, topology: Iterable[Scalar]) -> None:
        """A pass over ``topology`` was committed: its variables were reached."""
        variables = self._own()
        numbers = self.numbers
        for node in [node for node in topology if node._left is None and node._gradient is not None]:
            if node not in variables:
                variables.add(node)
                numbers += node.size if node.__class__ is Tensor else 1  # (numbers_in, inlined)
        self.numbers = numbers
        if numbers > self.prune_at:
            held = {id(node) for value in self.names.values() for node in distinct_nodes(value)}
            self.variables = variables = {node for node in variables if id(node) in held}
            self.numbers = numbers = numbers_in(variables)
            # (the walk of the names is paid for by as many numbers added before the next)
            self.prune_at = max(REACHED_MINIMUM, 2 * numbers, len(held))

    def forget(self, nodes: Iterable[Scalar]) -> None:
        """``nodes`` were zeroed: no pass has reached them since."""
        if self.variables:
            self._own().difference_update(nodes)  # (still in ``numbers``: a prune comes early)

    def clear(self) -> None:
        """Every node a name reaches was zeroed (`zero_grad` alone)."""
        self.variables = set()
        self.numbers = 0
        self.shared = False

    def __contains__(self, node: Scalar) -> bool:
        return node in self.variables


# ---- the history of passes ------------------------------------------------------------------

# The most nodes the kept passes may hold in all (a graph of this size is about 15 MB).
MAX_NODES = 100_000


class KeptPass(PlainData):
    """A committed pass the history keeps (plain classes, not dataclasses: none is generated
    at start-up)."""

    __slots__ = ("number", "output", "backward_pass", "positions")

    def __init__(self, number: int, output: str, backward_pass: BackwardPass) -> None:
        self.number = number  # the session's count of committed passes, from 1
        self.output = output  # the output's label
        self.backward_pass = backward_pass
        self.positions: dict[int, int] | None = None  # id of a node -> its topology index, when first asked

    def index_of(self, node: Scalar) -> int | None:
        if self.positions is None:
            self.positions = {id(member): index for index, member in enumerate(self.backward_pass.topology)}
        return self.positions.get(id(node))


class Zeroed(PlainData):
    __slots__ = ("after", "ids")

    def __init__(self, after: int, ids: frozenset[int]) -> None:
        self.after = after  # the number of the last pass committed before it
        self.ids = ids  # the nodes it zeroed (alive: a kept pass or a name holds them)


class HistorySnapshot(PlainData):
    __slots__ = ("events", "count", "nodes", "dropped", "skipped")

    def __init__(self, events: tuple[KeptPass | Zeroed, ...], count: int, nodes: int, dropped: int,
                 skipped: dict[int, int]) -> None:
        self.events = events
        self.count = count
        self.nodes = nodes
        self.dropped = dropped
        self.skipped = skipped


class History:
    """The committed passes and `zero_grad`s, newest last, within `MAX_NODES` numbers: a tensor
    node counts its elements (a training step of makemore's size holds about 30,000 numbers in
    15 nodes; counted as nodes, thousands of steps were kept, hundreds of MB)."""

    __slots__ = ("events", "count", "nodes", "dropped", "skipped")

    def __init__(self) -> None:
        self.events: deque[KeptPass | Zeroed] = deque()
        self.count = 0  # passes committed in the session, kept or not
        self.nodes = 0  # numbers held by the kept passes and zero_grads
        self.dropped = 0  # the number of the newest pass dropped for room (0: none)
        self.skipped: dict[int, int] = {}  # a pass too large to keep -> its size

    def committed(self, backward_pass: BackwardPass, output: str) -> None:
        self.count += 1
        size = numbers_in(backward_pass.topology)
        if size > MAX_NODES:
            self.skipped[self.count] = size
            return
        self.events.append(KeptPass(self.count, output, backward_pass))
        self._make_room(size)

    def zeroed(self, nodes: list[Scalar]) -> None:
        ids = frozenset(id(node) for node in nodes if node._gradient is not None)
        self.events.append(Zeroed(self.count, ids))
        self._make_room(len(ids))

    def _make_room(self, added: int) -> None:
        self.nodes += added
        events = self.events
        while self.nodes > MAX_NODES and len(events) > 1:
            oldest = events.popleft()
            if isinstance(oldest, KeptPass):
                self.nodes -= numbers_in(oldest.backward_pass.topology)
                self.dropped = max(self.dropped, oldest.number)
            else:
                self.nodes -= len(oldest.ids)

    def snapshot(self) -> HistorySnapshot:
        return HistorySnapshot(tuple(self.events), self.count, self.nodes, self.dropped, dict(self.skipped))

    def restore(self, saved: HistorySnapshot) -> None:
        """Back to ``saved`` (an undone input's passes and zero_grads are forgotten); each
        field is assigned whole, so doing it twice (an interrupted undo) is harmless."""
        self.events = deque(saved.events)
        self.count, self.nodes, self.dropped = saved.count, saved.nodes, saved.dropped
        self.skipped = dict(saved.skipped)

    def newest_first(self):
        return reversed(self.events)

    def passes_through(self, node: object) -> tuple[tuple[KeptPass, int] | None, list[tuple[KeptPass, int]], bool]:
        """What `explain` reads of ``node``: the newest kept pass through it (with its topology
        index there), the kept passes its stored gradient holds (those since its last
        zero_grad, oldest first, each with the index), and whether it was zeroed since the
        newest pass."""
        held: list[tuple[KeptPass, int]] = []
        latest: tuple[KeptPass, int] | None = None
        zeroed = False
        for event in self.newest_first():
            if isinstance(event, Zeroed):
                if id(node) in event.ids:
                    zeroed = True
                    if latest is not None:
                        break  # passes before its zero_grad are not in its gradient
                continue
            index = event.index_of(node)
            if index is None:
                continue
            if latest is None:
                latest = (event, index)
            if not zeroed:
                held.append((event, index))
        held.reverse()
        return latest, held, zeroed
