"""Where the REPL keeps its history and the grammar cache (platformdirs, one helper), and a
history file that is not a regular file (issue 11 item 4, issue 12)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from prompt_toolkit.history import FileHistory, InMemoryHistory

from scalarlang.language import paths
from scalarlang.front.history import history_path, open_history

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="XDG directories and FIFOs are POSIX")


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "home"
    folder.mkdir()
    for name in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "SCALARLANG_HISTORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(folder))
    return folder


@posix_only
def test_history_location_rules(home, tmp_path, monkeypatch):
    assert history_path() == home / ".local/state/scalarlang/history"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert history_path() == tmp_path / "state/scalarlang/history"
    monkeypatch.setenv("XDG_STATE_HOME", "relative")  # the XDG spec: a relative value is ignored
    assert history_path() in (home / ".local/state/scalarlang/history", None)
    chosen = str(tmp_path / "mine")
    monkeypatch.setenv("SCALARLANG_HISTORY", chosen)
    assert history_path() == Path(chosen)
    option = str(tmp_path / "option")
    assert history_path(option) == Path(option)  # --history-file wins
    assert history_path(None, {"SCALARLANG_HISTORY": chosen}) == Path(chosen)
    monkeypatch.setenv("SCALARLANG_HISTORY", "")  # empty: not set
    monkeypatch.delenv("XDG_STATE_HOME")
    assert history_path() == home / ".local/state/scalarlang/history"


def test_a_relative_history_override_is_made_absolute(home, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCALARLANG_HISTORY", "hist")
    assert history_path() == tmp_path / "hist"
    assert history_path("~/h") == home / "h"


@posix_only
def test_a_relative_home_is_never_the_working_directory(home, monkeypatch):
    monkeypatch.setenv("HOME", "relative")
    for kind in paths.KINDS:
        found = paths.user_dir(kind)
        assert found is None or found.is_absolute()
    path = history_path()
    assert path is None or path.is_absolute()


@posix_only
def test_one_helper_for_history_and_cache(home, tmp_path, monkeypatch):
    assert paths.user_dir("cache") == home / ".cache/scalarlang"
    assert paths.user_dir("state") == home / ".local/state/scalarlang"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert paths.user_dir("cache") == tmp_path / "cache/scalarlang"
    with pytest.raises(ValueError):
        paths.user_dir("config")


def test_a_new_history_file_is_private(tmp_path):
    path = tmp_path / "new" / "history"
    assert isinstance(open_history(path, pytest.fail), FileHistory)
    if sys.platform != "win32":
        assert path.stat().st_mode & 0o077 == 0


@posix_only
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/full", "/dev/null"])
def test_a_device_is_not_a_history_file(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    warnings = []
    history = open_history(Path(device), warnings.append)
    assert isinstance(history, InMemoryHistory)
    assert warnings == [f"history is kept for this session only: {device} is a device, not a regular file"]


@posix_only
def test_a_fifo_is_not_a_history_file_and_opening_it_does_not_block(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    warnings = []
    assert isinstance(open_history(fifo, warnings.append), InMemoryHistory)
    assert warnings == [f"history is kept for this session only: {fifo} is a FIFO, not a regular file"]


@posix_only
def test_a_link_to_a_device_is_not_a_history_file(tmp_path):
    link = tmp_path / "history"
    link.symlink_to("/dev/zero")
    warnings = []
    assert isinstance(open_history(link, warnings.append), InMemoryHistory)
    assert "is a device" in warnings[0]


@posix_only
def test_a_history_file_replaced_by_a_fifo_later_is_not_read(tmp_path):
    path = tmp_path / "history"
    warnings = []
    history = open_history(path, warnings.append)
    path.unlink()
    os.mkfifo(path)  # would block a reader forever
    assert list(history.load_history_strings()) == []
    history.append_string("one")  # nor is it written
    assert history.get_strings() == ["one"]
    assert len(warnings) == 1 and "is a FIFO, not a regular file" in warnings[0]
