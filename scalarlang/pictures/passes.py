"""``--draw DIR``: one SVG of every backward pass, numbered in run order.

The interpreter calls a `PassDrawer` with each pass before committing it, so a picture that
cannot be written fails its `backward` statement and changes no stored gradient.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .errors import IO_ERROR, DrawingError
from .files import pass_file_name, write_picture
from .picture import pass_picture

if TYPE_CHECKING:
    from ..engine.records import BackwardPass


class PassDrawer:
    """Writes ``DIR/pass-001-loss.svg``, ``DIR/pass-002-...``: one file per pass it is given."""

    def __init__(self, directory: str | os.PathLike, *, engine: str = "auto") -> None:
        self.directory = Path(directory)
        self.engine = engine
        self.count = 0  # passes drawn so far
        self.written: list[Path] = []

    def __call__(self, backward_pass: BackwardPass, output_label: str, label_of_index: Callable[[int], str]) -> Path:
        picture = pass_picture(backward_pass, output_label, label_of_index)
        self._make_directory()
        path = self.directory / pass_file_name(self.count + 1, output_label)
        write_picture(picture, path, engine=self.engine)
        self.count += 1
        self.written.append(path)
        return path

    def _make_directory(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = error.strerror or str(error)
            raise DrawingError(
                IO_ERROR,
                f"cannot make the directory {os.fspath(self.directory)} for --draw: {reason}",
                path=os.fspath(self.directory),
                reason=reason,
            ) from None
