"""The pytest plugin (entry point ``scalarlang``): each ``FILE.sad`` with a golden
``FILE.out`` beside it is a test item, compared as ``scalarlang test`` compares it (the same
code: ``goldens`` and ``golden_runs``).

Off unless asked: ``pytest --sad``, or ``sad_goldens = true`` in the ini file. Every pytest
run where scalarlang is installed loads this module, so it imports nothing of scalarlang's
until a program is collected, and when off it only adds its options.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_UPDATED = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scalarlang", "scalarlang golden files")
    group.addoption(
        "--sad", action="store_true", default=False, dest="sad_goldens",
        help="collect each FILE.sad with a golden FILE.out beside it as a test (ini: sad_goldens = true)",
    )
    group.addoption(
        "--sad-update", action="store_true", default=False, dest="sad_update",
        help="write the goldens of the collected .sad programs instead of comparing (implies --sad)",
    )
    parser.addini("sad_goldens", type="bool", default=False, help="collect .sad programs with golden files as tests")
    parser.addini("sad_timeout", default="60", help="seconds a .sad program may run before it fails (default 60)")
    parser.addini("sad_width", default="100", help="the text width of the .sad goldens (default 100)")


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("sad_goldens") or config.getoption("sad_update") or config.getini("sad_goldens"))


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if file_path.suffix != ".sad" or not _enabled(parent.config):
        return None
    # Like `scalarlang test`: in a folder only programs with a golden; one named on the
    # command line always (without a golden it fails, or --sad-update writes one).
    if file_path.with_suffix(".out").is_file() or parent.session.isinitpath(file_path):
        return SadFile.from_parent(parent, path=file_path)
    return None


class SadFile(pytest.File):
    def collect(self):
        yield SadItem.from_parent(self, name=self.path.name)


class GoldenMismatch(Exception):
    """A program's run differs from its golden (``lines``: what the failure shows)."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


class SadItem(pytest.Item):
    """One program against its golden."""

    def runtest(self) -> None:
        from .golden_runs import run_program
        from .goldens import Program, check, failure_lines

        config = self.config
        program = Program(self.path, self._name())
        timeout = _number(config, "sad_timeout", float, 0, 86_400)
        width = _number(config, "sad_width", int, 20, 10_000)
        run = run_program(self.path, width=width, timeout=timeout)
        result, verdict = check(program, run, timeout, config.getoption("sad_update"))
        if result == "updated":
            config.stash.setdefault(_UPDATED, []).append(program.golden_name)
        if result == "failed":
            raise GoldenMismatch([f"{program.name}: {verdict.reason}", *failure_lines(program, verdict, "pytest --sad-update")])

    def _name(self) -> str:
        try:
            return self.path.relative_to(self.config.rootpath).as_posix()
        except ValueError:
            return self.path.as_posix()

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, GoldenMismatch):
            return "\n".join(excinfo.value.lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, self._name()


def _number(config: pytest.Config, name: str, kind, low, high):
    """The ini number ``name``, in (``low``, ``high``] for a float, [``low``, ``high``] for an int."""
    text = config.getini(name)
    try:
        value = kind(text)
    except ValueError:
        raise pytest.UsageError(f"{name} = {text!r} is not a number") from None
    if not (low < value if kind is float else low <= value) or value > high:
        raise pytest.UsageError(f"{name} = {text!r} is out of range ({low} to {high})")
    return value


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    updated = config.stash.get(_UPDATED, [])
    if updated:
        terminalreporter.section("scalarlang goldens updated")
        for name in updated:
            terminalreporter.write_line(f"updated {name}")
