"""The committed pictures of the seed's graph (for the README) are what scalarlang draws now.

They are laid out by the pure-Python layout, which is the same on every machine (Graphviz's
output changes with its version). `pytest tests/test_drawing_readme.py --update-golden`
rewrites them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shared import SEED_PROGRAM
from scalarlang.front.api import Session
from scalarlang.pictures import pass_picture, svg_text

ROOT = Path(__file__).resolve().parent.parent
PICTURES = ROOT / "docs" / "pictures"


def seed_pictures() -> dict[str, str]:
    session = Session()
    session.run(SEED_PROGRAM)
    loss = session["loss"]
    backward_pass = loss.backward()
    topology = backward_pass.topology
    labels = [session.label_of(node) for node in topology]
    return {
        "reused_square.svg": svg_text(session.picture("loss"), engine="python"),
        "reused_square_pass.svg": svg_text(pass_picture(backward_pass, "loss", labels.__getitem__), engine="python"),
    }


@pytest.mark.parametrize("name", ["reused_square.svg", "reused_square_pass.svg"])
def test_committed_picture_is_current(request, name):
    current = seed_pictures()[name]
    path = PICTURES / name
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(current, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run pytest {__file__} --update-golden"
    assert path.read_text(encoding="utf-8") == current
    assert "grad 8" in current
