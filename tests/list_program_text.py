"""The `.sad` text of a list program (list_programs.py's trees, list_model.py's forms): every
operation in parentheses, so that the text's precedence is the tree's; negative numbers as
`number` writes them (`(-1.25)`, a `neg` of a constant, or one constant as an item
of a list literal)."""

from __future__ import annotations

from fuzzing import quoted

# The numbers and learning rates the list programs draw (test_list_properties.py too).
NUMBERS = (0.5, -1.25, 2.0, 0.1, 3.0, -0.75)
LEARNING_RATES = (0.1, 0.05, 0.3)


def number(value: float) -> str:
    return repr(value) if value >= 0 else f"({value!r})"


def text(expr) -> str:
    kind = expr[0]
    if kind == "num":
        return number(expr[1])
    if kind == "lnum":
        return repr(expr[1])
    if kind == "int":
        return str(expr[1])
    if kind == "name":
        return expr[1]
    if kind in ("bin", "cmp"):
        return f"({text(expr[2])} {expr[1]} {text(expr[3])})"
    if kind == "fn":
        return f"{expr[1]}({text(expr[2])})"
    if kind == "sq":
        return f"({text(expr[1])} ** 2)"
    if kind == "neg":
        return f"(-{text(expr[1])})"
    if kind in ("var", "const"):
        return f"({kind} {text(expr[1])})"
    if kind == "index":
        return f"{text(expr[1])}[{text(expr[2])}]"
    if kind == "list":
        return "[" + ", ".join(text(item) for item in expr[1]) + "]"
    if kind == "comp":
        fors = " ".join(f"for {', '.join(names)} in {source_text(source)}" for names, source in expr[2])
        return f"[{text(expr[1])} {fors}]"
    if kind == "table":
        return f"read_table({quoted(expr[1])})"
    if kind == "call":
        return f"{expr[1]}({', '.join(text(arg) for arg in expr[2])})"
    raise AssertionError(kind)


def source_text(source) -> str:
    return f"{text(source[1])}..{text(source[2])}" if source[0] == "range" else text(source)


def statement_text(statement, indent: str = "") -> str:
    kind = statement[0]
    if kind == "let":
        line = f"let {statement[1]} = {text(statement[2])}"
    elif kind == "expr":
        line = text(statement[1])
    elif kind == "print":
        parts = "".join(p if isinstance(p, str) else f"{{{text(p[0])}:{p[1]}}}" for p in statement[1])
        line = f'print "{parts}"'
    elif kind == "backward":
        seed = "" if statement[2] is None else f", {text(statement[2])}"
        line = f"backward({text(statement[1])}{seed})"
    elif kind == "descend":
        line = f"descend {', '.join(statement[1])} by {text(statement[2])}"
    elif kind == "zero_grad":
        line = "zero_grad" if statement[1] is None else f"zero_grad({text(statement[1])})"
    elif kind == "fn":
        line = f"fn {statement[1]}({', '.join(statement[2])}) = {text(statement[3])}"
    elif kind in ("repeat", "for", "if"):
        return block_text(statement, indent)
    elif kind == "expect":
        line = f"expect {statement[1]}: {statement[2]}"
    elif kind == "quiet":
        line = "quiet " + statement_text(statement[1])
    elif kind == "random_seed":
        line = f"random_seed({statement[1]})"
    else:
        raise AssertionError(kind)
    return indent + line


def block_text(statement, indent: str) -> str:
    kind = statement[0]
    inner = indent + "  "

    def body(statements) -> str:
        return "\n".join(statement_text(s, inner) for s in statements)

    if kind == "repeat":
        return f"{indent}repeat {statement[1]} {{\n{body(statement[2])}\n{indent}}}"
    if kind == "for":
        head = f"for {', '.join(statement[1])} in {source_text(statement[2])}"
        return f"{indent}{head} {{\n{body(statement[3])}\n{indent}}}"
    _, op, left, right, then, otherwise = statement
    head = f"if {text(left)} {op} {text(right)}"
    return f"{indent}{head} {{\n{body(then)}\n{indent}}} else {{\n{body(otherwise)}\n{indent}}}"


def program_text(program: list) -> str:
    return "\n".join(statement_text(statement) for statement in program) + "\n"
