"""Every registered game, and the tests' own tic-tac-toe, passes the rules, search and kit contracts.

The lists come from the registry (``tests/registry.py``), so a new game is
checked here by registering it; the environment and player contracts run
over the same lists in ``tests/test_envs.py`` and
``tests/players/test_players_contract.py``.
"""

from __future__ import annotations

import pytest

from harness.games import load, parse_spec
from harness.testing import check_kit, check_rules, check_search
from tests.registry import GAMES, SEATS


@pytest.mark.parametrize("game", GAMES)
def test_every_game_declares_a_whole_consistent_kit(game, test_game):
    check_kit(game)


@pytest.mark.parametrize("game", SEATS)
def test_every_seat_and_option_passes_the_rules_contract(game, test_game):
    check_rules(load(game), games=3, seed=5)


@pytest.mark.parametrize("game", SEATS)
def test_every_seat_and_option_passes_the_search_contract(game, test_game):
    check_search(load(game), positions=3, seed=7)


def test_the_registry_lists_every_configuration_of_every_game(test_game):
    assert "xiangqi:seat=black" in SEATS and "totality:level=easy" in SEATS and "tictactoe:seat=o" in SEATS
    for spec in SEATS:
        name, config = parse_spec(spec)
        assert load(spec).spec == spec and load(spec).config == config


def test_the_test_game_imports_only_the_games_layer_like_a_shipped_game():
    import ast
    import pathlib
    for path in (pathlib.Path(__file__).parent / "tictactoe").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("harness", "players"):
                assert node.module.startswith(("harness.games", "harness.errors")), f"{path.name}: {node.module}"
