"""The parser of `.sad` programs: the public API, loading lark's LALR tables, driving them.

The grammar is ``grammars/scalarlang.lark``. The work is split by job:

- ``lexicon``: the lexical rules (keywords, token regexes) read from the grammar's terminals;
- ``lexer``: the contextual lexer that feeds lark's parser, and what it checks per token;
- ``builder``: the AST, built while the parser reduces (nothing recurses over the program);
- ``syntax_errors`` and ``hints``: the wording of every syntax error.

lark is imported, and its tables loaded (from a cache file when one matches the grammar), on
the first parse, so importing this module costs nothing.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import sys
from typing import Any

from .tree import Expr, ExprStatement, Program
from .builder import Builder, current_lines, spans_of
from .compact import encode
from .shapes import Compacted, Shapes, is_compact
from .diagnostics import Diagnostic, LanguageError
from .lexer import FastPath, Lexer
from .lexicon import GRAMMAR_PATH, KEYWORDS
from .source import Source
from .syntax_errors import MAX_NESTING, diagnostic, position, span_at, unexpected_token

# ---- public API -------------------------------------------------------------------------


def parse_program(source: Source) -> Program:
    """Parse a whole program; any syntax problem raises ``LanguageError`` (and nothing else)."""
    try:
        return _parse(source.text)
    except Exception as exc:  # every failure becomes one of our diagnostics
        raise LanguageError(diagnostic(exc, source)) from exc


def parse_expression(source: Source) -> Expr:
    """Parse a text that must hold exactly one expression (e.g. `x*y + 1`)."""
    program = parse_program(source)
    statements = program.statements
    if len(statements) == 1 and isinstance(statements[0], ExprStatement):
        return statements[0].expr
    span = statements[0].span if statements else span_at(source.text, len(source.text), 0)
    raise LanguageError(Diagnostic("syntax-error", "expected a single expression", span, source))


def is_incomplete(error: LanguageError | Diagnostic) -> bool:
    """Whether a syntax error is input that ended while a parenthesis, bracket or brace was
    open: the REPL then reads another line instead of reporting it. (Strings never span
    lines, so an open string is a real error.)"""
    diagnostic = error.diagnostic if isinstance(error, LanguageError) else error
    return bool(diagnostic.fields.get("incomplete"))


# ---- loading the parser -------------------------------------------------------------------


@functools.cache
def _parser() -> Any:
    """The lark parser, built (or loaded from the cache) on first use."""
    from lark import Lark

    return Lark.open(
        str(GRAMMAR_PATH),
        parser="lalr",
        lexer="contextual",
        transformer=Builder(),
        maybe_placeholders=True,
        cache=_cache_file(),
    )


@functools.cache
def _lexer() -> Lexer:
    parser = _parser()
    return Lexer(parser.lexer_conf.terminals, parser.lexer_conf.ignore)


def _cache_file() -> str | bool:
    """Where lark keeps the LALR tables between runs: the user's cache directory, one file per
    grammar text (lark also checks a hash of grammar and options inside it). False when there
    is no writable place; a shared temp dir is not used because lark unpickles the file."""
    import lark

    from .paths import user_dir

    folder = user_dir("cache")
    if folder is None:
        return False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(GRAMMAR_PATH.read_bytes()).hexdigest()[:20]
    except (OSError, RuntimeError):
        return False
    version = f"lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return str(folder / f"grammar-{digest}-{version}.lark-cache")


# ---- driving lark's LALR parser -------------------------------------------------------------


def _parse(text: str) -> Program:
    """Feed our lexer's tokens to lark's LALR parser; the builder makes the AST as it reduces.

    lark's own lexer is not used: for our grammar it costs more than parsing, mostly in one
    extra match per ignored space. `Lexer` does what lark's contextual lexer does (only the
    terminals the parser's state can take, keywords resolved the same way) in one match per
    token.
    """
    from lark.exceptions import UnexpectedToken

    interactive = _parser().parse_interactive("")
    collecting = gc.isenabled()
    gc.disable()  # see below
    try:
        with spans_of(text):
            fast = FastPath(_shapes(), _boundaries(), current_lines(), _steady()) if _top_level() else None
            _feed(_lexer().tokens(text, interactive, fast), interactive.parser_state)
            return interactive.feed_token(_end_token(text))
    except UnexpectedToken as exc:
        raise unexpected_token(exc, interactive, text, (_actions(), _end_states())) from None
    finally:
        # Tokens, spans and AST nodes make no reference cycles, so reference counting frees
        # all that is dropped; the cyclic collector would only rescan the growing AST, again
        # and again (a third to almost half of the parse time of a 100,000-line program).
        if collecting:
            gc.enable()


def _feed(tokens: Any, parser_state: Any) -> None:
    """What lark's ``feed_token`` does for each token but the last ($END), on lark's own
    state and value stacks, with the table of `_steps` (a third of the time of a parse
    went to lark's per-token call layers and to hashing its rules in Python). Each top-level
    statement is stored compact as soon as it is reduced (see `compact`), so the parse never
    holds more than one statement's nodes."""
    from lark.exceptions import UnexpectedToken

    actions = _steps()
    lines, top_level = current_lines(), _top_level()
    compacted = 0  # how many top-level statements are compact
    state_stack = parser_state.state_stack
    value_stack = parser_state.value_stack
    push_state, push_value = state_stack.append, value_stack.append
    steady = _steady()
    for token in tokens:
        kind = token.type
        if token.__class__ is Compacted and len(state_stack) == 4:  # after a statement
            key = (*state_stack, kind, token.separator)
            callback = steady.get(key, _UNKNOWN)
            if callback is _UNKNOWN:
                callback = steady[key] = _steady_step(key, actions, top_level)
            if callback is not None:
                # The statement before joins the program's, this one takes its place: the
                # steps below would do just this, the stack's states ending as they were.
                children = value_stack[-3:]
                del value_stack[-3:]
                value = callback(children)
                statements = value.children
                if not is_compact(statements[-1]):
                    statements[-1] = encode(statements[-1], lines)
                last, more = token.data, token.more
                if more is not None:  # the same step for each: all join but the last
                    statements.append(last)
                    last = more.pop()
                    statements += more
                compacted = len(statements)
                push_value(value)
                push_value(last)
                push_value(None)
                continue
        while True:
            action = actions[state_stack[-1]].get(kind)
            if action.__class__ is int:  # shift
                if token.__class__ is Compacted:  # a statement and its separator (`shapes`)
                    assert token.more is None  # (the lexer adds more only where a step is steady)
                    after = actions[state_stack[-1]]["statement"]
                    push_state(after)
                    push_value(token.data)
                    push_state(actions[after][token.separator])
                    push_value(None)  # the separator's token: no reduction keeps it
                    break
                push_state(action)
                push_value(token)
                break
            if action is None:
                states = parser_state.parse_conf.states
                expected = {s for s in states[state_stack[-1]] if s.isupper()}
                raise UnexpectedToken(token, expected, state=parser_state, interactive_parser=None)
            size, callback, nonterminal = action
            if callback is _PASS:  # `?rule: one` with one child: the value stays as it is
                del state_stack[-1]
                push_state(actions[state_stack[-1]][nonterminal])
                continue
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value = callback(children)
            push_value(value)
            push_state(actions[state_stack[-1]][nonterminal])
            if nonterminal == top_level and len(state_stack) == 2:  # not a block's: the program's
                statements = value.children
                if len(statements) > compacted:  # a statement more: store it compact
                    if not is_compact(statements[-1]):  # (unless the fast path made it)
                        statements[-1] = encode(statements[-1], lines)
                    compacted = len(statements)


_UNKNOWN = object()


@functools.cache
def _steady() -> dict[tuple, Any]:
    """`_steady_step` of each state stack, next kind and separator met (None: not steady)."""
    return {}


def _steady_step(key: tuple, actions: list, top_level: str | None) -> Any:
    """For a compact statement (its first kind and separator) coming where the state stack
    is ``key[:4]`` (the program's statements, one more and its separator): the callback of
    the one reduction `_feed` would make, if after it and the statement's shift the states
    are those of ``key[:4]`` again; else None."""
    *states, kind, separator = key
    action = actions[states[3]].get(kind)
    if action.__class__ is not tuple or action[0] != 3 or action[2] != top_level or action[1] is _PASS:
        return None
    if actions[states[0]].get(top_level) != states[1] or actions[states[1]].get(kind).__class__ is not int:
        return None
    after = actions[states[1]].get("statement")
    if after != states[2] or actions[after].get(separator) != states[3]:
        return None
    return action[1]


@functools.cache
def _shapes() -> Shapes:
    """The statement shapes learnt from every parse in this process (see `shapes`)."""
    return Shapes()


@functools.cache
def _boundaries() -> dict[tuple, int | None]:
    """The parser's state stacks between two top-level statements, each with where on the
    value stack the statement just finished is (None at the start and after a bare
    separator): where `shapes` may take the next statement."""
    actions = _actions()
    start = _parser().parser.parser.parser.parse_table.start_states["start"]
    top_level = _top_level()
    boundaries: dict[tuple, int | None] = {(start,): None}

    def goto(state: int, symbol: str) -> int | None:
        target, size, callback = actions[state].get(symbol, (None, 0, None))
        return target if callback is None else None

    repeated = goto(start, top_level) if top_level else None
    for base in ((start,), (start, repeated)) if repeated is not None else ((start,),):
        for separator in ("_NL", "_SEMI"):
            after = goto(base[-1], separator)
            if after is not None:
                boundaries[(*base, after)] = None
            statement = goto(base[-1], "statement")
            after = goto(statement, separator) if statement is not None else None
            if after is not None:
                boundaries[(*base, statement, after)] = len(base) - 1  # values: one fewer
    return boundaries


@functools.cache
def _top_level() -> str | None:
    """lark's name for the repetition that collects the program's statements (``start``'s
    first symbol; None if the grammar had none). A block's statements may be collected by the
    same rule (lark shares identical repetitions): `_feed` tells them apart by the depth of
    the state stack."""
    for rule in _parser().rules:
        if rule.origin.name == "start" and len(rule.expansion) == 2:
            return rule.expansion[0].name
    return None


def _PASS(children: list) -> Any:
    """The callback of a `?rule` reduced from a single symbol: lark's ExpandSingleChild would
    return that child, so `_feed` leaves the value stack alone (a third of all reductions)."""
    (child,) = children
    return child


@functools.cache
def _actions() -> dict:
    """lark's LALR table, each action unpacked once: ``state -> {symbol: (target, size,
    callback)}``; a shift is ``(next state, 0, None)``, a reduce ``(the rule's nonterminal,
    its length, its callback)`` (``_PASS`` for a `?rule` of one symbol) and a goto, under a
    nonterminal, ``(next state, 0, None)``. (lark's callbacks are all for rules: the grammar
    has no terminal callbacks.) The parse itself runs on `_steps`, the same table in a form
    quicker to read."""
    from lark.parse_tree_builder import ExpandSingleChild
    from lark.parsers.lalr_analysis import Shift

    parser = _parser().parser.parser.parser  # Lark -> frontend -> LALR_Parser -> _Parser
    callbacks = parser.callbacks
    reduced: dict[Any, tuple] = {}  # a rule is reduced in many states: unpacked once

    def reduce(rule: Any) -> tuple:
        action = reduced.get(rule)
        if action is not None:
            return action
        callback = callbacks[rule]
        if type(callback) is ExpandSingleChild and len(rule.expansion) == 1:
            callback = _PASS  # no child filter in front of it: the one child comes back
        else:
            callback = _direct(callback)
        action = reduced[rule] = (rule.origin.name, len(rule.expansion), callback)
        return action

    return {
        state: {
            symbol: (arg, 0, None) if action is Shift else reduce(arg)
            for symbol, (action, arg) in row.items()
        }
        for state, row in parser.parse_table.states.items()
    }


@functools.cache
def _steps() -> list:
    """`_actions` as the driver reads it: ``steps[state][symbol]`` is the next state (an int)
    for a shift, and under a nonterminal for its goto; a reduce is ``(the rule's length, its
    callback, its nonterminal)`` (a list and ints: a shift is one lookup and a type check)."""
    actions = _actions()
    steps: list = [None] * (max(actions) + 1)
    for state, row in actions.items():
        steps[state] = {
            symbol: target if callback is None else (size, callback, target)
            for symbol, (target, size, callback) in row.items()
        }
    return steps


def _direct(callback: Any) -> Any:
    """lark's callback for a rule, with its layers (a child filter, a single child passed
    through, a Tree for a rule inlined into its parent) done in one function, or the builder's
    method itself when the rule keeps all its children (most rules): the same values, a
    fifth of a parse's calls fewer. Layers of any other shape keep lark's callback."""
    from functools import partial

    from lark import Tree
    from lark.parse_tree_builder import (
        ChildFilterLALR,
        ChildFilterLALR_NoPlaceholders,
        ExpandSingleChild,
    )

    include, append_none, expand1, inner = None, 0, False, callback
    if isinstance(inner, (ChildFilterLALR, ChildFilterLALR_NoPlaceholders)):
        include = [(entry + (0,))[:3] for entry in inner.to_include]
        append_none = getattr(inner, "append_none", 0)
        inner = inner.node_builder
    if isinstance(inner, ExpandSingleChild):
        expand1, inner = True, inner.node_builder
    if isinstance(inner, partial) and inner.func is Tree and not inner.keywords:
        (data,) = inner.args
        build = functools.partial(Tree, data)
    elif getattr(inner, "__self__", None).__class__ is Builder:
        build = inner
    else:
        return callback
    if include is None:
        if not expand1:
            return build
        return lambda children: children[0] if len(children) == 1 else build(children)
    if not append_none and all(not expand and not nones for _, expand, nones in include):
        kept = tuple(index for index, _, _ in include)
        if expand1:
            def keep_and_pass_one(children: list) -> Any:
                filtered = [children[index] for index in kept]
                return filtered[0] if len(filtered) == 1 else build(filtered)
            return keep_and_pass_one
        return lambda children: build([children[index] for index in kept])

    shape = [(index, expand) for index, expand, nones in include if not nones]
    if not append_none and len(shape) == len(include) == 2 and shape[0][0] == 0:
        # The commonest two: `x (op x)*` (a value, then a repetition taken in) and a
        # repetition going on (its list taken over, one more value added).
        (_, first_expanded), (second, second_expanded) = shape
        if not first_expanded and second_expanded:
            def value_then_repetition(children: list) -> Any:
                result = [children[0], *children[second].children]
                return result[0] if expand1 and len(result) == 1 else build(result)
            return value_then_repetition
        if first_expanded and not second_expanded:
            def repetition_then_value(children: list) -> Any:
                result = children[0].children  # left-recursive: taken over, not copied
                result.append(children[second])
                return result[0] if expand1 and len(result) == 1 else build(result)
            return repetition_then_value

    def filtered(children: list) -> Any:  # lark's ChildFilterLALR, step for step
        result: list = []
        for index, expand, nones in include:
            if nones:
                result += [None] * nones
            if expand:
                if result:
                    result += children[index].children
                else:  # a left-recursive repetition: its list is taken over, not copied
                    result = children[index].children
            else:
                result.append(children[index])
        if append_none:
            result += [None] * append_none
        if expand1 and len(result) == 1:
            return result[0]
        return build(result)

    return filtered


@functools.cache
def _end_states() -> frozenset:
    """The states in which the whole program has been reduced (where `$END` is accepted)."""
    return frozenset(_parser().parser.parser.parser.parse_table.end_states.values())


def _end_token(text: str) -> Any:
    from lark import Token

    line, column = position(text, len(text))
    return Token("$END", "", len(text), line, column, line, column, len(text))


__all__ = [
    "GRAMMAR_PATH",
    "KEYWORDS",
    "MAX_NESTING",
    "is_incomplete",
    "parse_expression",
    "parse_program",
]
