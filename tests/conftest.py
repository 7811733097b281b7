"""Fixtures shared by test modules of several areas."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster with 2 CPUs for the tests of one module.

    Starting Ray takes seconds, so a module's tests share it; a
    ``harness.cluster.Pool`` inside it joins this session instead of starting
    its own. It ends with the module, so no Ray session (and no CPU count)
    leaks into another module's tests.
    """
    from harness.cluster import ray_session
    with ray_session(num_cpus=2):
        yield


@pytest.fixture(scope="session")
def fairy_stockfish() -> str:
    """The command of the real Fairy-Stockfish engine (Debian package ``fairy-stockfish``).

    Missing, the tests that need it are skipped on a developer's machine and
    fail in CI (``.ci/run`` sets ``HARNESS_CI=1`` and installs the package).
    """
    from players.process import find_program
    from tests.requirements import unavailable
    command = "fairy-stockfish"
    if find_program(command) is None:
        unavailable("fairy-stockfish is not installed (apt-get install fairy-stockfish)")
    return command


def _hypothesis_profiles() -> None:
    """``default``: few examples, so the suite stays fast; ``HYPOTHESIS_PROFILE=long`` for a real hunt."""
    import os

    from hypothesis import HealthCheck, settings
    relaxed = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.register_profile("default", max_examples=150, **relaxed)
    settings.register_profile("long", max_examples=2000, **relaxed)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


_hypothesis_profiles()


@pytest.fixture(scope="module")
def test_game():
    """The tests' own fourth game, tic-tac-toe (``tests/tictactoe``), registered for one module.

    It goes through ``harness.games.register`` like any added game and is
    removed again after the module, so it never shows in ``harness games``.
    A pool started while it is registered registers it on its workers too.
    """
    from harness import games
    from tests.tictactoe.kit import INFO
    games.register(INFO)
    try:
        yield INFO.name
    finally:
        games.unregister(INFO.name)
