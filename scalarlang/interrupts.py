"""Ctrl-C for the command, from its first instruction to its exit: one line, status 130.

The console script imports ``scalarlang`` (this package's ``__init__``) before ``cli``; the
package installs ``startup_handler`` there when it is being run as the command, so an interrupt
while modules import ends the process at once, cleanly (nothing has been printed or changed
yet). ``cli.main`` then switches to ``raise_once`` for the program itself, so what was printed
is flushed before the status; and every later SIGINT is ignored: a second Ctrl-C while the
first is handled, or one at exit, changes nothing.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_INTERRUPTED = 128 + 2  # 128 + SIGINT, as shells report a process killed by it
MESSAGE = "scalarlang: interrupted\n"


def started_as_command() -> bool:
    """Whether this process is the ``scalarlang`` command (the console script or
    ``python -m scalarlang``), rather than a program that imports the library."""
    main = sys.modules.get("__main__")
    name = os.path.basename(getattr(main, "__file__", None) or "").lower()
    for suffix in (".exe", "-script.py", ".py"):
        name = name.removesuffix(suffix)
    if name == "scalarlang":
        return True
    arguments = list(getattr(sys, "orig_argv", ()))
    return "-mscalarlang" in arguments or any(
        first == "-m" and second == "scalarlang" for first, second in zip(arguments, arguments[1:])
    )


def startup_handler(signum, frame) -> None:
    """SIGINT before the program runs (or after it ended): nothing to flush, nothing to undo."""
    exit_interrupted(exit_now=True)


def raise_once(signum, frame) -> None:
    """SIGINT while the program runs: a KeyboardInterrupt, and later ones ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def exit_interrupted(*, exit_now: bool) -> None:
    """Ignore further SIGINTs and say so; ``exit_now`` ends the process with status 130."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    if exit_now:
        try:
            os.write(2, MESSAGE.encode())
        except OSError:
            pass
        os._exit(EXIT_INTERRUPTED)
    try:
        sys.stderr.write(MESSAGE)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def install_startup_handler():
    """Install ``startup_handler``; the handler it replaced (None outside the main thread)."""
    try:
        return signal.signal(signal.SIGINT, startup_handler)
    except ValueError:
        return None
