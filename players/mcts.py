"""Monte Carlo tree search (UCT) over the Rules protocol.

Each iteration walks down the tree by UCB1, expands one untried action, values
the new position and backs the value up. The value of a position comes from

- ``rollout=random`` (the default): a random playout to the end, on the
  game's own fast path (the ``rollout`` of the game's search, compiled for
  the shipped games);
- ``rollout=eval``: the game's evaluation, a ``depth=eval_depth`` alpha-beta
  search with the spec's weights, squashed to a win probability by a
  logistic of ``eval_scale`` (default: the ``eval_scale`` of the game's kit),
  evaluation-guided, no playout.

Finished games are valued by their result and documented score, both taken
from the user's seat and turned into the side to move's view, so among wins
the search prefers the better-paying one: a reward lies in [2/3, 1] for a
win, [1/3, 2/3] for a draw and [0, 1/3] for a loss, placed inside its band by
the score's position within ``rules.score_bounds()``.

Iteration limits are deterministic for a seed; time limits are for live play.
"""

from __future__ import annotations

import math
import random
import time
from typing import Callable

from harness.games import Action, Rules, State, kit
from players import search as searches
from players.base import Limits, Param, Player
from players.features import weight_vector

RESULT_BANDS = {"loss": 0.0, "draw": 1.0, "win": 2.0}
# A playout that outlives this many plies is scored as a draw (the games end long before).
MAX_PLAYOUT_PLIES = 10_000


def user_reward(rules: Rules, result: str, score: float) -> float:
    """The reward in [0, 1] of a finished game for the user's side.

    The result picks a band (loss, draw, win: each a third of [0, 1]) and the
    documented score places the game inside it, so a better-paying win is
    worth more than a poorer one and every win more than any draw.
    """
    low, high = rules.score_bounds()
    fraction = (score - low) / (high - low) if high > low else 0.5
    return (RESULT_BANDS[result] + min(1.0, max(0.0, fraction))) / 3.0


def python_rollout(rules: Rules, state: State, rng: random.Random) -> tuple[str, float]:
    """A uniformly random playout through the Rules protocol (slow: a reference for the games' own)."""
    for _ in range(MAX_PLAYOUT_PLIES):
        if rules.is_terminal(state):
            result, _ = rules.outcome(state)
            return result, float(rules.score(state))
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    return "draw", 0.0


def compiled_rollout(game: str) -> Callable[[Rules, State, int], tuple[str, float]]:
    """The game's own random playout (compiled for the shipped games), from its kit."""
    return kit(game).search.rollout


class Node:
    """One position in the tree; ``total`` is summed from the view of the side that moved into it."""

    __slots__ = ("state", "mover", "children", "untried", "visits", "total")

    def __init__(self, state: State, mover: int, untried: list[Action]) -> None:
        self.state = state
        self.mover = mover
        self.children: list[tuple[Action, Node]] = []
        self.untried = untried
        self.visits = 0
        self.total = 0.0


class MCTSPlayer(Player):
    """UCT with random or evaluation-guided leaf values; see the module docstring."""

    kind = "mcts"
    TAKES_WEIGHTS = True
    PARAMS = {
        "iterations": Param(int, 1000, "iterations per move (deterministic)", minimum=1),
        "time": Param(float, None, "seconds per move (live play only; replaces iterations)", minimum=0.0),
        "c": Param(float, 1.4, "UCB1 exploration constant", minimum=0.0),
        "rollout": Param(str, "random", "leaf value: random playout or the evaluation",
                         choices=("random", "eval")),
        "eval_depth": Param(int, 1, "alpha-beta depth of the evaluation (rollout=eval)", minimum=1),
        "eval_scale": Param(float, None, "evaluation units per logistic unit (rollout=eval; "
                            "default: the game's kit's eval_scale)", minimum=1e-9),
    }

    def choose(self, rules: Rules, state: State, limits: Limits | None = None) -> Action:
        legal = rules.legal_actions(state)
        if len(legal) == 1:
            return legal[0]
        bounds = self.limits().merged(limits)
        deadline = time.monotonic() + bounds.time if bounds.time is not None else None
        iterations = bounds.iterations if deadline is None else None
        leaf_value = self._leaf_valuer(rules)
        root = Node(state, -1, list(legal))
        done = 0
        while done == 0 or ((iterations is None or done < iterations)
                            and (deadline is None or time.monotonic() < deadline)):
            self._iterate(rules, root, leaf_value)
            done += 1
        # Most visited, then best valued; remaining ties go to the earlier (seeded) expansion.
        best = max(root.children, key=lambda child: (child[1].visits, child[1].total))
        return best[0]

    def _iterate(self, rules: Rules, root: Node, leaf_value: Callable[[State], float]) -> None:
        """One selection, expansion, valuation and backup."""
        path = [root]
        node = root
        while not node.untried and node.children:
            node = self._select(node)
            path.append(node)
        if node.untried:
            untried = node.untried  # take a seeded random one: swap it to the end, pop it
            pick = self.rng.randrange(len(untried))
            untried[pick], untried[-1] = untried[-1], untried[pick]
            action = untried.pop()
            child_state = rules.apply(node.state, action)
            terminal = rules.is_terminal(child_state)
            child = Node(child_state, rules.to_move(node.state),
                         [] if terminal else rules.legal_actions(child_state))
            node.children.append((action, child))
            node = child
            path.append(node)
        user_value = leaf_value(node.state)
        for visited in path:
            visited.visits += 1
            visited.total += user_value if visited.mover == rules.user_side else 1.0 - user_value

    def _select(self, node: Node) -> Node:
        """The child with the highest UCB1 bound (the first in expansion order on ties)."""
        c = self.params["c"]
        log_visits = math.log(node.visits)
        best, best_bound = node.children[0][1], -math.inf
        for _, child in node.children:
            bound = child.total / child.visits + c * math.sqrt(log_visits / child.visits)
            if bound > best_bound:
                best, best_bound = child, bound
        return best

    def _leaf_valuer(self, rules: Rules) -> Callable[[State], float]:
        """A function giving the user's expected reward in [0, 1] of a position."""
        if self.params["rollout"] == "eval":
            search = searches.module(rules.name).search
            weights = weight_vector(rules.name, self.weights)
            depth = self.params["eval_depth"]
            scale = self.params["eval_scale"] or kit(rules.name).eval_scale

            def evaluate(state: State) -> float:
                if rules.is_terminal(state):
                    return user_reward(rules, *_result(rules, state))
                value = search(rules, state, weights, depth=depth, nodes=None, deadline=None,
                               seed=self.rng.randrange(2**31)).value
                mover_win = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, value / scale))))
                return mover_win if rules.to_move(state) == rules.user_side else 1.0 - mover_win

            return evaluate
        fast = compiled_rollout(rules.name)

        def playout(state: State) -> float:
            if rules.is_terminal(state):
                return user_reward(rules, *_result(rules, state))
            result, score = fast(rules, state, self.rng.randrange(2**31))
            return user_reward(rules, result, score)

        return playout


def _result(rules: Rules, state: State) -> tuple[str, float]:
    result, _ = rules.outcome(state)
    return result, float(rules.score(state))
