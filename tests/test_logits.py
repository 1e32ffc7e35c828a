"""Folds over lists, softmax, cross-entropy, one_hot and sample (issue 32), through the language.

Every value and gradient is compared with an oracle written here in plain Python floats
(`math.fsum`, the largest logit taken out by hand), never the engine, within 1e-12 relative:
random lists, logits of +-1000, ties. A gradient that is a difference (softmax minus one-hot)
is compared relative to the size of the terms it is the difference of, which is what "relative"
means for a sum computed in floating point. `sample` is checked against Python's own
`random.Random.choices` with the same seed.
"""

from __future__ import annotations

import math
import random

import pytest

from sessions import session_after
from shared import left_fold
import scalarlang
from scalarlang.engine import normal

REL = 1e-12


# ---- the oracle -------------------------------------------------------------------------------


def o_softmax(values: list[float]) -> list[float]:
    top = max(values)
    weights = [math.exp(value - top) for value in values]
    total = math.fsum(weights)
    return [weight / total for weight in weights]


def o_logsumexp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(math.fsum(math.exp(value - top) for value in values))


def o_first(values: list[float], largest: bool) -> int:
    best = 0
    for index, value in enumerate(values):
        if (value > values[best]) if largest else (value < values[best]):
            best = index
    return best


def close(actual: float, expected: float, scale: float | None = None) -> bool:
    """Within REL of ``expected`` (or of ``scale``, the size of the terms a difference is of)."""
    size = abs(expected) if scale is None else max(abs(expected), scale)
    return abs(actual - expected) <= REL * size or actual == expected


# ---- the cases --------------------------------------------------------------------------------


def cases() -> list[list[float]]:
    rng = random.Random(32)
    found = [
        [1.5, 0.3, -0.8], [0.0], [-3.25], [1000.0, -1000.0, 999.5], [1000.0, 1000.0, 1000.0],
        [-1000.0, -1000.0], [-1000.0, -999.0, -1001.0, -1000.0], [2.0, 7.0, 7.0, -1.0, 7.0],
        [0.0, -0.0, 0.0], [1e-300, -1e-300, 0.0], [700.0, -700.0, 0.5], [-5.0, 5.0, 5.0, -5.0],
    ]
    for _ in range(60):
        scale = rng.choice((0.1, 1.0, 3.0, 30.0, 1000.0))
        values = [rng.gauss(0.0, scale) for _ in range(rng.randint(1, 9))]
        if len(values) > 2 and rng.random() < 0.4:  # a tie, sometimes of the largest
            values[rng.randrange(len(values))] = max(values) if rng.random() < 0.5 else values[0]
        found.append(values)
    return found


CASES = cases()


def variables(values: list[float]) -> str:
    return "[" + ", ".join(f"var {value!r}" for value in values) + "]"


def value_and_gradients(values: list[float], expression: str, setup: str = "") -> tuple[float, list[float]]:
    """``expression`` of ``z`` (the list of variables), a backward pass from it, its value and
    each item's gradient."""
    session = session_after(f"let z = {variables(values)}\n{setup}\nlet s = {expression}\nquiet backward(s)")
    return session["s"].value, [item.gradient for item in session["z"]]


# ---- values and gradients against the oracle ------------------------------------------------------


@pytest.mark.parametrize("values", CASES, ids=range(len(CASES)))
def test_max_and_min_of_a_list_choose_the_first_largest(values):
    for name, largest in (("max", True), ("min", False)):
        chosen = o_first(values, largest)
        value, gradients = value_and_gradients(values, f"{name}(z) * 3")
        assert value == values[chosen] * 3
        assert gradients == [3.0 if index == chosen else 0.0 for index in range(len(values))]
        index = session_after(f"let z = {variables(values)}\nlet i = arg{name}(z)")["i"]
        assert index.value == chosen and not index.tracks_gradient


@pytest.mark.parametrize("values", CASES, ids=range(len(CASES)))
def test_logsumexp_is_its_value_and_its_gradient_is_the_softmax(values):
    value, gradients = value_and_gradients(values, "logsumexp(z)")
    assert close(value, o_logsumexp(values), 1.0), (value, o_logsumexp(values))
    for gradient, expected in zip(gradients, o_softmax(values)):
        assert close(gradient, expected), (gradient, expected)


@pytest.mark.parametrize("values", CASES, ids=range(len(CASES)))
def test_softmax_values_and_the_gradient_through_them(values):
    rng = random.Random(len(values))
    weights = [rng.uniform(-2.0, 2.0) for _ in values]
    session = session_after(f"let z = {variables(values)}\nlet p = softmax(z)")
    probabilities = o_softmax(values)
    for item, expected in zip(session["p"], probabilities):
        assert close(item.value, expected), (item.value, expected)
    # d/dz_j of sum_i c_i p_i = p_j (c_j - sum_i c_i p_i)
    value, gradients = value_and_gradients(values, "dot(c, softmax(z))", f"let c = {weights!r}")
    mean = math.fsum(c * p for c, p in zip(weights, probabilities))
    assert close(value, mean, math.fsum(abs(c) * p for c, p in zip(weights, probabilities)))
    for j, gradient in enumerate(gradients):
        expected = probabilities[j] * (weights[j] - mean)
        scale = probabilities[j] * (abs(weights[j]) + abs(mean))
        assert close(gradient, expected, scale), (j, gradient, expected)


@pytest.mark.parametrize("values", CASES, ids=range(len(CASES)))
def test_cross_entropy_is_logsumexp_minus_the_target_and_its_gradient_softmax_minus_one_hot(values):
    probabilities = o_softmax(values)
    for target in {0, len(values) - 1, len(values) // 2}:
        value, gradients = value_and_gradients(values, f"cross_entropy(z, {target})")
        expected = o_logsumexp(values) - values[target]
        assert close(value, expected, abs(values[target]) + 1.0), (value, expected)
        for j, gradient in enumerate(gradients):
            hot = 1.0 if j == target else 0.0
            assert close(gradient, probabilities[j] - hot, probabilities[j] + hot), (j, gradient)


def test_logits_of_a_thousand_neither_overflow_nor_lose_the_gradient():
    value, gradients = value_and_gradients([1000.0, -1000.0, 1000.0], "cross_entropy(z, 1)")
    assert value == 2000.0 + math.log(2.0)
    assert gradients == [0.5, -1.0, 0.5]
    value, gradients = value_and_gradients([-1000.0, -1000.0], "logsumexp(z)")
    assert value == -1000.0 + math.log(2.0) and gradients == [0.5, 0.5]


def test_max_of_two_nodes_still_shares_a_tie_and_of_three_gives_it_to_the_first():
    assert value_and_gradients([2.0, 2.0], "max(z[0], z[1])")[1] == [0.5, 0.5]
    assert value_and_gradients([2.0, 2.0], "min(z[0], z[1])")[1] == [0.5, 0.5]
    assert value_and_gradients([2.0, 2.0, 1.0], "max(z[0], z[1], z[2])")[1] == [1.0, 0.0, 0.0]
    assert value_and_gradients([3.0, 1.0, 1.0], "min(z[0], z[1], z[2])")[1] == [0.0, 1.0, 0.0]
    # numbers among the arguments are constants
    assert value_and_gradients([-1.0], "max(z[0], 0, -2)") == (0.0, [0.0])


def test_one_hot_is_constants():
    session = session_after("let h = one_hot(2, 4)\nlet k = one_hot(-0.0, 1)")
    assert [item.value for item in session["h"]] == [0.0, 0.0, 1.0, 0.0]
    assert not any(item.tracks_gradient for item in session["h"])
    assert [item.value for item in session["k"]] == [1.0]


@pytest.mark.parametrize("expression, variable_count", [
    ("logsumexp(z)", 4), ("dot([0.5, -1, 2, 0.25], softmax(z))", 4), ("cross_entropy(z, 2)", 4),
    ("max(z) * min(z)", 4), ("max(z[0], z[1], z[2]) + min(z[1], z[2], z[3])", 4),
    ("-log(softmax(z)[3])", 4), ("logsumexp([z[0] * z[1], tanh(z[2]), z[3], 2])", 4),
])
def test_gradcheck_passes_on_each(expression, variable_count):
    session = scalarlang.Session()
    items = ", ".join(f"z[{index}]" for index in range(variable_count))
    result = session.run(f"let z = [var 0.3, var -1.2, var 2.1, var 0.7]\nlet s = {expression}\ngradcheck(s, {items})")
    assert result.error is None, result.error
    assert result.text.count("pass=true") == variable_count


# ---- how they look in the graph ------------------------------------------------------------------


def test_softmax_is_each_shifted_exponential_over_one_shared_left_folded_sum():
    session = session_after("let z = [var 1.5, var 0.3, var -0.8]\nlet p = softmax(z)\nlet loss = -log(p[1]) - log(p[2])")
    topology = session["loss"].topology()
    labels = [session.label_of(node) for node in topology]
    top = topology[labels.index("max(z)")]
    assert top.value == 1.5 and not top.tracks_gradient  # a constant: no gradient through the shift
    p1, p2 = session["p"][1], session["p"][2]
    assert str(p1.operation) == str(p2.operation) == "div"
    (total,) = {p1.parents[1].parent, p2.parents[1].parent}  # one sum, shared by both items
    weights = [math.exp(value - 1.5) for value in (1.5, 0.3, -0.8)]
    assert total.value == (weights[0] + weights[1]) + weights[2]  # a left fold
    assert {"z[1] - max(z)", "exp(z[1] - max(z))", "sum(exp(z - max(z)))", "p[1]", "p[2]"} <= set(labels)


@pytest.mark.parametrize("logit, count", [(1000.0, 3), (1e9, 3), (1e15, 2), (-1e15, 2), (1e300, 5), (7.0, 8)])
def test_softmax_of_equal_logits_is_exactly_one_over_their_count(logit, count):
    # exp(L[i] - logsumexp(L)) gave 0.33333333333331516 for 1000, 0.4724 for 1e15 (issue 40)
    result = scalarlang.run(f"let p = softmax([{logit!r} for i in 0..{count}])\nprint p[0] == 1 / {count}, sum(p) == 1")
    assert result.text == "1 1\n", result.text
    session = session_after(f"let p = softmax([var {logit!r} for i in 0..{count}])")
    assert [item.value for item in session["p"]] == [1 / count] * count


def mp_softmax(values: list[float]) -> list[float]:
    """The softmax in 50 digits (mpmath), from the logits' exact values: independent of the
    engine's order of operations."""
    import mpmath

    with mpmath.workdps(50):
        top = max(mpmath.mpf(value) for value in values)
        weights = [mpmath.exp(mpmath.mpf(value) - top) for value in values]
        total = mpmath.fsum(weights)
        return [float(weight / total) for weight in weights]


def large_logit_cases() -> list[list[float]]:
    rng = random.Random(40)
    found = []
    for _ in range(80):
        base = rng.choice((0.0, 1000.0, -1e6, 1e9, 1e12, 1e15, -1e15, 3e17))
        spread = rng.choice((0.0, 0.5, 3.0, 40.0))
        found.append([base + rng.uniform(-spread, spread) for _ in range(rng.randint(1, 12))])
    return found


@pytest.mark.parametrize("values", large_logit_cases(), ids=range(80))
def test_softmax_of_large_logits_against_mpmath(values):
    session = session_after(f"let z = {variables(values)}\nlet p = softmax(z)")
    probabilities = [item.value for item in session["p"]]
    for actual, expected in zip(probabilities, mp_softmax(values)):
        # the shift L[i] - max(L) is exact or rounds by an ulp of the logit: within 1e-12 for
        # differences below ~1000 (smaller weights vanish next to the largest's 1)
        assert abs(actual - expected) <= 1e-12 * expected + 1e-300, (actual, expected)
    assert abs(left_fold(probabilities) - 1.0) <= len(values) * 2.0**-52


def test_explain_shows_a_logit_gradient_as_softmax_minus_one():
    result = scalarlang.run("let z = [var 1.5, var 0.3, var -0.8]\nlet loss = cross_entropy(z, 1)\n"
                            "backward(loss)\nexplain(z[1])", width=100)
    assert result.error is None
    text = result.text
    assert "-0.785084337502 = -1 (loss, slot 1) + 0.214915662498 (logsumexp(z), slot 1)" in text
    assert "5 unique nodes, 5 operand edges" in text  # three logits, logsumexp(z), loss


# ---- sample against Python's random ----------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42, 1337, 2**40 + 3])
def test_sample_draws_what_random_choices_draws_with_the_same_seed(seed):
    rng = random.Random(seed + 1)
    distributions = [[1.0], [0.5, 0.5], [0.1, 0.2, 0.7], [0.0, 1.0, 0.0], [0.25] * 4]
    for _ in range(6):
        weights = [rng.random() ** 3 for _ in range(rng.randint(2, 30))]
        total = math.fsum(weights)
        distributions.append([weight / total for weight in weights])
    lines = [f"random_seed({seed})"]
    for index, probabilities in enumerate(distributions):
        lines.append(f"let d{index} = {probabilities!r}")
    lines.append("let drawn = [" + ", ".join(f"sample(d{index % len(distributions)})" for index in range(200)) + "]")
    lines.append("let g = gauss(0, 1)")  # the generator is the session's: draws interleave
    lines.append("let logits = [var 0.5, var -1, var 2, var 0]\nlet after = [sample(softmax(logits)) for i in 0..50]")
    session = session_after("\n".join(lines))
    python = random.Random(seed)
    expected = [python.choices(range(len(distributions[index % len(distributions)])),
                               weights=distributions[index % len(distributions)])[0] for index in range(200)]
    assert [item.value for item in session["drawn"]] == expected
    assert session["g"].value == normal.gauss(python, 0, 1)
    probabilities = o_softmax([0.5, -1.0, 2.0, 0.0])
    assert [item.value for item in session["after"]] == [python.choices(range(4), weights=probabilities)[0] for _ in range(50)]


def test_a_session_starts_seeded_with_zero_for_sample():
    session = session_after("let k = [sample([0.2, 0.3, 0.5]) for i in 0..20]")
    python = random.Random(0)
    assert [item.value for item in session["k"]] == [python.choices(range(3), weights=[0.2, 0.3, 0.5])[0] for _ in range(20)]


def test_sample_takes_sums_within_a_billionth_of_one():
    session_after("let k = sample([0.5, 0.5 + 9e-10])")
    error = scalarlang.run("let k = sample([0.5, 0.5 + 2e-9])").error
    assert error.kind == "bad-probabilities" and error.fields["problem"] == "sum"


@pytest.mark.parametrize("seed", [0, 7, 2147483657])
def test_sample_of_a_tensor_draws_what_it_draws_of_its_elements(seed):
    """`sample(softmax(T)[0])`, a row of a tensor's probabilities (names_tensor.sad's next
    character), draws as `random.choices` does with the row's values as weights."""
    rng = random.Random(seed)
    logits = [[rng.gauss(0, 2) for _ in range(27)] for _ in range(2)]
    program = (f"random_seed({seed})\nlet Z = tensor({logits!r})\nlet P = softmax(Z)\n"
               "let drawn = [sample(P[k % 2]) for k in 0..60]\nlet g = gauss(0, 1)\n")
    session = session_after(program)
    rows = session["P"].tolist()
    python = random.Random(seed)
    assert [item.value for item in session["drawn"]] == [python.choices(range(27), weights=rows[k % 2])[0] for k in range(60)]
    assert session["g"].value == normal.gauss(python, 0, 1)
    for row, logit_row in zip(rows, logits):
        assert row == pytest.approx(o_softmax(logit_row), rel=REL)


def test_a_tensor_whose_probabilities_do_not_sum_to_one_is_told_to_divide_it():
    error = scalarlang.run("let P = tensor([1, 3])\nlet k = sample(P)").error
    assert error.kind == "bad-probabilities" and error.fields["sum"] == 4.0
    assert error.notes == ("help: probabilities from values are `softmax(P)`; or divide by the sum, `P / sum(P)`",)
