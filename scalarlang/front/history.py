"""The REPL's history file: where it is, and a history that never blocks or breaks the session.

Only a regular file (or a path where none exists yet) is used: a device (``/dev/zero`` reads
forever, ``/dev/full`` fails every write), a FIFO (opening it waits for a writer) or a
directory gives one warning and a history kept in memory for the session.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable, Iterable, Mapping

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from ..language.paths import user_dir

HISTORY_ENV = "SCALARLANG_HISTORY"


def history_path(option: str | None = None, environ: Mapping[str, str] | None = None) -> Path | None:
    """Where the history is kept: ``--history-file``, else ``$SCALARLANG_HISTORY``, else
    ``history`` in the user's state directory (``paths.user_dir``). None when there is no home
    directory: the working directory is never used by default."""
    environ = os.environ if environ is None else environ
    if option:
        return Path(option).expanduser().absolute()
    chosen = environ.get(HISTORY_ENV)
    if chosen:
        return Path(chosen).expanduser().absolute()
    folder = user_dir("state")
    return None if folder is None else folder / "history"


class NotARegularFile(OSError):
    """The history path names something that is not a regular file."""


def check_regular(path: Path) -> None:
    """Raise ``NotARegularFile`` when ``path`` exists and is not a regular file (after links)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there yet (or no folder: mkdir says)
        return
    if not stat.S_ISREG(mode):
        raise NotARegularFile(f"{path} is {_file_type(mode)}, not a regular file")


def _file_type(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "special"


class _SafeFileHistory(FileHistory):
    """A FileHistory that, when the file cannot be read or written (or stops being a regular
    file), goes on in memory."""

    filename: str  # FileHistory's is str or bytes; ours is always given as str(path)

    def __init__(self, path: Path, warn: Callable[[str], None]):
        super().__init__(str(path))
        self.path = path
        self.warn = warn
        self.broken = False

    def load_history_strings(self) -> Iterable[str]:
        try:
            check_regular(self.path)
            return list(super().load_history_strings())
        except OSError as error:
            self._give_up(f"cannot read {self.filename}: {_message(error)}")
            return []

    def store_string(self, string: str) -> None:
        if self.broken:
            return
        try:
            check_regular(self.path)
            super().store_string(string)
        except OSError as error:
            self._give_up(f"cannot write {self.filename}: {_message(error)}")

    def _give_up(self, reason: str) -> None:
        if not self.broken:
            self.broken = True
            self.warn(f"history is kept for this session only: {reason}")


def open_history(path: Path | None, warn: Callable[[str], None]) -> History:
    """A file history at ``path`` (its directory made), or an in-memory one and one warning."""
    if path is None:
        warn(f"history is kept for this session only: no home directory (set {HISTORY_ENV})")
        return InMemoryHistory()
    try:
        check_regular(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        _touch(path)
    except NotARegularFile as error:
        warn(f"history is kept for this session only: {error}")
        return InMemoryHistory()
    except OSError as error:
        warn(f"history is kept for this session only: cannot write {path}: {_reason(error, path)}")
        return InMemoryHistory()
    return _SafeFileHistory(path, warn)


def _touch(path: Path) -> None:
    """Create ``path`` (private) or check it can be appended to, without ever blocking: a FIFO
    that appeared since the check fails at once (O_NONBLOCK) instead of waiting for a reader."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(f"{path} is not a regular file")
    finally:
        os.close(fd)


def _message(error: OSError) -> str:
    return str(error) if isinstance(error, NotARegularFile) else (error.strerror or str(error))


def _reason(error: OSError, path: Path) -> str:
    if isinstance(error, FileExistsError) or (error.filename and Path(error.filename) != path):
        culprit = Path(error.filename) if error.filename else path.parent
        if isinstance(error, FileExistsError):
            return f"{culprit} is not a directory"
        return f"{culprit}: {error.strerror or error}"
    return error.strerror or str(error)
