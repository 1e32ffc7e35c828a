"""Where scalarlang keeps files of its own: the REPL's history (the user's state directory)
and lark's parse tables (the user's cache directory).

platformdirs gives each platform's convention: ``$XDG_STATE_HOME``/``$XDG_CACHE_HOME`` or
``~/.local/state``/``~/.cache`` on Linux, ``~/Library/...`` on macOS, ``%LOCALAPPDATA%`` on
Windows. The working directory is never used: with no absolute home, there is no directory.
"""

from __future__ import annotations

from pathlib import Path

APP_NAME = "scalarlang"
KINDS = ("state", "cache")


def user_dir(kind: str) -> Path | None:
    """scalarlang's own directory of ``kind`` (``"state"`` or ``"cache"``) for this user, not
    created; None when the platform gives no absolute one (no home directory)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    import platformdirs

    find = platformdirs.user_state_dir if kind == "state" else platformdirs.user_cache_dir
    try:
        folder = Path(find(APP_NAME, appauthor=False))
    except (OSError, RuntimeError, KeyError):  # no home directory to be found
        return None
    return folder if folder.is_absolute() else None
