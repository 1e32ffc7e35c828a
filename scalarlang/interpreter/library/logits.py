"""The built-ins of classifiers and language models: folds over a list (`max`, `min`, `argmax`,
`argmin`, `logsumexp`), `softmax`, `cross_entropy`, `one_hot` and `sample`. Their entries are in
``registry``; each is compiled as ``node_functions`` says.

How they appear in a graph is what a learner reads in `explain`, `paths`, `walk` and pictures:
`logsumexp(L)` is one n-ary node with an edge to each item, whose local derivatives are the
softmax of the items; `softmax(L)` is each `exp(L[i] - max(L))` over their left-folded sum
(`max(L)` a constant); `cross_entropy(L, T)` is `logsumexp(L) - L[T]`; `max(L)` is one `max_of`
node whose gradient goes to the first largest item. The nodes made on the way are labelled by
what they are (`logsumexp(z)`, `z[1] - max(z)`, `sum(exp(z - max(z)))`, `softmax(z)[1]`), so
tables tell them apart. `argmax`, `argmin`, `one_hot` and `sample` make constants: no gradient flows through
a choice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ...engine.errors import ScalarAutodiffError
from ...engine.numbers import format_number, format_whole
from ...engine.scalar import Scalar
from ...language import tree
from ...language.diagnostics import LanguageError
from ..failures import not_a_list, position_in
from ..values import ListValue, Made, whole_number
from .arguments import nodes_check, with_help
from .node_functions import engine_binary

if TYPE_CHECKING:
    from ..context import Compiling

# `sample`: probabilities must sum to 1 within this.
SUM_TOLERANCE = 1e-9

_max_of, _min_of, _logsumexp = Scalar.max_of, Scalar.min_of, Scalar.logsumexp


def _labels(compiler: Compiling, span, form: str) -> Callable[[int], Made]:
    """The tags `form` gives the nodes made for item ``i`` (``{}`` is the source text at
    ``span``, ``{i}`` the item's index): one per index, made when first needed."""
    made: list[Made] = []

    def tag(index: int) -> Made:
        while len(made) <= index:
            made.append(compiler.origin(span, form=form.replace("{i}", str(len(made)))))
        return made[index]

    return tag


# ---- max, min: of two nodes, of a list, of three or more -------------------------------------


def compile_max(compiler: Compiling, call: tree.Call, largest: bool = True):
    """``max(a, b)``: the engine's two-operand max (a tie shares the gradient); ``max(L)`` and
    ``max(a, b, c, …)``: one `max_of` node (the gradient goes to the first largest)."""
    args, name = compiler.values(call), call.function
    of_a_list = f"help: `{name}` of several arguments takes values; the {'largest' if largest else 'smallest'} item of a list is `{name}(L)`"
    if len(args) == 2:
        pair, operands = engine_binary(Scalar.max if largest else Scalar.min)(compiler, call)

        def of_two(args, left, right):
            try:
                return pair(args, left, right)
            except LanguageError as error:
                if error.diagnostic.kind == "not-a-node":
                    raise with_help(error, of_a_list) from None
                raise

        return of_two, operands
    fold, origin = _max_of if largest else _min_of, compiler.origin(call.span)
    if len(args) == 1:
        nodes = nodes_check(compiler, name, args[0], "no largest item" if largest else "no smallest item")
        source, text, span = compiler.source, compiler.text_of(args[0]), args[0].span

        def of_list(args, value):
            if value.__class__ is Scalar:
                raise with_help(
                    not_a_list(source, text, span, f"`{name}` of one argument"),
                    f"help: the {'larger' if largest else 'smaller'} of two values is `{name}(a, b)`",
                )
            nodes(value)
            node = fold(value)
            node.tag = origin
            return node

        return of_list, args
    checks = [compiler.node_check(arg, f"`{name}`") for arg in args]

    def of_values(args, *values):
        for value, problem in zip(values, checks):
            if value.__class__ is not Scalar:
                raise with_help(problem(value), of_a_list)
        node = fold(values)
        node.tag = origin
        return node

    return of_values, args


def compile_min(compiler: Compiling, call: tree.Call):
    return compile_max(compiler, call, largest=False)


def compile_argmax(compiler: Compiling, call: tree.Call, largest: bool = True):
    """``argmax(L)``: the index of the first largest item, a constant (a count)."""
    origin = compiler.origin(call.span, True)

    def argmax(args, items):  # (a list of nodes with items: `NODES`)
        values = [item._value for item in items]
        best, top = 0, values[0]
        for index, number in enumerate(values):
            if (number > top) if largest else (number < top):
                best, top = index, number
        node = Scalar.constant(best)
        node.tag = origin
        return node

    return argmax, compiler.values(call)


def compile_argmin(compiler: Compiling, call: tree.Call):
    return compile_argmax(compiler, call, largest=False)


# ---- logsumexp, softmax, cross_entropy ---------------------------------------------------------


def compile_logsumexp(compiler: Compiling, call: tree.Call):
    """``logsumexp(L)``: one node with an edge to each item; its local derivatives are the
    softmax of the items."""
    origin = compiler.origin(call.span)

    def logsumexp(args, items):  # (`NODES`)
        node = _logsumexp(items)
        node.tag = origin
        return node

    return logsumexp, compiler.values(call)


def compile_softmax(compiler: Compiling, call: tree.Call):
    """``softmax(L)``: each ``exp(L[i] - max(L))`` over their sum (a left fold), as PyTorch
    computes it: the probabilities sum to 1 whatever the logits' size (`softmax([1e15, 1e15])`
    is exactly 0.5 each), where ``exp(L[i] - logsumexp(L))`` absorbs. ``max(L)`` is a constant:
    a softmax does not change when every logit moves by the same amount, so no gradient goes
    through it."""
    (argument,) = compiler.values(call)
    span, engine_error = call.span, compiler.engine_error
    top_tag = compiler.origin(argument.span, form="max({})")
    total_tag = compiler.origin(argument.span, form="sum(exp({} - max({})))")
    shifted_tag = _labels(compiler, argument.span, "{}[{i}] - max({})")
    weight_tag = _labels(compiler, argument.span, "exp({}[{i}] - max({}))")
    item_tag = _labels(compiler, call.span, "{}[{i}]")

    def softmax(args, items):  # (`NODES`)
        top = Scalar.constant(max([item._value for item in items]))  # (values are finite)
        top.tag = top_tag
        weights = []
        try:
            for index, item in enumerate(items):
                shifted = item - top
                shifted.tag = shifted_tag(index)
                weight = shifted.exp()  # at most 1: never overflows
                weight.tag = weight_tag(index)
                weights.append(weight)
            total = weights[0]
            for weight in weights[1:]:  # a left fold, the same bits on every Python
                total = total + weight
                total.tag = total_tag
            made = []
            for index, weight in enumerate(weights):
                probability = weight / total  # the sum is at least 1 (the largest's weight)
                probability.tag = item_tag(index)
                made.append(probability)
        except ScalarAutodiffError as error:  # a nan or infinite logit
            raise engine_error(error, span) from None
        return ListValue(made)

    return softmax, compiler.values(call)


def compile_cross_entropy(compiler: Compiling, call: tree.Call):
    """``cross_entropy(LOGITS, TARGET)``: ``logsumexp(LOGITS) - LOGITS[TARGET]``, TARGET a whole
    number inside the list (as indexing takes it)."""
    logits, target = compiler.values(call)
    origin = compiler.origin(call.span)
    total_tag = compiler.origin(logits.span, form="logsumexp({})")
    target_not_a_node = compiler.node_check(target, "`cross_entropy`'s target")
    source, target_span, logits_text, engine_error = compiler.source, target.span, compiler.text_of(logits), compiler.engine_error

    def cross_entropy(args, items, position):  # (LOGITS: `NODES`)
        if position.__class__ is not Scalar:
            raise with_help(target_not_a_node(position), "help: the target is the index of the right class, a whole number")
        chosen = items[position_in(source, position._value, len(items), logits_text, target_span)]
        total = _logsumexp(items)
        total.tag = total_tag
        try:
            loss = total - chosen
        except ScalarAutodiffError as error:  # (cannot happen: finite differences of finite values)
            raise engine_error(error, call.span) from None
        loss.tag = origin
        return loss

    return cross_entropy, compiler.values(call)


# ---- one_hot, sample: constants -----------------------------------------------------------------


def compile_one_hot(compiler: Compiling, call: tree.Call):
    """``one_hot(I, N)``: N constants, 1 at I and 0 elsewhere."""
    index_expr, length_expr = compiler.values(call)
    origin, budget = compiler.origin(call.span), compiler.budget

    def one_hot(args, index, length):  # (two nodes: `NODE`)
        count = whole_number(length._value)
        if count is None or count < 1:
            raise compiler.fail(
                "not-a-count", f"the length of `one_hot` must be a whole number of at least 1, not "
                f"{format_number(length._value)}", length_expr.span, {"value": length._value},
            )
        if count > budget.left:
            raise compiler.fail(
                "too-long", f"`one_hot` of {count:,} items: more than the {budget.left:,} items this statement "
                "has left", length_expr.span, {"limit": budget.left},
            )
        at = whole_number(index._value)
        if at is None:
            raise compiler.fail(
                "not-an-index", f"an index must be a whole number, not {format_number(index._value)}",
                index_expr.span, {"value": index._value},
            )
        if not 0 <= at < count:
            raise compiler.fail(
                "index-out-of-range", f"index {format_whole(index._value)} is out of range for `one_hot` of {count}",
                index_expr.span, {"index": index._value, "length": count},
                (f"help: the indices of a list of {count} are 0 to {count - 1}",),
            )
        budget.left -= count
        made = []
        for position in range(count):
            node = Scalar.constant(1.0 if position == at else 0.0)
            node.tag = origin
            made.append(node)
        return ListValue(made)

    return one_hot, compiler.values(call)


def compile_sample(compiler: Compiling, call: tree.Call):
    """``sample(P)``: an index drawn with the session's generator, the one
    ``random.choices(range(len(P)), weights=P)[0]`` draws in the same state."""
    draw = index_drawer(compiler, call)

    def sample(args, items):  # (`NODES`)
        return draw([item._value for item in items])

    return sample, compiler.values(call)


def index_drawer(compiler: Compiling, call: tree.Call, tensor: bool = False) -> Callable[[list[float]], Scalar]:
    """``draw(weights)``: `sample`'s index of probabilities ``weights`` (of a list's items or,
    ``tensor``, a rank-1 tensor's elements), checked: each at least 0, their left-folded sum 1
    within 1e-9."""
    (argument,) = compiler.values(call)
    origin, random = compiler.origin(call.span, True), compiler.random
    text = compiler.text_of(argument)
    divided = f"{text} / sum({text})" if tensor else f"[p / sum({text}) for p in {text}]"

    def draw(weights: list[float]) -> Scalar:
        for index, weight in enumerate(weights):
            if weight < 0.0:
                raise compiler.fail(
                    "bad-probabilities", f"`{text}[{index}]` is {format_number(weight)}: a probability is at least 0",
                    argument.span, {"problem": "negative", "index": index, "value": weight},
                )
        total = 0.0
        for weight in weights:  # a left fold, as the language's `sum(P)`: the same bits on every Python
            total += weight
        if not abs(total - 1.0) <= SUM_TOLERANCE:
            raise compiler.fail(
                "bad-probabilities", f"the probabilities `{text}` sum to {format_number(total)}, not 1",
                argument.span, {"problem": "sum", "sum": total, "tolerance": SUM_TOLERANCE},
                (f"help: probabilities from values are `softmax({text})`; or divide by the sum, "
                 f"`{divided}`",),
            )
        node = Scalar.constant(random.choices(range(len(weights)), weights=weights)[0])
        node.tag = origin
        return node

    return draw
