"""Contract suites that every game, player and environment must pass.

They play seeded random games through the public protocol and check the
invariants the rest of the harness relies on. Each raises ``AssertionError``
with the game, seed and ply that broke the contract.
"""

from __future__ import annotations

import copy
import json
import random

from harness.envs import Environment
from harness.games import RESULTS, Rules
from players import Player


def check_rules(rules: Rules, games: int = 20, seed: int = 0, max_plies: int = 1000) -> None:
    """Seeded random games: apply never mutates, legal actions are sorted JSON and
    all apply, illegal actions raise ValueError, every game ends, the score and
    outcome are consistent, and states round-trip through ``state_to_json``."""
    rng = random.Random(seed)
    low, high = rules.score_bounds()
    for game in range(games):
        state = rules.initial_state()
        for ply in range(max_plies + 1):
            where = f"{rules.spec} game {game} ply {ply}"
            assert rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state)))) is not None, where
            if rules.is_terminal(state):
                break
            assert rules.outcome(state) is None, where
            assert rules.score(state) == 0, where
            legal = rules.legal_actions(state)
            assert legal, f"{where}: a live game must have a legal action"
            assert legal == json.loads(json.dumps(legal)), f"{where}: actions must be plain JSON"
            assert len({json.dumps(a, sort_keys=True) for a in legal}) == len(legal), f"{where}: duplicates"
            assert legal == sorted(legal, key=_sort_key(rules)), f"{where}: legal actions not sorted"
            before = copy.deepcopy(rules.state_to_json(state))
            for action in rng.sample(legal, min(len(legal), 4)):
                rules.apply(state, action)
            assert rules.state_to_json(state) == before, f"{where}: apply mutated its input"
            try:
                rules.apply(state, {"type": "nonsense"})
            except ValueError:
                pass
            else:
                raise AssertionError(f"{where}: a nonsense action did not raise ValueError")
            state = rules.apply(state, rng.choice(legal))
        else:
            raise AssertionError(f"{rules.spec} game {game}: no end after {max_plies} plies")
        result = rules.outcome(state)
        assert result is not None and result[0] in RESULTS and result[1], f"{rules.spec} game {game}"
        assert low <= rules.score(state) <= high, f"{rules.spec} game {game}: score out of bounds"
        assert rules.legal_actions(state) == [] or rules.is_terminal(state)
        restored = rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state))))
        assert rules.outcome(restored) == result and rules.score(restored) == rules.score(state)


def _sort_key(rules: Rules):
    sort_key = getattr(rules, "action_sort_key", None)
    return sort_key if sort_key is not None else (lambda a: json.dumps(a, sort_keys=True))


def random_positions(rules: Rules, count: int, seed: int = 0, step: int = 4) -> list:
    """The start position and ``count - 1`` live positions after ``step``, ``2 * step``, ...
    seeded random plies: fixed, varied positions for benchmarks and player checks."""
    found = [rules.initial_state()]
    rng = random.Random(seed)
    for attempt in range(1, 50 * count):
        if len(found) >= count:
            break
        state = rules.initial_state()
        for _ in range(step * (1 + attempt % (count - 1 or 1))):
            if rules.is_terminal(state):
                break
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        if not rules.is_terminal(state):
            found.append(state)
    return found


def check_player(player: Player, rules: Rules, games: int = 3, seed: int = 0, max_plies: int = 1000) -> None:
    """The player returns a legal action on every position of seeded random-ish games
    (it plays one side, random play the other), and the same seed gives the same moves."""
    for game in range(games):
        moves = []
        for _ in range(2):
            rng = random.Random(seed + game)
            player.reset(seed + game)
            state, line = rules.initial_state(), []
            side = game % 2
            for _ in range(max_plies):
                if rules.is_terminal(state):
                    break
                legal = rules.legal_actions(state)
                if rules.to_move(state) == side:
                    action = player.choose(rules, state)
                    assert action in legal, f"{player.spec} chose illegal {action} in {rules.spec}"
                else:
                    action = rng.choice(legal)
                line.append(action)
                state = rules.apply(state, action)
            moves.append(line)
        assert moves[0] == moves[1], f"{player.spec} is not deterministic for seed {seed + game}"


def check_env(env: Environment, seeds: range = range(3), player: Player | None = None) -> None:
    """Every observation is the user's turn or a finished game, and steps end the game."""
    rules = env.rules
    for seed in seeds:
        rng = random.Random(seed)
        observation = env.reset(seed)
        for _ in range(10_000):
            if observation.done:
                break
            assert rules.to_move(observation.state) == rules.user_side
            assert observation.legal_actions == rules.legal_actions(observation.state)
            assert observation.score == 0 and observation.outcome is None
            action = player.choose(rules, observation.state) if player else rng.choice(observation.legal_actions)
            observation = env.step(action)
        assert observation.done and observation.outcome is not None
        assert observation.score == rules.score(observation.state)
