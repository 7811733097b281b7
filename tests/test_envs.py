"""LocalEnv: a seat in one game, with the opponent's replies and forced passes played inside ``step``."""

from __future__ import annotations

import random

import pytest

from harness.envs import PASS, LocalEnv
from harness.errors import IllegalAction, InvalidInput, OpponentError
from harness.games import load as load_game, names as game_names
from harness.games.openings import load_suite, opening_state
from harness.testing import check_env
from tests.registry import SEATS


@pytest.mark.parametrize("game", SEATS)
def test_every_game_and_seat_passes_the_environment_contract(game, test_game):
    check_env(LocalEnv(game, "random"), seeds=range(2))


def test_an_observation_is_always_the_users_turn_or_the_end():
    env = LocalEnv("xiangqi:black", "random")
    rules = env.rules
    observation = env.reset(3)
    assert rules.user_side == 1
    assert rules.to_move(observation.state) == 1 and len(env.actions) == 1  # red opened inside reset
    rng = random.Random(3)
    while not observation.done:
        observation = env.step(rng.choice(observation.legal_actions))
        assert observation.done or rules.to_move(observation.state) == rules.user_side


@pytest.mark.parametrize("game", game_names())
def test_step_applies_the_users_action_and_then_the_opponents_reply(game):
    env = LocalEnv(game, "random")
    rules = env.rules
    observation = env.reset(7)
    rng = random.Random(7)
    for _ in range(6):
        if observation.done:
            break
        before, played = observation.state, len(env.actions)
        action = rng.choice(observation.legal_actions)
        observation = env.step(action)
        assert env.actions[played] == action
        replayed = rules.apply(before, action)
        for reply in env.actions[played + 1:]:
            replayed = rules.apply(replayed, reply)
        assert rules.state_to_json(replayed) == rules.state_to_json(observation.state)
        assert observation.done or len(env.actions) > played + 1


def test_the_opponents_replies_follow_the_seed():
    def line(seed):
        env = LocalEnv("totality", "random")
        observation = env.reset(seed)
        while not observation.done:
            observation = env.step(observation.legal_actions[0])
        return env.actions

    assert line(5) == line(5)
    assert line(5) != line(6)


@pytest.mark.parametrize("game", game_names())
def test_an_illegal_action_is_refused_and_leaves_the_state_unchanged(game):
    env = LocalEnv(game, "random")
    rules = env.rules
    observation = env.reset(1)
    before, actions = rules.state_to_json(env.state), list(env.actions)
    for bad in ({"type": "nonsense"}, {}, "pass", None):
        with pytest.raises(IllegalAction):
            env.step(bad)
        assert rules.state_to_json(env.state) == before and env.actions == actions
    assert env.step(observation.legal_actions[0]).state is env.state


def test_an_illegal_action_is_bad_input():
    env = LocalEnv("ravenward", "random")
    env.reset(0)
    with pytest.raises(ValueError, match="is not legal here; legal actions"):
        env.step({"from": [9, 9], "to": [9, 9]})


def test_a_finished_game_takes_no_more_steps():
    env = LocalEnv("totality", "random")
    observation = env.reset(2)
    while not observation.done:
        observation = env.step(observation.legal_actions[-1])
    assert observation.legal_actions == [] and observation.outcome is not None
    with pytest.raises(ValueError, match="game is over"):
        env.step(PASS)


def test_a_forced_pass_of_the_user_is_played_inside_step():
    rules = load_game("totality")
    seen_user_pass = 0
    for seed in range(60):
        env = LocalEnv(rules, "random")
        observation = env.reset(seed)
        rng = random.Random(seed)
        while not observation.done:
            assert observation.legal_actions != [PASS], "the user was asked to make a forced pass"
            observation = env.step(rng.choice(observation.legal_actions))
        state = rules.initial_state()
        for action in env.actions:
            if action == PASS and rules.to_move(state) == rules.user_side:
                seen_user_pass += 1
            state = rules.apply(state, action)
        if seen_user_pass:
            break
    assert seen_user_pass, "no seeded game had a forced pass of the user"


def test_opening_plies_are_random_for_both_sides_and_follow_the_seed():
    def opening(seed):
        env = LocalEnv("xiangqi", "greedy", opening_plies=4)
        env.reset(seed)
        return env.actions

    assert opening(1) == opening(1)
    assert opening(1)[:4] != opening(2)[:4]
    assert len(opening(1)) >= 4


def test_a_failing_opponent_is_reported_as_an_opponent_error():
    env = LocalEnv("xiangqi:black", "external:command=no-such-engine-anywhere")
    with pytest.raises(OpponentError, match="could not be started"):
        env.reset(0)


@pytest.mark.parametrize("game", ["totality", "ravenward", "xiangqi", "xiangqi:black"])
def test_a_suite_plays_the_seeds_opening_then_the_opponent_replies_if_it_is_to_move(game):
    suite = load_suite(game)
    env = LocalEnv(game, "random", openings=suite.name)
    observation = env.reset(42)
    rules = env.rules
    assert env.opening == suite.opening(42) and env.actions[:suite.plies] == env.opening
    assert rules.to_move(observation.state) == rules.user_side and not observation.done
    after_opening = opening_state(rules, env.opening)
    replies = len(env.actions) - suite.plies
    assert replies == (0 if rules.to_move(after_opening) == rules.user_side else 1)


def test_an_environment_refuses_a_suite_and_random_plies_together():
    with pytest.raises(InvalidInput, match="not both"):
        LocalEnv("totality", "random", opening_plies=2, openings=load_suite("totality").name)


def test_an_environment_with_random_plies_records_them_as_its_opening():
    env = LocalEnv("ravenward", "random", opening_plies=3)
    env.reset(5)
    assert len(env.opening) == 3 and env.actions[:3] == env.opening
