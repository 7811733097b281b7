"""Tic-tac-toe's search: plain Python negamax with alpha-beta, and a random rollout for MCTS.

The ``GameSearch`` protocol of ``harness.games.gamekit``, without a compiled
core: iterative deepening to ``depth`` (default: to the end) within a node
budget; the root's moves are shuffled by ``seed`` first, so equal moves are
chosen by the seed and a search replays exactly.
"""

from __future__ import annotations

import random
import time

import numpy as np

from harness.games import Rules, State
from harness.games.gamekit import SearchResult
from tests.tictactoe import LINES, TicTacToeState, winner
from tests.tictactoe.features import FEATURES, INDEX

WIN = 1000.0
MAX_DEPTH = 9

# The G-Bot stand-in: two plies on the default weights, frozen (every feature named) so a change to
# the defaults never moves it or a ladder rung.
LADDER_DEFAULTS = {"two_in_line": 10.0, "open_lines": 1.0, "center": 2.0, "corners": 1.0}
GBOT_DEFAULT_SOURCE = "LADDER_DEFAULTS (the default weights, frozen)"
GBOT: dict[str, dict] = {"default": {"depth": 2, "weights": dict(LADDER_DEFAULTS)}}
GBOT_EVALS: dict[str, dict[str, float]] = {
    "material": {name: 0.0 for name in LADDER_DEFAULTS} | {"open_lines": 1.0},
    "default": dict(LADDER_DEFAULTS),
    "center": LADDER_DEFAULTS | {"center": 8.0},
}


def evaluate(state: TicTacToeState, weights: np.ndarray) -> float:
    """The weighted features from the side to move's point of view."""
    mine, theirs = state.to_move + 1, 2 - state.to_move
    two = open_lines = 0
    for line in LINES:
        marks = [state.cells[cell] for cell in line]
        if theirs not in marks and mine in marks:
            open_lines += 1
            two += marks.count(mine) == 2
        elif mine not in marks and theirs in marks:
            open_lines -= 1
            two -= marks.count(theirs) == 2
    center = (state.cells[4] == mine) - (state.cells[4] == theirs)
    corners = sum((state.cells[c] == mine) - (state.cells[c] == theirs) for c in (0, 2, 6, 8))
    return (weights[INDEX["two_in_line"]] * two + weights[INDEX["open_lines"]] * open_lines
            + weights[INDEX["center"]] * center + weights[INDEX["corners"]] * corners)


class _OutOfBudget(Exception):
    pass


def _negamax(rules: Rules, state: TicTacToeState, depth: int, alpha: float, beta: float,
             weights: np.ndarray, budget: list[int], deadline: float | None) -> float:
    budget[0] -= 1
    if budget[0] < 0 or (deadline is not None and time.monotonic() >= deadline):
        raise _OutOfBudget
    if winner(state.cells) is not None:  # the side that just moved won
        return -(WIN + state.cells.count(0))
    if all(state.cells):
        return 0.0
    if depth == 0:
        return float(evaluate(state, weights))
    best = -np.inf
    for action in rules.legal_actions(state):
        value = -_negamax(rules, rules.apply(state, action), depth - 1, -beta, -alpha, weights, budget, deadline)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def search(rules: Rules, state: State, weights: np.ndarray, *, depth: int | None = None,
           nodes: int | None = None, deadline: float | None = None, seed: int = 0) -> SearchResult:
    """The best action by iterative deepening; see the module docstring."""
    moves = rules.legal_actions(state)
    random.Random(seed).shuffle(moves)
    last = min(depth or MAX_DEPTH, MAX_DEPTH)
    budget = [nodes if nodes is not None else 10**9]
    best_action, best_value, reached = moves[0], 0.0, 0
    for current in range(1, last + 1):
        try:
            values = [-_negamax(rules, rules.apply(state, move), current - 1, -np.inf, np.inf, weights, budget,
                                deadline) for move in moves]
        except _OutOfBudget:
            break
        best_value = max(values)
        best_action, reached = moves[values.index(best_value)], current
    spent = (nodes if nodes is not None else 10**9) - max(budget[0], 0)
    return SearchResult(best_action, float(best_value), reached, spent)


def static_value(rules: Rules, state: State, weights: np.ndarray) -> float:
    """The leaf evaluation for the side to move (what ``harness fit`` regresses)."""
    return float(evaluate(state, weights))


def solve(rules: Rules, state: State, empties: int = 9, nodes: int | None = None) -> str | None:
    """The exact result for the side to move: the whole game tree is small enough to search to the end."""
    value = _negamax(rules, state, MAX_DEPTH, -np.inf, np.inf, np.zeros(len(FEATURES)), [10**9], None)
    return "win" if value > WIN / 2 else "loss" if value < -WIN / 2 else "draw"


def rollout(rules: Rules, state: State, seed: int) -> tuple[str, float]:
    """A uniformly random playout to the end: (result, score) from the user's seat."""
    rng = random.Random(seed)
    while not rules.is_terminal(state):
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    return rules.outcome(state)[0], rules.score(state)
