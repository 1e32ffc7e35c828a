"""A Jupyter kernel of this very interpreter for nbclient, whatever kernels the machine has
installed: the notebook tests (test_notebook.py) and the walk player's (test_walk_browser.py)
run their notebooks in it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


def notebook_client(notebook, folder: Path, monkeypatch):
    """An nbclient client for ``notebook`` in a kernel of this interpreter, its spec and the
    notebook's path in ``folder`` (skipped without the notebook extra)."""
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    spec = folder / "kernels" / "scalarlang-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(folder))
    return nbclient.NotebookClient(
        notebook, kernel_name="scalarlang-test", timeout=120, resources={"metadata": {"path": str(folder)}}
    )
