"""Shared test configuration.

Hypothesis profiles, chosen with the environment variable ``HYPOTHESIS_PROFILE``:

- ``quick`` (default): 25 examples per property, no deadline: a representative number for the
  default run, which should take about a minute.
- ``full``: 50 examples per property, the full number: `.ci/run`'s slow step runs every property
  again with it (``HYPOTHESIS_PROFILE=full python -m pytest -q -m "slow or hypothesis"``; the
  hypothesis plugin marks each property ``hypothesis``).
- ``deep``: 2000 examples per property, for a long local run.

A property that sets its own number (a cheap one that wants more) writes it for the full
profile as ``property_examples(N)`` (tests/shared.py), which scales it with the profile. One whose
examples are slow tries fewer in the default run only: ``property_examples(N, default_run=M)``.

The marker ``slow`` puts a test (a stress test, the packaging test) out of the default run
(pyproject's ``addopts`` says ``-m 'not slow'``); ``python -m pytest -q -m slow`` runs them.

The examples' goldens are checked by scalarlang's own pytest plugin (pyproject: ``testpaths``
has examples/, ``sad_goldens = true``): each examples/NAME.sad is a test item. Those of the
long examples (`SLOW_EXAMPLES`: examples/moons.sad and examples/names.sad, 100 training steps,
about 6 s each, names_mlp.sad, about 10 s, and names_tensor.sad, about a minute: pyproject's
`sad_timeout` is raised for it) are marked slow here. The default run checks them shorter:
tests/test_moons.py runs moons.sad with `let steps = 11` against the first lines of
examples/moons.out, tests/test_names.py, tests/test_names_mlp.py and tests/test_names_tensor.py
run the language models for a few steps against numpy (tests/test_cli.py runs every other example once
through the command against its golden file). So are the golden items of the two examples that
train for about a second (`TRAINING_EXAMPLES`: xor.sad and moons_tensor.sad): test_cli.py's run
of the command checks them against the same goldens in the default run. ``--update-golden`` rewrites every golden file
of the project (the examples', through the plugin's ``--sad-update``, and the README's
pictures), the long examples' too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("quick", max_examples=25, deadline=None)
settings.register_profile("full", max_examples=50, deadline=None)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))

# pytester: the plugin's tests run pytest on folders they make (tests/test_golden_plugin.py).
pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# Examples whose golden tests are marked slow (see the docstring).
SLOW_EXAMPLES = {"moons", "names", "names_mlp", "names_tensor"}
# Examples that train for about a second: in the default run the command checks their golden
# files (test_cli.py, one process for every quick example) and their JSON; their own golden items
# (the plugin running the same text in process, as it does the other examples) and the
# playground runner's run of them are in the slow run.
TRAINING_EXAMPLES = {"moons_tensor", "xor"}


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: a worker more than the cores this process may use. Many tests wait on a
    process of their own more than they compute (the REPL on a pseudo-terminal, Ctrl-C at a
    chosen moment, a notebook's kernel), and a waiting worker leaves its core idle: on two cores
    the default run took 77 s with two workers, 71-72 s with three (three runs each)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # the number the user asked for (xdist's own hook reads it)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # (macOS has no affinity)
        cores = os.cpu_count() or 1
    return cores + 1


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`-n` without `--dist`: work stealing instead of xdist's `load`. `load` hands out the tests
    in chunks and leaves each worker the rest of its own chunk at the end: the worker that had
    the notebook's kernels and the moons examples there ran 5.5-6.5 s alone after the others
    were done (two runs), a core idle. A worker out of tests takes half of another's."""
    arguments = config.invocation_params.args
    if config.getvalue("dist") != "load" or any(str(argument).startswith(("--dist", "-d")) for argument in arguments):
        return None  # the user's choice (xdist's own hook makes it)
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if config.getoption("--update-golden") or config.getoption("sad_update", False):
        return  # rewriting the golden files rewrites them all
    for item in items:
        in_slow_run = item.path.stem in SLOW_EXAMPLES | TRAINING_EXAMPLES
        if item.path.suffix == ".sad" and item.path.parent == EXAMPLES and in_slow_run:
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite every golden file (examples/*.out, the README's pictures) instead of comparing",
    )


def pytest_configure(config):
    if config.getoption("--update-golden") and hasattr(config.option, "sad_update"):
        config.option.sad_update = True  # the examples' goldens: the plugin writes them
    config.addinivalue_line(
        "markers", "slow: a stress, packaging or browser test of more than a few seconds (run with -m slow)"
    )
