"""What the contract suites run over: every registered game in every configuration, and the tests' own game.

A game added to the registry (``harness.games.REGISTRY``) is checked by every
suite that takes its lists from here; the tests' tic-tac-toe joins them
through the ``test_game`` fixture (``tests/conftest.py``).
"""

from __future__ import annotations

from harness.games import names
from harness.testing import configurations
from tests.tictactoe.kit import INFO as TEST_GAME

GAMES = names() + [TEST_GAME.name]
SEATS = [spec for name in names() for spec in configurations(name)] + configurations(TEST_GAME)
