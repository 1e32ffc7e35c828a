"""Writes examples/names.txt: the most common first names of the 1990 US Census, one a line.

The Census Bureau's name frequency files (dist.female.first, dist.male.first) are public domain,
as works of the US government; the `names` package on PyPI (MIT licence for its code) ships
them as data. This script takes them from that package's source distribution:

    python examples/make_names.py            (pip downloads names==0.3.0 into a temporary folder)
    python examples/make_names.py FOLDER     (the unpacked data files are in FOLDER)

Names are lowercased, kept when they are 3 to 8 letters long, ranked by their frequency in the
Census sample (female and male lists together) and the first COUNT are written in that order.
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


def chosen(found: dict[str, float], count: int = COUNT) -> list[str]:
    words = [name for name in found if name.isalpha() and 3 <= len(name) <= 8]
    words.sort(key=lambda name: (-found[name], name))
    return words[:count]


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
        words = chosen(frequencies(folder))
    (HERE / "names.txt").write_text("".join(word + "\n" for word in words), encoding="utf-8")
    print(f"wrote {len(words)} names to {HERE / 'names.txt'}")


if __name__ == "__main__":
    main(sys.argv[1:])
