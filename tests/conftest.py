"""Shared test configuration.

Hypothesis profiles, chosen with the environment variable ``HYPOTHESIS_PROFILE``:

- ``ci`` (default): about 50 examples per property, no deadline.
- ``deep``: 2000 examples per property, for a long local run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=50, deadline=None)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite examples/*.out from the current output instead of comparing",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a stress test of more than ~3 s (deselect with -m 'not slow')")
