"""Expressions of statements that run once, evaluated by walking their tree.

A statement outside any loop runs once (see `control.Run.steps`): compiling its expressions
into closures first (`expressions`, `closures`) costs more than running them does. The
`OnceCompiler` gives evaluators that walk the tree when they are called, iteratively (a chain
of 100,000 terms is no deeper for them than one term), and make the same nodes, label entries
and errors, in the same order, as the compiled expression: numbers, names, the four
arithmetic operators, negation and `var`/`const` here; any other node (`**`, `%`, calls)
through the compiler's own combine function for it, called as the compiled closure calls it.
"""

from __future__ import annotations

from ..language import tree
from ..engine.scalar import Scalar
from ..engine.errors import ScalarAutodiffError
from .expressions import ARITHMETIC, Compiler, Evaluate, literal_value
from .failures import engine_failure

# What waits on the work list for its operands' values: (kind, node, how). An arithmetic
# operation whose right operand is a number or a name reads that operand itself.
_ARITHMETIC, _ARITHMETIC_LEAF, _NEGATE, _LEAF, _COMBINE = 0, 1, 2, 3, 4

_Number, _Name, _Binary, _Unary, _Leaf = tree.Number, tree.Name, tree.Binary, tree.Unary, tree.Leaf
_constant, _variable = Scalar.constant, Scalar.variable


class OnceCompiler(Compiler):
    """The compiler of run-once statements: an expression is walked when it is evaluated."""

    def expression(self, expr: tree.Expr) -> Evaluate:
        return lambda args: self.evaluate(expr, args)

    def evaluate(self, expr: tree.Expr, args: tuple | None) -> Scalar:
        source, entries, get = self.source, self.entries, self.names.get
        values: list = []
        push, pop = values.append, values.pop
        work: list = [expr]
        while work:
            node = work.pop()
            kind = node.__class__
            if kind is tuple:  # an operation: its operands' values are on `values`
                step, node, how = node
                if step == _ARITHMETIC or step == _ARITHMETIC_LEAF:
                    if step == _ARITHMETIC:
                        right = pop()
                    else:  # the right operand is a leaf, read here (after the left, as ever)
                        leaf = node.right
                        if leaf.__class__ is _Name:
                            right = get(leaf.name)
                            if right.__class__ is not Scalar:
                                raise self.name_failure(leaf.name, right, leaf.span)
                        else:
                            value = leaf.value
                            if value - value != 0.0:  # fails as the compiled leaf does
                                self._made(value, _constant, leaf.span, args)
                            right = _constant(value)
                            entries[right] = (source, leaf.span, False)
                    try:
                        result = how(pop(), right)
                    except ScalarAutodiffError as error:
                        raise engine_failure(source, error, node.span) from None
                elif step == _NEGATE:
                    result = pop().neg()
                elif step == _LEAF:
                    result = how(pop().value)
                else:
                    count = node
                    if count == 1:
                        push(how(args, pop()))
                    else:
                        operands = values[len(values) - count :]
                        del values[len(values) - count :]
                        push(how(args, *operands))
                    continue
                entries[result] = (source, node.span, False)
                push(result)
            elif kind is _Name:
                value = get(node.name)
                if value.__class__ is not Scalar:
                    raise self.name_failure(node.name, value, node.span)
                push(value)
            elif kind is _Binary and node.op in ARITHMETIC:
                right_kind = node.right.__class__
                if right_kind is _Name or right_kind is _Number:
                    work.append((_ARITHMETIC_LEAF, node, ARITHMETIC[node.op]))
                else:
                    work.append((_ARITHMETIC, node, ARITHMETIC[node.op]))
                    work.append(node.right)
                work.append(node.left)
            elif kind is _Number:
                value = node.value
                if value - value != 0.0:  # fails as the compiled leaf does
                    self._made(value, _constant, node.span, args)
                result = _constant(value)
                entries[result] = (source, node.span, False)
                push(result)
            elif kind is _Unary:
                work.append((_NEGATE, node, None))
                work.append(node.operand)
            elif kind is _Leaf:
                make = _variable if node.kind == "var" else _constant
                literal = literal_value(node.operand)
                if literal is not None:  # `var inf`: the variable is what is non-finite
                    push(self._made(literal, make, node.span, args))
                else:
                    work.append((_LEAF, node, make))
                    work.append(node.operand)
            else:
                combine, children, _ = self._inner(node)
                if children:
                    work.append((_COMBINE, len(children), combine))
                    work.extend(reversed(children))
                else:  # a call the compiler found wrong (it raises), or `len`
                    push(combine(args))
        return values[0]

    def _made(self, value: float, make, span, args) -> Scalar:
        """A number leaf's node; a non-finite one fails as the compiled leaf does."""
        if value - value != 0.0:
            return self._number(value, make, span)(args)
        node = make(value)
        self.entries[node] = (self.source, span, False)
        return node
