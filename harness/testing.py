"""Contract suites that every game, player and environment must pass.

They play seeded random games through the public protocol and check the
invariants the rest of the harness relies on. Each raises ``AssertionError``
with the game, seed and ply that broke the contract. ``configurations`` lists
every seat and option of a registered game, so a suite parametrised over
``harness.games.names()`` checks a new game by its registration alone:
``check_rules``, ``check_env`` and ``check_player`` per configuration,
``check_search`` per configuration, ``check_kit`` per game. The tactics
suites' generators (``scripts/tactics/``) write their files with
``write_suite_file``.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
from pathlib import Path

from harness.envs import Environment
from harness.games import RESULTS, REGISTRY, GameInfo, Rules, kit, load
from harness.games.gamekit import GameKit, SearchResult
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


def configurations(game: str | GameInfo) -> list[str]:
    """Every configuration of a game (each seat and option value) as a canonical game spec, defaults first."""
    info = game if isinstance(game, GameInfo) else REGISTRY[game]
    keys = list(info.options)
    specs = []
    for values in itertools.product(*(info.options[key] for key in keys)):
        extra = [f"{key}={value}" for key, value, default in zip(keys, values, info.defaults().values())
                 if value != default]
        specs.append(info.name + (":" + ",".join(sorted(extra)) if extra else ""))
    return specs


def check_kit(name: str, positions: int = 6, seed: int = 0) -> None:
    """The game's declared surface is whole and consistent.

    The kit is the registry's for ``name`` and a ``GameKit``; its features are
    named as their keys, with ``low <= default <= high``; the stand-in levels
    and ladder evaluations name every feature and nothing else (frozen tables:
    no live default enters the ladder); material is a balance (one
    side's is the other's negated); the board reading gives one kind per
    square, the same for the same position and different for different ones.
    """
    declared = kit(name)
    assert isinstance(declared, GameKit), f"{name}: the kit lacks part of the GameKit protocol"
    assert declared.name == name, f"{name}: the kit declares {declared.name!r}"
    assert declared.features, f"{name}: no evaluation features"
    for key, feature in declared.features.items():
        assert key == feature.name, f"{name}: feature {feature.name!r} filed as {key!r}"
        assert feature.low <= feature.default <= feature.high, f"{name}: {key}'s default is outside its range"
        assert feature.low < feature.high, f"{name}: {key} has an empty range"
    assert declared.eval_scale > 0, f"{name}: eval_scale must be positive"
    if declared.strong is not None:
        from players.alphabeta import AlphaBetaPlayer
        assert {"depth", "nodes"} <= set(declared.strong), f"{name}: strong needs a depth and a node budget"
        assert set(declared.strong) <= set(AlphaBetaPlayer.PARAMS), f"{name}: strong names a setting alpha-beta lacks"
    search = declared.search
    assert search.GBOT, f"{name}: no G-Bot stand-in level"
    assert {"material", "default"} <= set(search.GBOT_EVALS), f"{name}: the ladder needs material and default"
    # Frozen: every stand-in and rung names every feature, so no live default enters the ladder.
    assert isinstance(search.GBOT_DEFAULT_SOURCE, str) and search.GBOT_DEFAULT_SOURCE, f"{name}: GBOT_DEFAULT_SOURCE"
    for level, settings in search.GBOT.items():
        assert int(settings["depth"]) >= 1, f"{name}: stand-in level {level} has no depth"
        assert set(settings.get("weights", {})) == set(declared.features), \
            f"{name}: level {level}'s weights must name every feature (a frozen table, not the live defaults)"
    for evaluation, weights in search.GBOT_EVALS.items():
        assert set(weights) == set(declared.features), \
            f"{name}: ladder eval {evaluation} must name every feature (a frozen table, not the live defaults)"
    rules = load(name)
    seen: dict[str, tuple[str, ...]] = {}
    for state in random_positions(rules, positions, seed=seed):
        for side in (0, 1):
            value = declared.material(rules, state, side)
            assert math.isfinite(value), f"{name}: material is not finite"
        assert declared.material(rules, state, 0) == -declared.material(rules, state, 1), f"{name}: material"
        if declared.board_shape is not None:
            rows, columns = declared.board_shape
            cells = tuple(declared.board_cells(rules, state))
            assert len(cells) == rows * columns and all(isinstance(c, str) for c in cells), f"{name}: board cells"
            assert cells == tuple(declared.board_cells(rules, state)), f"{name}: board cells vary"
            notation = rules.notation(state)
            assert seen.setdefault(notation, cells) == cells, f"{name}: one position read two ways"
    if declared.board_shape is not None:
        assert len(set(seen.values())) == len(seen), f"{name}: two positions read as one board"


def check_search(rules: Rules, positions: int = 4, seed: int = 0, depth: int = 2, nodes: int = 200) -> None:
    """The game's search returns a legal action with its costs, deterministically for a seed.

    On seeded random positions: a depth-bounded search and a node-bounded one
    each return a ``SearchResult`` with a legal action, a finite value, a depth
    reached within the bound and at least one node; the same seed gives the
    same result; the default weight vector and the stand-in levels' weights
    are accepted; the rollout ends the game with a result and a score in bounds,
    the same for the same seed.
    """
    from players.features import weight_vector
    search = kit(rules.name).search
    weights = weight_vector(rules.name)
    low, high = rules.score_bounds()
    for index, state in enumerate(random_positions(rules, positions, seed=seed)):
        where = f"{rules.spec} position {index}"
        legal = rules.legal_actions(state)
        for bounds in ({"depth": depth, "nodes": None}, {"depth": None, "nodes": nodes}):
            result = search.search(rules, state, weights, deadline=None, seed=seed + index, **bounds)
            assert isinstance(result, SearchResult), f"{where}: not a SearchResult"
            assert result.action in legal, f"{where}: {bounds} chose illegal {result.action}"
            assert math.isfinite(result.value) and result.nodes >= 1, f"{where}: {bounds} value/nodes"
            assert bounds["depth"] is None or 0 <= result.depth <= depth, f"{where}: searched past depth"
            again = search.search(rules, state, weights, deadline=None, seed=seed + index, **bounds)
            assert again == result, f"{where}: {bounds} is not deterministic for a seed"
        for level, settings in search.GBOT.items():
            level_weights = weight_vector(rules.name, settings.get("weights"))
            result = search.search(rules, state, level_weights, depth=1, nodes=None, deadline=None, seed=seed)
            assert result.action in legal, f"{where}: level {level}'s weights chose an illegal action"
        outcome = search.rollout(rules, state, seed + index)
        assert outcome[0] in RESULTS and low <= outcome[1] <= high, f"{where}: rollout gave {outcome}"
        assert search.rollout(rules, state, seed + index) == outcome, f"{where}: rollout not deterministic"


def write_suite_file(document: dict, path: Path) -> None:
    """A tactics suite as JSON, one position a line (its ``positions``), so a regenerated suite diffs line by line."""
    head = {k: v for k, v in document.items() if k != "positions"}
    lines = [json.dumps(position, separators=(",", ":")) for position in document["positions"]]
    text = json.dumps(head, indent=1)[:-2] + ',\n "positions": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
