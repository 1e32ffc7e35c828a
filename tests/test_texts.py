"""Texts as values (issue 32): string literals, `read_text`, `len`, indexing, `==`, `+`, `for c in
T`, `lines`, `chars`, `join`, `encode`, `decode`; `L + M` of lists; how texts show (print, holes,
value lines, `:vars`, JSON) and their errors and hints.

The functions of texts are checked against Python's own `str` operations on random texts
(hypothesis: any characters, CRLF line ends, texts read from files), the oracle; the rest
through the public API (`scalarlang.run`, `scalarlang.Session`) and, for every error kind,
through the real command."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commands import COMMAND, command_in_process
from sessions import error_of, session_after
from shared import property_examples
from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console


def literal(text: str) -> str:
    """``text`` as a `.sad` string literal (only what a literal can hold: no control characters
    but the newline and the tab)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped.replace("{", "{{").replace("}", "}}") + '"'


def numbers(value) -> list[float]:
    return [item.value for item in value]


# Texts a literal can hold: letters beyond ASCII, quotes, backslashes, braces, newlines, tabs.
LITERAL_TEXTS = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029\x85")
    | st.sampled_from("\n\t{}\"\\ab"),
    max_size=40,
)
# Texts a file can hold: any character (lone surrogates cannot be UTF-8), CRLF line ends.
FILE_TEXTS = st.lists(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(["\r\n", "\n", "\r"]),
    max_size=12,
).map("".join)


# ---- texts as values -------------------------------------------------------------------------


def test_a_string_literal_is_a_text_with_no_node():
    session = session_after('let s = "héllo"\nlet t = s + ", " + "world"\nlet n = len(t)\nlet c = t[-1]')
    assert session["s"] == "héllo" and isinstance(session["s"], str)
    assert session["t"] == "héllo, world" and session["n"].value == 12 and session["c"] == "d"
    assert session.run("s").text == '"héllo"\n'  # a value line quotes it
    assert session.run('print s, "{t}!", [s, 1]').text == 'héllo héllo, world! ["héllo", 1]\n'
    assert session.run('"a\\nb\\\\{{x}}"').text == '"a\\nb\\\\{{x}}"\n'  # written as its literal
    assert session.run('print "a\\nb"').text == "a\nb\n"


def test_equality_of_texts_and_in_if_and_assert():
    session = session_after('let s = "ab"\nlet same = s == "a" + "b"\nlet other = s != "ab"')
    assert session["same"].value == 1 and session["other"].value == 0
    assert session.run('if s == "ab" { print "yes" } else { print "no" }').text == "yes\n"
    assert session.run('assert s == "ab"\nassert s != "ba"').error is None
    error = session.run('assert s == "ba"').error
    assert error.kind == "assertion-failed" and error.message == 'assertion failed: `s` is "ab", `"ba"` is "ba", so `==` does not hold'
    assert error_of('let q = "a" < "b"').kind == "not-a-node"
    assert error_of('let q = "a" == 1').kind == "not-a-text"
    assert error_of('let q = 1 == "a"').kind == "not-a-node"
    assert error_of('assert "a" == "a" within 1').kind == "not-a-node"


def test_indexing_a_text_as_a_list():
    session = session_after('let s = "abc"')
    assert [session.run(f"s[{i}]").text for i in (0, 2, -1, -3)] == ['"a"\n', '"c"\n', '"c"\n', '"a"\n']
    error = session.run("s[3]").error
    assert error.kind == "index-out-of-range" and "a text of 3 characters" in error.message
    assert session.run("s[1.5]").error.kind == "not-an-index"
    assert session.run('s["a"]').error.kind == "not-a-node"
    assert error_of('let e = ""\ne[0]').message == "index 0 is out of range for `e`, an empty text"


def test_for_over_a_text_walks_its_characters():
    session = session_after('let word = ""\nfor c in "héllo" { let word = c + word }\nlet up = [c + c for c in "ab"]')
    assert session["word"] == "olléh" and list(session["up"]) == ["aa", "bb"]
    assert session["c"] == "o"  # the last iteration's, as in Python
    error = error_of('for c in "ab" { let q = exp(c) }')
    assert error.notes[-1] == 'in iteration 1 of 2 of the loop at 1:1, where c = "a"'
    assert error_of('for a, b in "ab" { }').kind == "table-width"


def test_lists_hold_texts_and_show_them_quoted():
    session = session_after('let L = ["a", ["b", 1]] + flatten(["c"], [2])')
    assert session.run("L").text == '["a", ["b", 1], "c", 2]\n'
    assert session.run('print "{L}"').text == '["a", ["b", 1], "c", 2]\n'
    assert session.run('print "{chars("ba"):.2f}"').text == '["a", "b"]\n'


# ---- L + M ------------------------------------------------------------------------------------


def test_plus_of_two_lists_is_a_new_list():
    session = session_after("let losses = []\nrepeat 3 { let losses = losses + [len(losses)] }\nlet both = losses + [[1], 2]")
    assert numbers(session["losses"]) == [0, 1, 2]
    assert session.run("both").text == "[0, 1, 2, [1], 2]\n"
    error = error_of("let L = [1]\nlet q = L + 2")
    assert error.kind == "not-a-list" and error.message == "`2` is a node, not a list: `+` of a list takes a list"
    assert "help: `L + [2]` is the list with one more item" in error.notes
    assert error_of("let q = 2 + [1]").kind == "not-a-list"
    assert error_of('let q = [1] + "a"').kind == "not-a-list"


def test_plus_of_a_node_and_a_list_or_a_text_is_one_kind_in_either_order():
    """Issue 40, item 8: `[2] + 1` and `1 + [2]` are both `not-a-list` (docs/language.md: a
    list and anything else), the node being the culprit; `1 + "a"` is `not-a-text` as
    `"a" + 1` is."""
    for program in ("[2] + 1", "1 + [2]", "let z = 1\nlet q = z + [2]"):
        assert error_of(program).kind == "not-a-list", program
    error = error_of("let q = 1 + [2]")
    assert error.message == "`1` is a node, not a list: `+` of a list takes a list"
    assert "help: `[1] + [2]` is the list with one more item first" in error.notes
    for program in ('"a" + 1', '1 + "a"'):
        assert error_of(program).kind == "not-a-text", program
    assert error_of('let q = 1 + "a"').message == "`1` is a node, not a text: `+` of a text takes a text"
    assert error_of('let q = "a" + [1]').kind == "not-a-text" and error_of("let q = [1] - 1").kind == "not-a-node"


def test_a_list_of_lists_plus_keeps_its_nodes():
    session = session_after("let w = var 2\nlet L = [w] + [w * 3]\nlet loss = sum(L)\nbackward(loss)")
    assert session.run("print grad(w)").text == "4\n"


# ---- the functions of texts, against Python's str ---------------------------------------------


def in_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """What `scalarlang ARGS` prints (text), from the command's main in this process: paths
    are read relative to the program's folder the same from it."""
    done = command_in_process(*args, cwd=cwd)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def python_lines(text: str) -> list[str]:
    """The oracle of `lines`: split at `\\n`, no empty last line for a final newline."""
    pieces = text.split("\n")
    return pieces[:-1] if pieces[-1] == "" else pieces


@settings(
    max_examples=property_examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=FILE_TEXTS)
def test_read_text_and_the_functions_of_texts_agree_with_python(tmp_path, text):
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    session = session_after(
        f"let t = read_text({literal(str(path))})\nlet v = chars(t)\nlet ids = encode(t, v)\n"
        "let back = decode(ids, v)\nlet L = lines(t)\nlet j = join(L, \"|\")\nlet j0 = join(chars(t))\n"
        "let n = len(t)"
    )
    read = text.replace("\r\n", "\n")
    vocabulary = sorted(set(read))
    assert session["t"] == read and session["n"].value == len(read)
    assert list(session["v"]) == vocabulary
    assert numbers(session["ids"]) == [vocabulary.index(char) for char in read]
    assert session["back"] == read
    assert list(session["L"]) == python_lines(read)
    assert session["j"] == "|".join(python_lines(read)) and session["j0"] == "".join(vocabulary)


@settings(max_examples=property_examples(60), deadline=None)
@given(text=LITERAL_TEXTS, other=LITERAL_TEXTS)
def test_literals_and_their_operations_agree_with_python(text, other):
    session = session_after(
        f"let a = {literal(text)}\nlet b = {literal(other)}\nlet ab = a + b\nlet same = a == b\n"
        f"let cs = [c for c in ab]\nlet vocab = {literal(text + other)}\nlet ids = encode(b, vocab)\n"
        "let shown = \"{a}|{b}\""
    )
    assert session["a"] == text and session["ab"] == text + other and session["same"].value == (text == other)
    assert list(session["cs"]) == list(text + other)
    assert numbers(session["ids"]) == [(text + other).index(char) for char in other]
    assert session["shown"] == f"{text}|{other}"
    # A value line shows the text as a literal that reads back (a tab, other control characters
    # and code points Python deems unprintable are shown as Python escapes: `\t`, `\x00`).
    if all(char.isprintable() or char == "\n" for char in text):
        shown = session.run("a").text.rstrip("\n")
        assert session_after(f"let back = {shown}", session)["back"] == text


def test_lines_and_chars_of_plain_cases():
    session = session_after('let a = lines("a\\n\\nb\\n")\nlet b = lines("")\nlet c = lines("x")\nlet d = chars("banana")')
    assert list(session["a"]) == ["a", "", "b"] and list(session["b"]) == [] and list(session["c"]) == ["x"]
    assert list(session["d"]) == ["a", "b", "n"]


def test_encode_and_decode_with_a_text_as_the_vocabulary():
    session = session_after('let ids = encode("cab", "abc")\nlet back = decode([2, -1, 0], "abc")\nlet first = encode("aa", "aba")')
    assert numbers(session["ids"]) == [2, 0, 1] and session["back"] == "cca" and numbers(session["first"]) == [0, 0]
    assert session.run("ids").text == "[2, 0, 1]\n"  # counts: whole numbers whatever --digits says


def test_not_in_vocabulary_names_the_character_and_its_place():
    error = error_of('let v = chars("ab\\n")\nlet ids = encode("ab\\nbz", v)')
    assert error.kind == "not-in-vocabulary"
    assert error.message == 'the character "z" (U+007A) at index 4, line 2 column 2 of the text is not in `v`'
    assert error.fields["character"] == "z" and error.fields["position"] == 4


def test_read_text_files(tmp_path):
    (tmp_path / "bom.txt").write_bytes("\ufeffa\r\nb\rc".encode("utf-8"))
    (tmp_path / "latin.txt").write_bytes(b"ok\ncaf\xe9\n")
    program = tmp_path / "p.sad"
    program.write_text('let t = read_text("bom.txt")\nprint len(t), lines(t)\nt\n', encoding="utf-8")
    result = in_process(str(program), cwd=Path("/"))
    # relative to the program's folder; the mark dropped, CRLF read as LF, a lone CR kept
    assert result.stdout == '5 ["a", "b\\rc"]\n"a\\nb\\rc"\n', result.stderr
    error = error_of(f"let t = read_text({literal(str(tmp_path / 'latin.txt'))})")
    assert error.kind == "bad-text" and "byte 6 (on line 2) is 0xe9" in error.message and error.fields["byte"] == 6
    assert error_of(f"let t = read_text({literal(str(tmp_path))})").kind == "io-error"
    assert error_of('let t = read_text("no/such/file.txt")').kind == "io-error"
    error = error_of("let t = read_text(3)")
    assert error.kind == "wrong-arguments" and 'read_text("names.txt")' in error.message


@pytest.mark.parametrize("function", ["read_text", "read_table"])
def test_an_empty_file_name_says_so_not_that_it_is_a_directory(function, tmp_path):
    # `read_text("")` said "it is a directory": the empty path is the program's folder (issue 40)
    program = tmp_path / "p.sad"
    program.write_text(f'let name = ""\nlet t = {function}(name)\n', encoding="utf-8")
    result = in_process("--json", str(program))
    error = json.loads(result.stdout.splitlines()[-1])
    assert error["kind"] == "io-error" and error["message"] == "the file name is empty: there is no file to read"
    assert result.returncode != 0


def test_a_file_name_may_be_a_text_held_in_a_name_or_a_list(tmp_path):
    (tmp_path / "a.txt").write_text("first\n", encoding="utf-8")
    (tmp_path / "d.csv").write_text("x,y\n1,2\n3,4\n", encoding="utf-8")
    program = tmp_path / "p.sad"
    program.write_text(
        'let files = ["a.txt", "d.csv"]\nlet path = files[0]\nprint read_text(path), len(read_table(files[1]))\n'
        'print read_text("{path}")\n',
        encoding="utf-8",
    )
    result = in_process(str(program), cwd=Path("/"))
    assert (result.returncode, result.stdout, result.stderr) == (0, "first\n 2\nfirst\n\n", "")
    # A name that holds no text is found when it runs; a number in its place when it is read.
    error = error_of("let path = 3\nlet t = read_text(path)")
    assert (error.kind, error.message) == ("not-a-text", "`path` is a node, not a text: `read_text` takes a text")
    assert error_of("let t = read_table(-1)").kind == "wrong-arguments"


def test_a_text_too_long_is_too_long(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"ab" * 5_000_001)
    error = error_of(f"let t = read_text({literal(str(big))})")
    assert error.kind == "too-long" and "10,000,002 characters" in error.message
    error = error_of('let s = "ab"\nrepeat 30 { let s = s + s }')
    assert error.kind == "too-long" and "the most is 10,000,000" in error.message


# ---- how texts show ---------------------------------------------------------------------------


def test_the_repl_echoes_and_lists_texts():
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    for line in ('let s = "hi\\nthere"', 'let v = chars("ba")', ":vars", ":graph s"):
        core.handle(line)
    said = stream.getvalue()
    assert 's = "hi\\nthere"' in said and "v = 2 texts" in said
    assert 's: "hi\\nthere" (a text of 8 characters)' in said and "v: 2 texts" in said
    assert "`s` is a text of 8 characters, a constant with no graph" in said


def test_a_long_text_is_summarised_where_a_line_is_short():
    session = session_after('let s = "{"x" + "y"}"\nrepeat 5 { let s = s + s }')
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    core.handle('let long = "' + "ab" * 40 + '"')
    assert '(a text of 80 characters)' in stream.getvalue()
    assert len(session["s"]) == 64


def test_texts_in_json_through_the_command():
    result = subprocess.run(
        [str(COMMAND), "--json", "-c", '"é\\n"\nchars("ba")\nprint "x", "y"'], capture_output=True, text=True, timeout=60
    )
    events = [json.loads(line) for line in result.stdout.splitlines()][1:]
    assert [(event["event"], event.get("value", event.get("values", event.get("text")))) for event in events] == [
        ("text", "é\n"), ("list", ["a", "b"]), ("print", "x y"),
    ]


# ---- errors and hints ---------------------------------------------------------------------------


def test_a_text_where_a_number_belongs():
    error = error_of('let s = "hello"\nlet q = exp(s)')
    assert error.kind == "not-a-node" and error.message == "`s` is a text of 5 characters, not a node"
    assert error.fields == {"found": "text", "length": 5}
    assert error_of('let q = "a" * 2').kind == "not-a-node"
    assert error_of('backward("a")').kind == "not-a-node"
    assert error_of('let q = var "a"').kind == "not-a-node"
    assert error_of('let s = "ab"\ndescend s by 0.1').kind == "not-a-variable"
    assert error_of('let q = "{"a":.3f}"').kind == "not-a-node"
    assert error_of('let q = dot("ab", [1, 2])').kind == "not-a-list"
    assert error_of('let q = sum(["a"])').kind == "not-a-node"
    error = error_of('let s = "a" + 1')
    assert error.kind == "not-a-text" and error.message == "`1` is a node, not a text: `+` of a text takes a text"
    assert any('"…{1}"' in note for note in error.notes)
    assert error_of("let q = lines(1)").kind == "not-a-text"
    assert error_of('let q = join(["a", 1])').message == '`["a", 1][1]` is a node, not a text: `join` of each item takes a text'
    assert error_of('let q = join(["a"], 1)').kind == "not-a-text"
    assert error_of('let q = encode(1, "a")').kind == "not-a-text"
    assert error_of('let q = encode("a", ["ab"])').kind == "wrong-arguments"
    assert error_of('let q = encode("a", [1])').kind == "not-a-text"
    assert error_of('let q = encode("a", 1)').kind == "not-a-list"
    assert error_of('let q = decode([3], "abc")').kind == "index-out-of-range"
    assert error_of('let q = decode([0.5], "abc")').kind == "not-an-index"
    assert error_of('let q = decode("a", "abc")').kind == "not-a-list"
    assert error_of('let s = "a"\ns(1)').message == "`s` is a text, not a function"
    assert error_of('fn f(x) = x + 1\nlet q = f("a")').kind == "not-a-text"


@pytest.mark.parametrize(
    "program, note",
    [
        ('let s = "a b"\nlet w = s.split()', "`lines(s)`"),
        ('let s = "a"\nlet w = s.lower()', "texts have no methods"),
        ('let w = "x".strip()', "texts have no methods"),
        ('let w = ", ".join(L)', 'join(L, ", ")'),
        ("let L = [1]\nL.append(2)", "`L + [item]`"),
        ('let s = "abc"\nprint s[0:2]', "no slices"),
        ('print ord("a")', 'encode("a", vocab)[0]'),
        ("let i = 1\nprint chr(i)", "`vocab[i]`"),
        ('print list("ab")', 'chars("ab")'),
        ("let x = 1\nprint str(x)", '`"{x}"`'),
        ("print int(2.5)", "`floor(2.5)`"),
        ('"loss" print', '`print "..."` prints it'),
    ],
)
def test_python_habits_with_texts_get_the_sad_form(program, note):
    error = error_of(program)
    assert any(note in hint for hint in error.notes), error.notes


def test_every_text_error_kind_through_the_command(tmp_path):
    """One program per kind, each run by the real command in its own session (one process)."""
    (tmp_path / "bad.txt").write_bytes(b"\xff")
    programs = {
        "not-a-text": 'let q = "a" + 1',
        "bad-text": 'let q = read_text("bad.txt")',
        "not-in-vocabulary": 'let q = encode("abc", "ab")',
        "io-error": 'let q = read_text("missing.txt")',
        "too-long": "while 1 { }",
        "not-a-node": "let q = exp(\"a\")",
        "not-a-list": "let q = [1] + 1",
        "non-finite-result": "let q = 1 // 0",
    }
    names = []
    for kind, text in programs.items():
        (tmp_path / f"{kind}.sad").write_text(text + "\nprint \"after\"\n", encoding="utf-8")
        names.append(f"{kind}.sad")
    result = subprocess.run([str(COMMAND), "--json", *names], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    errors = {event["file"]: event["kind"] for event in map(json.loads, result.stdout.splitlines()) if event["event"] == "error"}
    assert errors == {f"{kind}.sad": kind for kind in programs}
    assert "after" not in result.stdout and result.returncode == 1
