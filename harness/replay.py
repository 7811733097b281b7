"""A recorded match replayed through the rules: the start board, then each ply and the board after it.

Beside the games, not in the match layer: the database's export replays what
it stored and may import the games' registry, never the match loop or the
players (DESIGN.md's layer table).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from harness.games import load as load_game
from harness.results import MatchResult


def replay_lines(result: MatchResult) -> Iterator[str]:
    """A played match move by move: the start board, then each ply and the board after it.

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since).
    """
    rules = load_game(result.game)
    state = rules.initial_state()
    yield rules.render(state)
    for number, action in enumerate(result.actions, 1):
        who = "player" if rules.to_move(state) == rules.user_side else "opponent"
        state = rules.apply(state, action)
        yield f"ply {number} ({who}): {json.dumps(action)}"
        yield rules.render(state)
