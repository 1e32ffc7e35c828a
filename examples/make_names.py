"""Writes examples/names.txt and examples/names_census.txt: first names of the 1990 US Census,
one a line.

The Census Bureau's name frequency files (dist.female.first, dist.male.first) are public domain,
as works of the US government; the `names` package on PyPI (MIT licence for its code) ships
them as data. This script takes them from that package's source distribution:

    python examples/make_names.py            (pip downloads names==0.3.0 into a temporary folder)
    python examples/make_names.py FOLDER     (the unpacked data files are in FOLDER)

Names are lowercased and ranked by their frequency in the Census sample (female and male lists
together; a name in both, the two added; a tie by the name). names.txt, for the scalar examples
(names.sad, names_mlp.sad), keeps the first COUNT that are 3 to 8 letters long. names_census.txt,
for makemore's MLP at its real size, keeps every one: the 5,163 distinct first names of those
lists (2 to 11 letters), all the package holds. (makemore's own names.txt has 32,033 names, from
the Social Security Administration's lists, which no package here ships: the Census lists are the
larger source we have, and no name is made up.)
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

COUNT = 600
HERE = Path(__file__).resolve().parent
FILES = ("dist.female.first", "dist.male.first")


def frequencies(folder: Path) -> dict[str, float]:
    """name -> its frequency in percent (a name in both lists: the two added)."""
    found: dict[str, float] = {}
    for file in FILES:
        for line in (folder / file).read_text(encoding="ascii").splitlines():
            name, percent, *_ = line.split()
            found[name.lower()] = found.get(name.lower(), 0.0) + float(percent)
    return found


def ranked(found: dict[str, float]) -> list[str]:
    """Every name, the most frequent first (a tie by the name)."""
    words = [name for name in found if name.isalpha()]
    words.sort(key=lambda name: (-found[name], name))
    return words


def chosen(found: dict[str, float], count: int = COUNT) -> list[str]:
    """The first ``count`` names of 3 to 8 letters, by frequency."""
    return [name for name in ranked(found) if 3 <= len(name) <= 8][:count]


def downloaded(folder: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "names==0.3.0", "-d", str(folder)],
        check=True,
    )
    (archive,) = folder.glob("names-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return next(folder.glob("names-*/names"))


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(argv[0]) if argv else downloaded(Path(temporary))
        found = frequencies(folder)
    for file, words in (("names.txt", chosen(found)), ("names_census.txt", ranked(found))):
        (HERE / file).write_text("".join(word + "\n" for word in words), encoding="utf-8")
        print(f"wrote {len(words)} names to {HERE / file}")


if __name__ == "__main__":
    main(sys.argv[1:])
