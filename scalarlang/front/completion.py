"""Shell completion scripts for ``scalarlang --print-completion SHELL``, made by shtab.

shtab writes a static script from the argument parser once, when the user installs it; nothing
runs at start-up (argcomplete would import itself and re-run the parser on every start).
"""

from __future__ import annotations

import argparse

# What shtab completes for an argument that names a file, per shell (as shtab.FILE).
_FILE = {
    "bash": "_shtab_compgen_files",
    "zsh": "_files",
    "tcsh": "f",
    "fish": "(__fish_complete_path (commandline -ct))",
}
_PROGRAM_FILES = {**_FILE, "zsh": "_files -g '*.sad'"}


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser``'s command for ``shell`` (bash, zsh or fish)."""
    import shtab

    for action in parser._actions:  # noqa: SLF001 - argparse has no public list of actions
        if action.dest == "files":
            action.complete = _PROGRAM_FILES  # type: ignore[attr-defined]
        elif action.dest == "history_file":
            action.complete = _FILE  # type: ignore[attr-defined]
    script = shtab.complete(parser, shell=shell)
    return script if script.endswith("\n") else script + "\n"
