"""Ctrl-C for the command, from its first instruction to its exit: one line, status 130.

The console script imports ``scalarlang`` (the package's ``__init__``) before ``cli``; when
the process is the command, ``__init__`` installs a handler that ends the process at once
(nothing has been printed or changed yet). ``cli.main`` then installs ``raise_once`` for the
program itself, so what was printed is flushed before the status; and every later SIGINT is
ignored: a second Ctrl-C while the first is handled, or one at exit, changes nothing.
"""

# Only modules already loaded when Python starts, and `_signal` (built in; typeshed has no
# stub for it, only for `signal`, which is not loaded yet).
import _signal as signal  # type: ignore[import-not-found]
import os
import sys

EXIT_INTERRUPTED = 128 + 2  # 128 + SIGINT, as shells report a process killed by it
MESSAGE = "scalarlang: interrupted\n"

# Set by `raise_once`: Python runs a signal handler between any two bytecodes, even inside a
# callback whose exceptions it only reports ("Exception ignored in ..."); the command then
# still knows it was interrupted.
interrupted = False


def startup_handler(signum, frame) -> None:
    """SIGINT before the program runs (or after it ended): nothing to flush, nothing to undo."""
    exit_interrupted(exit_now=True)


startup_handler.scalarlang_startup = True  # type: ignore[attr-defined]


def is_startup_handler(handler) -> bool:
    """Whether ``handler`` is one of the command's start-up handlers (this one, __init__'s)."""
    return bool(getattr(handler, "scalarlang_startup", False))


def raise_once(signum, frame) -> None:
    """SIGINT while the program runs: a KeyboardInterrupt, and later ones ignored."""
    global interrupted
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    interrupted = True
    raise KeyboardInterrupt


def quiet_unraisable(unraisable) -> None:
    """``sys.unraisablehook`` while the program runs: a KeyboardInterrupt that Python could
    not raise (it came in a callback) is not printed; the command sees ``interrupted``."""
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
        return
    sys.__unraisablehook__(unraisable)


def exit_interrupted(*, exit_now: bool) -> None:
    """Ignore further SIGINTs and say so; ``exit_now`` ends the process with status 130."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    if exit_now:
        try:
            os.write(2, MESSAGE.encode())
        finally:
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
