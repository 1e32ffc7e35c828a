"""The compact parsed form (``scalarlang.language.compact``): top-level statements kept as bytes and
given back as the very nodes the builder made; its size per statement."""

from __future__ import annotations

import marshal
import math
import struct
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzing import program_text, programs
from scalarlang.language import tree as ast
from scalarlang.language import builder
from scalarlang.language import compact
from scalarlang.language import parser as syntax
from scalarlang.language.compact import Statements, encode
from scalarlang.language.diagnostics import LanguageError
from scalarlang.language.shapes import is_compact, template_match
from scalarlang.language.source import LineIndex, Source, Span


def plain_parse(text: str) -> tuple:
    """The statements as the builder makes them, none stored compact (nor taken by the fast
    path of `shapes`)."""
    keep = lambda statement, lines: statement  # noqa: E731
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(syntax, "_top_level", lambda: None)  # no compaction, no fast path
        patch.setattr(builder, "encode", keep)
        program = syntax.parse_program(Source("t.sad", text))
    assert program.statements.compact_count() == 0
    return tuple(program.statements)


def fingerprint(node: object) -> list:
    """Everything a node holds, numbers by their bits (so NaN equals NaN and -0.0 is not 0.0),
    classes by name: walked with a stack."""
    out: list = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            out.append(("f", struct.pack("<d", item)))
        elif isinstance(item, Span):
            out.append(("s", item.start, item.end, item.line, item.column, item.end_line, item.end_column))
        elif isinstance(item, (tuple, Statements)):
            out.append(("t", len(item)))
            stack.extend(reversed(tuple(item)))
        elif hasattr(item, "__dataclass_fields__"):
            out.append(("n", type(item).__name__))
            stack.extend(getattr(item, name) for name in reversed(item.__dataclass_fields__))
        else:
            out.append(("v", type(item).__name__, item))
    return out


def test_a_program_s_top_level_statements_are_stored_compact():
    text = "let a = var 1\nlet b = a * 1.0000001 + 2\nprint \"b = {b}\", b\nrepeat 2 { let c = b }\nb\n"
    program = syntax.parse_program(Source("t.sad", text))
    items = program.statements._items
    held = ["compact" if is_compact(item) else item.__class__ for item in items]
    assert held == ["compact", "compact", "compact", ast.Repeat, "compact"]
    assert fingerprint(program.statements) == fingerprint(plain_parse(text))
    assert program.statements == plain_parse(text) and len(program.statements) == 5
    assert program.statements[1:3] == plain_parse(text)[1:3]


def test_block_statements_stay_nodes_even_where_lark_shares_the_rule():
    """lark collects a block's statements with the same rule as the program's: only the
    program's are compacted (a block's are cached by identity when they run)."""
    text = "repeat 2 {\n  let a = 1\n  let b = 2\n}\nif 1 < 2 { } else {\n  let c = 3\n}\nlet d = 4\n"
    program = syntax.parse_program(Source("t.sad", text))
    loop, branch, last = program.statements
    assert all(isinstance(s, ast.Let) for s in loop.body.statements)
    assert all(isinstance(s, ast.Let) for s in branch.otherwise.statements)
    assert is_compact(program.statements._items[2])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_programs_come_back_exactly_as_the_builder_made_them(seed):
    for program in programs(seed, 3):
        text = program_text(program)
        try:
            plain = plain_parse(text)
        except LanguageError as error:
            with pytest.raises(LanguageError) as again:
                syntax.parse_program(Source("t.sad", text))
            assert again.value.diagnostic == error.diagnostic  # the same first error
            continue
        parsed = syntax.parse_program(Source("t.sad", text)).statements
        assert fingerprint(parsed) == fingerprint(plain)
        assert parsed.compact_count() >= len(parsed) - sum(1 for s in plain if _holds_block(s)) - 1


def _holds_block(statement: object) -> bool:
    return isinstance(statement, (ast.Repeat, ast.ForRange, ast.ForTable, ast.If)) or (
        isinstance(statement, (ast.Expect, ast.Quiet)) and _holds_block(statement.statement)
    )


def _held_values(item, text: str) -> tuple[bytes, list]:
    """The postfix shape and values of a compact statement, bytes or an int naming a shape."""
    if item.__class__ is int:
        template, match = template_match(item, text)
        return template.operations, template.fill_groups(match.regs, match.groups())
    return marshal.loads(item)


def test_the_generated_decoder_of_a_shape_makes_what_the_general_loop_makes():
    text = 'let q = -(a ** 2) + f(x, y: 1) % 3\nprint "v{a}w", -inf, nan\ngradcheck(q, a, step: 1e-6)\n'
    program = syntax.parse_program(Source("t.sad", text))
    lines = program.statements._lines
    assert program.statements.compact_count() == 3
    for data in program.statements._items:
        operations, values = _held_values(data, text)
        general = compact._decode(operations, values, lines)
        generated = compact._generate(operations)(values, lines)
        assert fingerprint(generated) == fingerprint(general)
        assert type(generated) is type(general)


def test_a_shape_gets_its_own_decoder_the_second_time_it_is_read():
    text = "".join(f"let v{i} = w{i} * 3.25 - {i}\n" for i in range(4))
    program = syntax.parse_program(Source("t.sad", text))
    operations, _ = marshal.loads(program.statements._items[0])
    compact._decoders.pop(operations, None)
    compact._seen.discard(operations)
    list(program.statements)
    assert operations in compact._decoders
    assert fingerprint(program.statements) == fingerprint(plain_parse(text))


def test_a_long_chain_and_long_tuples_round_trip_without_recursion():
    terms = 20_000  # far past Python's recursion limit and marshal's nesting limit
    text = "let s = " + " + ".join(["x"] * terms) + "\n" + "print " + ", ".join(["x"] * 300) + "\n"
    program = syntax.parse_program(Source("t.sad", text))
    assert program.statements.compact_count() == 2
    chain, printed = program.statements
    node, depth = chain.value, 0
    while isinstance(node, ast.Binary):
        node, depth = node.left, depth + 1
    assert depth == terms - 1 and len(printed.items) == 300


def test_spans_of_another_text_keep_the_statement_as_it_is():
    lines = LineIndex("let a = 1\n")
    foreign = ast.Let(Span(0, 9, 1, 1, 1, 10), "a", Span(4, 5, 1, 5, 1, 6), ast.Number(Span(8, 9, 1, 9, 1, 10), 1.0))
    assert encode(foreign, lines) is foreign
    assert Statements([foreign], lines)[0] is foreign


def test_numbers_come_back_bit_for_bit():
    text = "let a = -0.0 + 1e-310 + 1.7976931348623157e308 + nan + inf + 0.1\n"
    (statement,) = syntax.parse_program(Source("t.sad", text)).statements
    values = []
    stack = [statement.value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Binary):
            stack += [node.left, node.right]
        elif isinstance(node, ast.Unary):
            stack.append(node.operand)
        else:
            values.append(node.value)
    assert any(math.isnan(v) for v in values) and 0.1 in values and 1e-310 in values


def test_the_parsed_form_is_a_few_hundred_bytes_a_statement():
    """What the parsed program holds for 5,000 lines of the benchmark's kind: its tuple of
    statements and each compact statement (sys.getsizeof: the objects themselves, nothing
    shared). The nodes they stand for took about 1,100 bytes a statement. (The benchmark
    measures the same with tracemalloc in a fresh process: about 190; in a test process,
    Python's table of interned strings, resized now and then, would blur that figure.)"""
    count = 5_000
    text = "let a0 = var 1\n" + "".join(f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}\n" for i in range(1, count))
    statements = syntax.parse_program(Source("long.sad", text)).statements
    assert statements.compact_count() == count
    held = sys.getsizeof(statements) + sys.getsizeof(statements._items)
    held += sum(sys.getsizeof(item) for item in statements._items)
    assert held / count < 300
    node = statements[count // 2]  # and one of them, as nodes, for comparison
    assert isinstance(node, ast.Let) and node.name == f"a{count // 2}"
