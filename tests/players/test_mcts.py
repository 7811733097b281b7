"""MCTS: rewards from results and scores, compiled and Python playouts, limits, and winning moves."""

from __future__ import annotations

import json
import random

import pytest

import players
from harness.games import RESULTS, load as load_game, names as game_names
from players.mcts import compiled_rollout, python_rollout, user_reward


@pytest.mark.parametrize("game", ["ravenward", "totality", "totality:easy", "xiangqi"])
def test_rewards_rank_every_win_above_every_draw_above_every_loss(game):
    rules = load_game(game)
    low, high = rules.score_bounds()
    assert user_reward(rules, "loss", low) == 0.0 and user_reward(rules, "win", high) == 1.0
    assert user_reward(rules, "loss", high) <= user_reward(rules, "draw", low)
    assert user_reward(rules, "draw", high) <= user_reward(rules, "win", low)


def test_a_better_paying_win_is_worth_more():
    rules = load_game("ravenward")
    low, high = rules.score_bounds()
    assert user_reward(rules, "win", 150) > user_reward(rules, "win", 120) > user_reward(rules, "win", 100)
    assert 2 / 3 <= user_reward(rules, "win", 100) <= 1.0
    assert user_reward(rules, "loss", 24) > user_reward(rules, "loss", 0)


@pytest.mark.parametrize("game", game_names())
def test_the_game_has_a_compiled_rollout_that_ends_the_game(game):
    rules = load_game(game)
    rollout = compiled_rollout(game)
    assert rollout is not None, f"{game} has no compiled rollout: MCTS falls back to Python playouts"
    low, high = rules.score_bounds()
    results = set()
    for seed in range(20):
        result, score = rollout(rules, rules.initial_state(), seed)
        assert result in RESULTS and low <= score <= high
        assert rollout(rules, rules.initial_state(), seed) == (result, score)
        results.add(result)
    assert len(results) > 1 or game == "xiangqi"


@pytest.mark.parametrize("game", game_names())
def test_the_python_rollout_plays_to_a_consistent_end(game):
    rules = load_game(game)
    result, score = python_rollout(rules, rules.initial_state(), random.Random(3))
    assert (result, score) == python_rollout(rules, rules.initial_state(), random.Random(3))
    assert result in RESULTS and rules.score_bounds()[0] <= score <= rules.score_bounds()[1]
    if result == "loss":
        assert score < rules.score_bounds()[1]


def immediate_wins(rules, seed: int, wanted: int = 2):
    """Positions from seeded random games where the user to move has a winning move and a non-winning one."""
    found = []
    for game in range(200):
        rng = random.Random(f"{seed}:{game}")
        state = rules.initial_state()
        while not rules.is_terminal(state) and len(found) < wanted:
            legal = rules.legal_actions(state)
            if rules.to_move(state) == rules.user_side and len(legal) > 1:
                results = [rules.outcome(rules.apply(state, a)) for a in legal]
                wins = [a for a, r in zip(legal, results) if r is not None and r[0] == "win"]
                if wins and len(wins) < len(legal):
                    found.append((state, wins))
                    break
            state = rules.apply(state, rng.choice(legal))
        if len(found) >= wanted:
            return found
    return found


@pytest.mark.parametrize("game", ["ravenward", "xiangqi", "xiangqi:black"])
def test_mcts_takes_an_immediate_win(game):
    rules = load_game(game)
    positions = immediate_wins(rules, seed=1)
    assert positions, f"no seeded random position of {game} had an immediate win"
    player = players.load("mcts:iterations=300")
    for state, wins in positions:
        player.reset(0)
        assert player.choose(rules, state) in wins


def minimax_score(rules, state, memo) -> float:
    """The user's documented score under perfect play by both sides (small endgames only)."""
    key = rules.notation(state)
    if key not in memo:
        if rules.is_terminal(state):
            memo[key] = rules.score(state)
        else:
            values = [minimax_score(rules, rules.apply(state, a), memo) for a in rules.legal_actions(state)]
            memo[key] = max(values) if rules.to_move(state) == rules.user_side else min(values)
    return memo[key]


def test_mcts_finds_the_forced_win_of_a_totality_endgame():
    # Totality's score orders every result (a win pays at least 100, a draw 50, a loss 0),
    # so the minimax of the score tells which moves win by force.
    rules = load_game("totality")
    memo: dict = {}
    checked = 0
    for game in range(60):
        rng = random.Random(game)
        state = rules.initial_state()
        while not rules.is_terminal(state) and rules.counters(state)["empty"] > 6:
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        if rules.is_terminal(state) or rules.to_move(state) != rules.user_side:
            continue
        legal = rules.legal_actions(state)
        values = {json.dumps(a): minimax_score(rules, rules.apply(state, a), memo) for a in legal}
        winning = [a for a in legal if values[json.dumps(a)] >= 100]
        if not winning or len(winning) == len(legal):
            continue
        player = players.load("mcts:iterations=400")
        player.reset(game)
        assert player.choose(rules, state) in winning, f"game {game}: a losing or drawing move"
        checked += 1
        if checked == 2:
            return
    pytest.fail(f"only {checked} seeded endgames with a forced win beside other moves")


def test_evaluation_guided_mcts_takes_an_immediate_win():
    rules = load_game("xiangqi")
    [(state, wins)] = immediate_wins(rules, seed=2, wanted=1)
    player = players.load("mcts:iterations=200,rollout=eval")
    player.reset(0)
    assert player.choose(rules, state) in wins


@pytest.mark.parametrize("spec", ["mcts:iterations=40", "mcts:iterations=30,rollout=eval,c=0.5"])
def test_the_same_seed_chooses_the_same_move_and_every_move_is_legal(spec):
    rules = load_game("totality")
    state = rules.initial_state()
    player = players.load(spec)
    for ply in range(8):
        player.reset(ply)
        first = player.choose(rules, state)
        player.reset(ply)
        assert player.choose(rules, state) == first
        assert first in rules.legal_actions(state)
        state = rules.apply(state, first)


def test_a_time_limit_replaces_the_iteration_limit():
    rules = load_game("ravenward")
    player = players.load("mcts:time=0.05")
    player.reset(0)
    assert player.choose(rules, rules.initial_state()) in rules.legal_actions(rules.initial_state())
    hurried = players.load("mcts:time=0")
    hurried.reset(0)
    assert hurried.choose(rules, rules.initial_state()) in rules.legal_actions(rules.initial_state())
    limited = players.load("mcts:iterations=5")
    limited.reset(0)
    assert limited.choose(rules, rules.initial_state(), players.Limits(iterations=1)) in \
        rules.legal_actions(rules.initial_state())


def test_a_single_legal_action_is_returned_without_search():
    rules = load_game("totality")
    rng = random.Random(0)
    for game in range(40):
        state = rules.initial_state()
        while not rules.is_terminal(state):
            legal = rules.legal_actions(state)
            if len(legal) == 1:
                assert players.load("mcts:iterations=1").choose(rules, state) == legal[0]
                return
            state = rules.apply(state, rng.choice(legal))
    pytest.fail("no seeded game had a position with a single legal action")
