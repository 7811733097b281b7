"""Every kind of player returns only legal actions, deterministically, in every game and seat."""

from __future__ import annotations

import pathlib
import shlex
import sys

import pytest

import players
from harness.games import load as load_game
from harness.testing import check_player, random_positions
from tests.registry import GAMES, SEATS

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "example_engine.py"
# (spec, plies per game): searching players play the opening and middle game only, to keep the suite fast.
PLAYERS = [
    ("random", 1000),
    ("greedy", 1000),
    ("alphabeta:depth=2", 40),
    ("alphabeta:nodes=300", 40),
    ("mcts:iterations=16", 40),
    ("mcts:iterations=8,rollout=eval", 30),
    ("gbot", 16),
    ("gbot:depth=2,eval=material", 16),
    ("strong:nodes=300", 40),
    ("external:command=" + shlex.join([sys.executable, str(EXAMPLE)]), 1000),
]


@pytest.mark.parametrize("game", SEATS)
@pytest.mark.parametrize("spec, plies", PLAYERS, ids=["random", "greedy", "alphabeta-depth", "alphabeta-nodes",
                                                     "mcts-random", "mcts-eval", "gbot", "gbot-ladder", "strong",
                                                     "external"])
def test_player_chooses_only_legal_actions_and_replays_for_a_seed(spec, plies, game, test_game):
    rules = load_game(game)
    player = players.load(spec, game=game)
    try:
        check_player(player, rules, games=2, seed=11, max_plies=plies)
    finally:
        player.close()


@pytest.mark.parametrize("game", GAMES)
def test_random_positions_are_live_distinct_and_follow_the_seed(game, test_game):
    rules = load_game(game)
    positions = random_positions(rules, 5, seed=3)
    notations = [rules.notation(state) for state in positions]
    assert len(positions) == 5 and len(set(notations)) == 5
    assert notations[0] == rules.notation(rules.initial_state())
    assert not any(rules.is_terminal(state) for state in positions)
    assert notations == [rules.notation(state) for state in random_positions(rules, 5, seed=3)]
    assert notations != [rules.notation(state) for state in random_positions(rules, 5, seed=4)]
