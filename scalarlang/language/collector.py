"""The cyclic collector paused around work that makes long-lived objects and no garbage: the
modules a script loads, a parse (lark and its tables, the tree), a statement. Reference counting
frees what such work drops; the collector would only rescan what it keeps. With ``freeze``, for
a process that keeps it all until it exits, what the collector tracks is then moved out of its
later scans (`gc.freeze`) before it runs again: its first run would scan all of that."""

from __future__ import annotations

import gc


class paused_collector:  # noqa: N801 - used as `with paused_collector(...)`, like a function
    """``with paused_collector(freeze):`` the collector off inside, as it was after (a paused
    collector stays paused, and nothing is frozen then)."""

    __slots__ = ("freeze", "collecting")

    def __init__(self, freeze: bool = False):
        self.freeze = freeze
        self.collecting = False

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exception: object) -> None:
        if self.collecting:
            if self.freeze:
                gc.freeze()
            gc.enable()
