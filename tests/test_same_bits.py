"""The same bits on every supported Python (issue 40): every float sum is a left fold.

Since Python 3.12 the built-in `sum()` of floats is compensated (Neumaier), so
`sum([1e16, 1.0, -1e16])` is 0.0 on 3.11 and 1.0 on 3.12 and newer; `math.fsum` is exactly
rounded on all of them. Each program here prints a different result under a compensated or exact
sum than under the left fold, so a `sum()` or `fsum` that comes back where it matters fails
here under 3.12+ (the suite runs under 3.11 and the newest CPython, see .ci/run). The oracle is a
left fold written out in the test.
"""

from __future__ import annotations

import json
import math

from commands import needs_command, run_program
from sessions import session_after
from shared import left_fold
from scalarlang import Scalar


# Four weights e^-37 ~ 8.5e-17, each under half an ulp of 1: a left fold from 1 keeps 1, a
# compensated sum gives 1 + 2 ulps.
SMALL = [0.0, -37.0, -37.0, -37.0, -37.0]


def test_the_premise_the_sums_differ_here():
    weights = [math.exp(value) for value in SMALL]
    assert left_fold(weights) == 1.0 and math.fsum(weights) > 1.0


@needs_command
def test_logsumexp_softmax_and_sum_print_the_left_fold_through_the_command():
    result = run_program(
        "let z = [var 0, var -37, var -37, var -37, var -37]\n"
        "print logsumexp(z)\n"
        "let p = softmax(z)\n"
        "print p[0] == 1, p[1] == exp(-37)\n"
        "print sum([1e16, 1, -1e16]), mean([1e16, 1, -1e16])\n"
        "let loss = logsumexp(z)\n"
        "quiet backward(loss)\n"
        "print grad(z[0]) == 1\n",
    )
    assert result.returncode == 0, result.stderr
    # a compensated sum: 4.44089209850e-16, then `0 1`, `1 0.333333333333`, `0`
    assert result.stdout.splitlines() == ["0", "1 1", "0 0", "1"]


def test_the_engines_logsumexp_is_a_left_fold_in_value_and_local_derivatives():
    node = Scalar.logsumexp(SMALL)
    weights = [math.exp(value) for value in SMALL]
    total = left_fold(weights)
    assert node.value == math.log(total) == 0.0
    session = session_after(
        "let z = [var 0, var -37, var -37, var -37, var -37]\nlet s = logsumexp(z)\nquiet backward(s)"
    )
    assert [item.gradient for item in session["z"]] == [weight / total for weight in weights]


@needs_command
def test_sample_reports_the_sum_the_language_computes():
    # [0.1] * 20: a left fold gives 2.0000000000000004, `math.fsum` and 3.12's `sum()` 2.0
    probabilities = [0.1] * 20
    assert left_fold(probabilities) != math.fsum(probabilities)
    result = run_program("let P = [0.1 for i in 0..20]\nprint sum(P)\nlet k = sample(P)\n", "--json", "--digits", "17")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    printed, error = events[1], events[-1]
    assert error["kind"] == "bad-probabilities" and error["problem"] == "sum"
    assert error["sum"] == left_fold(probabilities) == float(printed["text"])
