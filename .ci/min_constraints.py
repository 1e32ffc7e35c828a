"""Print pip constraints that pin every dependency of pyproject.toml (the runtime ones and the
`test` extra) to its floor: `name>=1.2,<2` gives `name==1.2`. .ci/run installs with them, so
the floors are the versions the suite passed on and cannot drift from pyproject.

    python .ci/min_constraints.py > constraints-min.txt
    pip install -e '.[test]' -c constraints-min.txt
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[^;]*?)>=\s*([0-9][^,;\s]*)")


def constraints(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    pins = []
    for requirement in requirements:
        match = FLOOR.match(requirement)
        if match is None:  # every dependency needs a tested floor
            raise SystemExit(f"{pyproject}: {requirement!r} has no `>=` floor")
        pins.append(f"{match[1]}=={match[2]}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    print("\n".join(constraints(root / "pyproject.toml")))
