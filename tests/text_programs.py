"""Random programs over texts, folds, sampling, `while` and charts (issue 40's campaign), each
with what it must show, computed here in plain Python from what docs/language.md says (never
from the package): `TextProgramGenerator(seed, folder).program()` writes the `.sad` text, the
files its `read_text` reads, and the events the command must print.

The forms: texts (literals, `+`, f-strings with text and `.17g`/`.3f` number holes, `join`,
`lines`, `chars`, indexing, `len`, `read_text` of files with LF and CRLF line ends), lists
(literals, comprehensions over lists and ranges, `+`, draws of `uniform`), folds (`for` over a
list or a text into a name, `sum`, `mean`, `len`), `random_seed` and `sample`, `while` loops
(a count, a growing text), `plot` (against the index or an X, several series, `log: 1`,
constants near the largest double and subnormals, `title:` and `xlabel:` from texts) and
`boundary` of a function defined with `fn`, `expect` of wrong statements of these forms, and
now and then a last statement that fails.

What is expected: each `print`'s text; each chart's kind, title, axis titles and series (x
and y, as bits) or points, and for a boundary the sign of F at every centre of the grid the
event gives (F computed here); each `expected` kind; the error's kind. Seeded: a seed is a
reproducer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

# Texts without quotes, braces or backslashes (they are written inside quotes).
WORDS = ("ab", "x y", "hello", "a,b", "", "Zz9", "é", "-", "q", "line one", "漢字")
# A file's lines may hold what a quoted text cannot: tabs, quotes, braces, backslashes.
FILE_WORDS = WORDS + ("a\tb", 'say "hi"', "{x}", "back\\slash")
NUMBERS = (0.5, -1.25, 2.0, 0.1, 3.0, -0.75, 0.0, 7.0, 0.2, 1e-3)
PROBABILITIES = ("[0.5, 0.5]", "[0.25, 0.25, 0.5]", "[0.1, 0.2, 0.7]", "[1]", "[0, 1]", "[0.2, 0.2, 0.2, 0.2, 0.2]")
EXTREMES = (
    "[1e308, 1e308]", "[-1e308, -1e308]", "[5e-324, 5e-324]", "[1e308, 1e307]", "[1e-320, 2e-320]",
    "[1.7976931348623157e308, 1.7976931348623157e308]", "[0, 1, 2]", "[3, 3, 3]",
)
LOG_EXTREMES = ("[5e-324 * u for u in 1..6]", "[1e308, 1e-300]", "[5e-324]", "[1.7e308]")
# The kinds a program may end with (a failing last statement).
ERROR_KINDS = (
    "not-a-text", "not-a-list", "not-a-node", "bad-probabilities", "empty-series", "log-non-positive", "io-error",
    "index-out-of-range", "length-mismatch", "undefined-name",
)


def fmt(value: float, spec: str) -> str:
    return format(value, spec)


def number_text(value: float) -> str:
    return repr(value)


def quoted(text: str) -> str:
    return '"' + text + '"'


def lines_of(text: str) -> list[str]:
    """docs/language.md's `lines`: no empty last line for a final newline; none of ""."""
    if text == "":
        return []
    parts = text.split("\n")
    return parts[:-1] if text.endswith("\n") else parts


def fold(values: list[float]) -> float:
    total = values[0]
    for value in values[1:]:
        total = total + value
    return total


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


@dataclass
class Program:
    statements: list[str]
    expected: list[dict]
    # (index of the statement, the statement alone, its kind): wrong statements the program
    # expects, for checking that each changes nothing when run bare.
    failures: list[tuple[int, str, str]] = field(default_factory=list)
    boundaries: dict[int, float] = field(default_factory=dict)  # plot event's place -> F's C

    def text(self) -> str:
        return "\n".join(self.statements) + "\n"


class TextProgramGenerator:
    def __init__(self, seed: int, folder: Path):
        self.rng = random.Random(seed)
        self.seed, self.folder = seed, folder
        self.numbers: dict[str, float] = {}
        self.texts: dict[str, str] = {}
        self.lists: dict[str, list[float]] = {}
        self.text_lists: dict[str, list[str]] = {}
        self.functions: dict[str, float] = {}
        self.draws = random.Random(0)  # a session starts seeded with 0
        self.statements: list[str] = []
        self.expected: list[dict] = []
        self.failures: list[tuple[int, str, str]] = []
        self.boundaries: dict[int, float] = {}
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, statement: str, *events: dict) -> None:
        self.statements.append(statement)
        self.expected.extend(events)

    def program(self) -> Program:
        self.let_number()
        self.let_text()
        self.let_list()
        makers = [
            self.let_number, self.let_text, self.let_text, self.let_list, self.let_text_list, self.fold_list,
            self.fold_text, self.folds, self.print_text, self.sample, self.while_count, self.while_text,
            self.plot, self.plot_extreme, self.boundary, self.expect, self.read_file,
        ]
        for _ in range(self.rng.randint(4, 14)):
            self.rng.choice(makers)()
        if self.rng.random() < 0.1:
            self.last_failure()
        return Program(self.statements, self.expected, self.failures, self.boundaries)

    # ---- values ---------------------------------------------------------------------------------

    def pick(self, table: dict):
        return self.rng.choice(list(table))

    def let_number(self) -> None:
        name = self.fresh("a")
        if self.numbers and self.rng.random() < 0.5:
            left, right = self.pick(self.numbers), self.pick(self.numbers)
            op = self.rng.choice("+-*")
            x, y = self.numbers[left], self.numbers[right]
            value = x + y if op == "+" else x - y if op == "-" else x * y
            self.emit(f"let {name} = {left} {op} {right}")
        else:
            value = self.rng.choice(NUMBERS)
            self.emit(f"let {name} = {number_text(value)}")
        self.numbers[name] = value

    def let_text(self) -> None:
        name = self.fresh("t")
        choice = self.rng.randrange(7) if self.texts else 0
        if choice == 0:
            value = self.rng.choice(WORDS)
            self.emit(f"let {name} = {quoted(value)}")
        elif choice == 1:
            left, right = self.pick(self.texts), self.pick(self.texts)
            value = self.texts[left] + self.texts[right]
            self.emit(f"let {name} = {left} + {right}")
        elif choice == 2 and self.numbers:
            text_name, number = self.pick(self.texts), self.pick(self.numbers)
            spec = self.rng.choice((".17g", ".3f"))
            value = f"{self.texts[text_name]}:{fmt(self.numbers[number], spec)}!"
            self.emit(f'let {name} = "{{{text_name}}}:{{{number}:{spec}}}!"')
        elif choice == 3 and self.text_lists:
            listed = self.pick(self.text_lists)
            separator = self.rng.choice((", ", "", "|"))
            value = separator.join(self.text_lists[listed])
            self.emit(f"let {name} = join({listed}, {quoted(separator)})")
        elif choice == 4:
            source = self.pick(self.texts)
            text = self.texts[source]
            if not text:
                value = ""
                self.emit(f"let {name} = {source} + {source}")
            else:
                index = self.rng.randrange(len(text))
                value = text[index]
                self.emit(f"let {name} = {source}[{index}]")
        elif choice == 5:
            source = self.pick(self.texts)
            value = "/".join(lines_of(self.texts[source]))
            self.emit(f'let {name} = join(lines({source}), "/")')
        else:
            value = self.rng.choice(WORDS)
            self.emit(f"let {name} = {quoted(value)}")
        self.texts[name] = value

    def let_list(self) -> None:
        name = self.fresh("L")
        choice = self.rng.randrange(5) if self.lists else 0
        if choice == 0:
            values = [self.rng.choice(NUMBERS) for _ in range(self.rng.randint(1, 5))]
            self.emit(f"let {name} = [{', '.join(map(number_text, values))}]")
        elif choice == 1:
            source, factor = self.pick(self.lists), self.rng.choice(NUMBERS)
            values = [value * factor for value in self.lists[source]]
            self.emit(f"let {name} = [v * {number_text(factor)} for v in {source}]")
        elif choice == 2:
            count, offset = self.rng.randint(1, 6), self.rng.choice(NUMBERS)
            values = [float(u) + offset for u in range(count)]
            self.emit(f"let {name} = [u + {number_text(offset)} for u in 0..{count}]")
        elif choice == 3:
            count = self.rng.randint(1, 5)
            values = [self.draws.uniform(0, 1) for _ in range(count)]
            self.emit(f"let {name} = [uniform(0, 1) for u in 0..{count}]")
        else:
            left, right = self.pick(self.lists), self.pick(self.lists)
            values = self.lists[left] + self.lists[right]
            self.emit(f"let {name} = {left} + {right}")
        self.lists[name] = values

    def let_text_list(self) -> None:
        name = self.fresh("T")
        choice = self.rng.randrange(4)
        if choice == 0:
            source = self.pick(self.texts)
            values = lines_of(self.texts[source])
            self.emit(f"let {name} = lines({source})")
        elif choice == 1:
            source = self.pick(self.lists)
            values = [fmt(value, ".3f") for value in self.lists[source]]
            self.emit(f'let {name} = ["{{v:.3f}}" for v in {source}]')
        elif choice == 2:
            source = self.pick(self.texts)
            values = sorted(set(self.texts[source]))
            self.emit(f"let {name} = chars({source})")
        else:
            names = [self.pick(self.texts) for _ in range(self.rng.randint(0, 3))]
            values = [self.texts[item] for item in names]
            self.emit(f"let {name} = [{', '.join(names)}]")
        self.text_lists[name] = values

    def read_file(self) -> None:
        pieces = [self.rng.choice(FILE_WORDS) for _ in range(self.rng.randint(0, 4))]
        ends = [self.rng.choice(("\n", "\r\n")) for _ in pieces]
        content = "".join(piece + end for piece, end in zip(pieces, ends))
        if pieces and self.rng.random() < 0.5:
            content = content[: -len(ends[-1])]  # no newline at the end
        path = f"f{self.seed}_{self.count}.txt"
        (self.folder / path).write_bytes(content.encode("utf-8"))
        name = self.fresh("t")
        self.emit(f"let {name} = read_text({quoted(path)})")
        self.texts[name] = content.replace("\r\n", "\n")

    # ---- folds and loops --------------------------------------------------------------------------

    def fold_list(self) -> None:
        source, total = self.pick(self.lists), self.fresh("s")
        value = 0.0
        for item in self.lists[source]:
            value = value + item
        self.emit(f"let {total} = 0", )
        self.emit(f"for v in {source} {{ let {total} = {total} + v }}")
        self.emit(f'print "{{{total}:.17g}}"', {"event": "print", "text": fmt(value, ".17g")})
        self.numbers[total] = value

    def fold_text(self) -> None:
        if not self.text_lists:
            return self.let_text_list()
        source, name = self.pick(self.text_lists), self.fresh("t")
        value = ""
        for item in self.text_lists[source]:
            value = value + item + ";"
        self.emit(f'let {name} = ""')
        self.emit(f'for w in {source} {{ let {name} = {name} + w + ";" }}')
        self.texts[name] = value

    def folds(self) -> None:
        source = self.pick(self.lists)
        values = self.lists[source]
        shown = f"{fmt(fold(values), '.17g')} {fmt(fold(values) / len(values), '.17g')} {fmt(len(values), '.17g')}"
        self.emit(
            f'print "{{sum({source}):.17g}} {{mean({source}):.17g}} {{len({source}):.17g}}"',
            {"event": "print", "text": shown},
        )

    def print_text(self) -> None:
        source = self.pick(self.texts)
        if self.rng.random() < 0.5:
            self.emit(f"print {source}", {"event": "print", "text": self.texts[source]})
        else:
            value = self.texts[source]
            self.emit(
                f'print "<{{{source}}}> {{len({source}):.17g}}"', {"event": "print", "text": f"<{value}> {len(value)}"}
            )

    def sample(self) -> None:
        if self.rng.random() < 0.4:
            seed = self.rng.randrange(100)
            self.draws = random.Random(seed)
            self.emit(f"random_seed({seed})")
        probabilities = self.rng.choice(PROBABILITIES)
        weights = [float(part) for part in probabilities.strip("[]").split(", ")]
        name = self.fresh("i")
        value = float(self.draws.choices(range(len(weights)), weights=weights)[0])
        self.emit(f"let {name} = sample({probabilities})")
        self.emit(f'print "{{{name}:.17g}}"', {"event": "print", "text": fmt(value, ".17g")})
        self.numbers[name] = value

    def while_count(self) -> None:
        name, limit = self.fresh("k"), self.rng.randint(0, 6)
        self.emit(f"let {name} = 0")
        self.emit(f"while {name} < {limit} {{ let {name} = {name} + 1 }}")
        self.emit(f'print "{{{name}:.17g}}"', {"event": "print", "text": fmt(float(max(0, limit)), ".17g")})
        self.numbers[name] = float(limit)

    def while_text(self) -> None:
        pieces = [text for text in WORDS if text]
        piece, limit, name = self.rng.choice(pieces), self.rng.randint(0, 9), self.fresh("w")
        value = ""
        while len(value) < limit:
            value = value + piece
        self.emit(f'let {name} = ""')
        self.emit(f"while len({name}) < {limit} {{ let {name} = {name} + {quoted(piece)} }}")
        self.emit(f"print {name}", {"event": "print", "text": value})
        self.texts[name] = value

    # ---- charts -----------------------------------------------------------------------------------

    def options(self) -> tuple[str, dict]:
        """`title:` and `xlabel:` now and then (a literal or a text's name), and what they show."""
        written, shown = [], {"title": None, "xlabel": None, "ylabel": None}
        for option in ("title", "xlabel", "ylabel"):
            if self.rng.random() < 0.3:
                if self.rng.random() < 0.5:
                    source = self.pick(self.texts)
                    written.append(f"{option}: {source}")
                    shown[option] = self.texts[source]
                else:
                    word = self.rng.choice(WORDS)
                    written.append(f"{option}: {quoted(word)}")
                    shown[option] = word
        return "".join(", " + part for part in written), shown

    def line_event(self, series: list[tuple[list[float], list[float]]], shown: dict) -> dict:
        return {
            "event": "plot", "kind": "line", **shown, "series": [{"x": x, "y": y} for x, y in series],
        }

    def plot(self) -> None:
        source = self.pick(self.lists)
        ys = self.lists[source]
        index = [float(number) for number in range(len(ys))]
        options, shown = self.options()
        choice = self.rng.randrange(4)
        if choice == 0:
            self.emit(f"plot({source}{options})", self.line_event([(index, ys)], shown))
        elif choice == 1:
            same = [name for name, values in self.lists.items() if len(values) == len(ys)]
            x_name = self.rng.choice(same)
            self.emit(f"plot({x_name}, {source}{options})", self.line_event([(self.lists[x_name], ys)], shown))
        elif choice == 2:
            other = self.pick(self.lists)
            series = [(index, ys), ([float(n) for n in range(len(self.lists[other]))], self.lists[other])]
            self.emit(f"plot([{source}, {other}]{options})", self.line_event(series, shown))
        else:
            if all(value > 0 for value in ys):
                self.emit(f"plot({source}, log: 1{options})", self.line_event([(index, ys)], shown))
            else:
                expected = {"event": "expected", "kind": "log-non-positive"}
                self.emit(f"expect log-non-positive: plot({source}, log: 1)", expected)
                self.failures.append((len(self.statements) - 1, f"plot({source}, log: 1)", "log-non-positive"))

    def plot_extreme(self) -> None:
        log = self.rng.random() < 0.4
        written = self.rng.choice(LOG_EXTREMES if log else EXTREMES)
        values = self.extreme_values(written)
        options, shown = self.options()
        index = [float(number) for number in range(len(values))]
        self.emit(f"plot({written}{', log: 1' if log else ''}{options})", self.line_event([(index, values)], shown))

    @staticmethod
    def extreme_values(written: str) -> list[float]:
        if written.startswith("[5e-324 * u"):
            return [5e-324 * u for u in range(1, 6)]
        return [float(part) for part in written.strip("[]").split(", ")]

    def boundary(self) -> None:
        if not self.functions or self.rng.random() < 0.3:
            name, factor = self.fresh("f"), self.rng.choice(NUMBERS)
            self.emit(f"fn {name}(a, b) = a - b * {number_text(factor)}")
            self.functions[name] = factor
        function = self.pick(self.functions)
        rows = [
            [self.rng.choice(NUMBERS), self.rng.choice(NUMBERS), float(self.rng.randrange(2))]
            for _ in range(self.rng.randint(1, 4))
        ]
        grid = self.rng.randint(2, 6)
        options, shown = self.options()
        data = "[" + ", ".join("[" + ", ".join(map(number_text, row)) + "]" for row in rows) + "]"
        self.boundaries[len(self.expected)] = self.functions[function]
        self.emit(
            f"boundary({function}, {data}, grid: {grid}{options})",
            {
                "event": "plot", "kind": "boundary", **shown,
                "points": [{"x": x, "y": y, "label": label} for x, y, label in rows],
            },
        )

    # ---- failures ---------------------------------------------------------------------------------

    def wrong(self) -> tuple[str, str]:
        """A wrong statement of these forms and its kind (none draws: a draw undone by a failure
        is the generator's business, not this oracle's)."""
        text, number, listed = self.pick(self.texts), self.pick(self.numbers), self.pick(self.lists)
        return self.rng.choice([
            (f"let q = {text} + {number}", "not-a-text"), (f"let q = {number} + {text}", "not-a-text"),
            (f"let q = {listed} + {number}", "not-a-list"), (f"let q = {number} + {listed}", "not-a-list"),
            (f"let q = {listed} - 1", "not-a-node"), (f"let q = exp({text})", "not-a-node"),
            ("let q = sample([0.5, 0.6])", "bad-probabilities"), ("let q = sample([-1, 2])", "bad-probabilities"),
            ("plot([])", "empty-series"), (f"plot([0, {listed}[0]], log: 1)", "log-non-positive"),
            ('let q = read_text("no-such-file.txt")', "io-error"),
            (f"let q = {text}[{len(self.texts[text]) + 3}]", "index-out-of-range"),
            (f"plot([1, 2], title: {number} - 1)", "not-a-text"), (f"plot([1, 2], xlabel: {number} * 2)", "not-a-text"),
            (f"let q = lines({number})", "not-a-text"), (f"let q = join({listed})", "not-a-text"),
            (f"plot({listed} + [1], {listed})", "length-mismatch"), ("let q = nowhere + 1", "undefined-name"),
            (f"plot([{text}])", "not-a-node"), (f"plot({text})", "not-a-list"),
        ])

    def expect(self) -> None:
        statement, kind = self.wrong()
        self.failures.append((len(self.statements), statement, kind))
        self.emit(f"expect {kind}: {statement}", {"event": "expected", "kind": kind})

    def last_failure(self) -> None:
        statement, kind = self.wrong()
        self.failures.append((len(self.statements), statement, kind))
        self.emit(statement, {"event": "error", "kind": kind})
