"""The names files examples/make_names.py writes (issue 43 item 3): names_census.txt, every
first name of the 1990 Census lists ranked by frequency, large enough for makemore's MLP at
its real size; names.txt, the scalar examples' 600, its first names of 3 to 8 letters."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def names(file: str) -> list[str]:
    text = (EXAMPLES / file).read_text(encoding="utf-8")
    assert text.endswith("\n") and "\r" not in text
    return text.splitlines()


def test_the_census_file_holds_thousands_of_distinct_lowercase_names():
    every = names("names_census.txt")
    assert len(every) == 5163 == len(set(every))
    assert all(name.isascii() and name.isalpha() and name.islower() for name in every)
    assert every[:3] == ["james", "john", "robert"]


def test_names_txt_is_the_census_files_first_names_of_three_to_eight_letters():
    every = names("names_census.txt")
    assert names("names.txt") == [name for name in every if 3 <= len(name) <= 8][:600]
