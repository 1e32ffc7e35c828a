"""Shared test configuration.

Hypothesis profiles, chosen with the environment variable ``HYPOTHESIS_PROFILE``:

- ``ci`` (default): about 50 examples per property, no deadline.
- ``deep``: 2000 examples per property, for a long local run.

The marker ``slow`` puts a test (a stress test, the packaging test) out of the default run
(pyproject's ``addopts`` says ``-m 'not slow'``); ``python -m pytest -q -m slow`` runs them.

The golden tests of the long examples (`SLOW_EXAMPLES`: examples/moons.sad, 100 training steps,
about 6 s a run) are marked slow here too: test_golden.py would run each three times. The
default run still checks them: tests/test_cli.py runs every example once through the command
against its golden file, and tests/test_moons.py runs moons.sad with `let steps = 11` against
the first lines of examples/moons.out. ``--update-golden`` rewrites them with the others.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=50, deadline=None)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Examples whose test_golden.py tests are marked slow (see the docstring).
SLOW_EXAMPLES = {"moons"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if config.getoption("--update-golden"):
        return  # rewriting the golden files rewrites them all
    for item in items:
        callspec = getattr(item, "callspec", None)
        path = callspec.params.get("path") if callspec is not None else None
        if item.path.name == "test_golden.py" and getattr(path, "stem", None) in SLOW_EXAMPLES:
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite examples/*.out from the current output instead of comparing",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a stress, packaging or browser test of more than a few seconds (run with -m slow)"
    )
