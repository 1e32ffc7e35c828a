"""The language by task, for the help texts: the tasks a learner has (the headings of `:help`
and `--help`, in their order), the forms that are syntax rather than built-ins (statements,
operators, literals: hand-written here, with the grammar), and the short examples `--help`
shows. The built-in callables are not listed here: each is an entry of the interpreter's
registry whose category is one of these tasks, so a new built-in shows in `:help` as its entry
alone. Plain data: `--help` reads it without loading the engine, lark or rich.
"""

from __future__ import annotations

# The tasks, in the order the help texts show them. A registry entry of another category gets
# a heading of its own after these.
GRAPH, TRAINING, LISTS, TEXTS, TENSORS, CHAIN_RULE, PICTURES, FORWARD_MODE = TASKS = (
    "values and the graph",
    "training",
    "lists",
    "texts and language models",
    "tensors",
    "seeing the chain rule",
    "pictures",
    "forward mode",
)

# (task, form, what it does): the statements and expression forms, placeholders in capitals.
FORMS: tuple[tuple[str, str, str], ...] = (
    (GRAPH, "let NAME = EXPR", "binds NAME to a value (a node or a list)"),
    (GRAPH, "var EXPR · const EXPR", "a tracked variable · an untracked constant"),
    (GRAPH, "+ - * / ** · -A · ( … )", "the engine's operations: one node each"),
    (GRAPH, "A % B · A // B", "the remainder · the floor of A / B: constants, no gradient"),
    (GRAPH, "A < B · <= > >= == !=", "the constant 1 or 0"),
    (GRAPH, "2.5 · 1e-3 · inf · nan", "numbers: a fresh constant each time"),
    (GRAPH, "EXPR", "shows its value line"),
    (GRAPH, 'print ITEM, ITEM, …', 'texts and values on one line: "x = {x:.3f}"'),
    (GRAPH, "zero_grad · zero_grad(EXPR)", "gradients to 0: of every name's graph · of EXPR's"),
    (GRAPH, "assert A == B [within TOL]", "an error unless it holds (also != < <= > >=)"),
    (GRAPH, "expect KIND: STATEMENT", "STATEMENT must fail with the error KIND (below)"),
    (GRAPH, "quiet STATEMENT", "runs it without its echoes and tables"),
    (TRAINING, "fn NAME(P, …) = EXPR", "a function: EXPR afresh at each call"),
    (TRAINING, "descend NAME, … by LR", "a gradient-descent step: the variables made anew"),
    (TRAINING, "repeat N { … }", "runs the block N times"),
    (TRAINING, "for i in A..B { … }", "i is A, A+1, …, B-1"),
    (TRAINING, "for x, y in TABLE { … }", "each row of a table (for x in L: each item)"),
    (TRAINING, "if A OP B { … } else { … }", "OP: == != < <= > >=; also else if"),
    (TRAINING, "while COND { … }", "runs the block while COND is not 0"),
    (TRAINING, "break", "leaves the innermost loop"),
    (LISTS, "[A, B, …] · (A, B, …)", "a list; rows of numbers [(1, 3), (2, 5)]: a table"),
    (LISTS, "L[I] · L[I][J]", "an item, from 0; a negative I counts from the end"),
    (LISTS, "[EXPR for x in L]", "a comprehension: L a list or a range A..B; fors nest"),
    (LISTS, "L + M", "a new list: L's items, then M's"),
    (TEXTS, '"abc"', 'a text: a constant, no node (escapes \\n \\" \\\\)'),
    (TEXTS, "T[I] · T + U · T == U", "a character · two texts joined · equality (1 or 0, != too)"),
    (TEXTS, "for c in T { … }", "each character of a text"),
    (TENSORS, "A @ B", "the matrix product of tensors (rank 1 @ rank 1: their dot, a node)"),
    (TENSORS, "+ - * / ** < … of tensors", "element-wise, broadcast; a number or a node on either side"),
    (TENSORS, "T[I] · T[I][J] · C[X]", "a sub-tensor · an element (a node) · the rows X names"),
    (TENSORS, "for row in T { … }", "T's rows T[0], T[1], … (a rank-1 tensor's elements), as indexing makes them"),
    (TENSORS, "var tensor(L) · var randn(S, …)", "a tensor variable: its gradient is stored"),
)

# (task, paragraph): what a task's forms and built-ins do not say alone, shown under them in
# `:help` (so `:help TASK` has it too), after the rows, in this order.
NOTES: tuple[tuple[str, str], ...] = (
    (TENSORS, "shapes: a tensor is a shape, such as [100, 16] (one or more whole numbers), and its "
              "values in row-major order; each operation checks its operands' shapes (else "
              "shape-mismatch, naming both). A reduction over every element, an element T[i][j] and "
              "a @ b of rank 1 are scalar nodes, so backward, descend, print and value work on a loss "
              "as before"),
    (TENSORS, "broadcasting, numpy's rules: shapes are lined up from the last axis and each pair of "
              "dimensions is equal, or one is 1 or missing: [100, 16] + [16] adds the [16] to each "
              "row; a number or a scalar node goes with any shape. The broadcast operand's gradient "
              "is the adjoint summed back to its shape"),
    (TENSORS, "A @ B: [B, N] @ [N, M] is [B, M]; [N, M] @ [M] is [N]; [N] @ [N, M] is [M]; "
              "[N] @ [N] is their dot, a scalar node. Its VJPs: dA = dC @ Bᵀ, dB = Aᵀ @ dC"),
    (TENSORS, "of tensors too (under their tasks above): exp log tanh sqrt relu sigmoid abs and "
              "max(A, B) min(A, B), element-wise; sum mean max min logsumexp, over every element or "
              "with axis: K along one; softmax argmax argmin, along the last axis or axis: K; "
              "cross_entropy(Z, Y), Z [B, V] and Y B indices: the B row losses; one_hot(I, N); len "
              "value grad detach; gradcheck(LOSS, T), element by element; descend, element by "
              "element"),
    (TENSORS, "vjp_check(loss), the bridge to the scalar engine: for every tensor node of the loss's "
              "graph, its operation rebuilt from scalar nodes, the node's adjoint pushed back through "
              "those scalar edges and compared, element by element, with what its VJP gave: a table of "
              "node, shapes, scalar edges and largest difference, then a verdict like gradcheck's (a "
              "failure is the error vjp-check-failed)"),
    (TENSORS, "more: docs/tensors.md takes examples/moons.sad to moons_tensor.sad line by line, then "
              "explains a tensor node and runs vjp_check; docs/language.md#tensors has every form"),
)

# (task, example, what it does): what `--help` shows of each task.
EXAMPLES: tuple[tuple[str, str, str], ...] = (
    (GRAPH, "let x = var 2", "a tracked variable (const 3: untracked)"),
    (GRAPH, "let loss = x * x + 1", "+ - * / ** exp tanh log … build the graph"),
    (GRAPH, "backward(loss)", "the backward pass, as tables of nodes and edges"),
    (GRAPH, "graph(loss)", "the graph's nodes, changing nothing"),
    (GRAPH, 'print "x is {x}"', "a line of texts and values"),
    (GRAPH, "gradcheck(loss, x)", "the pass against a central difference"),
    (GRAPH, "assert grad(x) == 4", "an error unless it holds"),
    (GRAPH, "expect KIND: STATEMENT", "STATEMENT must fail with the error KIND"),
    (TRAINING, "fn f(x) = w * x + b", "a function"),
    (TRAINING, "descend w, b by 0.1", "one gradient-descent step"),
    (TRAINING, "for i in 0..100 { … }", "a loop (repeat 100 { … } too)"),
    (TRAINING, "for x, y in data { … }", "each row of a table"),
    (TRAINING, "if a < b { … }", "a branch (else { … } too)"),
    (TRAINING, "uniform(-1, 1)", "a random starting weight (random_seed(N) first)"),
    (TRAINING, 'read_table("data.csv")', "the rows of numbers of a CSV file"),
    (LISTS, "let L = [1, 2, 3]", "a list (of nodes, numbers or lists)"),
    (LISTS, "L[0] · L[-1]", "an item (-1: the last)"),
    (LISTS, "[x * x for x in L]", "a comprehension"),
    (LISTS, "sum(L) · dot(A, B)", "folds (mean, len, zip and flatten too)"),
    (TEXTS, 'read_text("names.txt")', "a text file; lines(t), chars(t): its words, its characters"),
    (TEXTS, "encode(t, vocab)", "a list of indices (decode(L, vocab): back to text)"),
    (TEXTS, "cross_entropy(logits, i)", "the loss of one example (softmax, logsumexp too)"),
    (TEXTS, "sample(softmax(logits))", "an index drawn with those probabilities"),
    (TENSORS, "let W = var randn(2, 16)", "a tensor variable (tensor(L), zeros(S, …) too)"),
    (TENSORS, "relu(X @ W + b)", "a layer: one node per operation, broadcast"),
    (TENSORS, "mean(cross_entropy(Z, Y))", "a batch's loss (sum, softmax … with axis: K)"),
    (CHAIN_RULE, "explain(x)", "x's gradient as the sum of its edges and passes"),
    (CHAIN_RULE, "paths(loss, x)", "every path from loss down to x"),
    (CHAIN_RULE, "walk(loss)", "the backward pass, one edge at a time"),
    (PICTURES, 'draw(loss, "loss.svg")', "a picture of the graph (.svg, .png or .dot)"),
    (PICTURES, "plot(losses)", "a line chart (title:, xlabel:, ylabel:, log:, file:)"),
    (PICTURES, "boundary(score, data)", "where a classifier says + and -, over its data"),
    (FORWARD_MODE, "jvp(loss, x)", "dloss/dx by one forward pass (tangents(loss, x): its trace)"),
    (FORWARD_MODE, "jacobian([loss], [w, b])", "the matrix both ways, and what each way cost"),
)
