"""A recorded match replayed through the rules: the start board, then each ply and the board after it.

Beside the games, not in the match layer: the database's export replays what
it stored and may import the games' registry, never the match loop or the
players (DESIGN.md's layer table).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence

from harness.games import Action, Rules, State
from harness.games import load as load_game
from harness.results import MatchResult


def replay_states(game: str, actions: Iterable[Action]) -> Iterator[tuple[Rules, State, Action | None, str]]:
    """A recorded game's positions through the rules: ``(rules, state, action that led there, who played it)``.

    The start comes first, with no action and ``""`` for the mover; then one
    item per action, the mover ``"player"`` (the user's side) or ``"opponent"``.

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since).
    """
    rules = load_game(game)
    state = rules.initial_state()
    yield rules, state, None, ""
    for action in actions:
        who = "player" if rules.to_move(state) == rules.user_side else "opponent"
        state = rules.apply(state, action)
        yield rules, state, action, who


def player_choices(game: str, actions: Sequence[Action],
                   opening_plies: int = 0) -> Iterator[tuple[Rules, State, Action]]:
    """The positions of a recorded game where the player chose its move, with the move it played, in order.

    The first ``opening_plies`` actions were the match's opening (random plies,
    or a suite's opening: its length is recorded), not the player's choice, so
    they are skipped (``MatchSpec.opening_plies``).

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since).
    """
    for ply, ((rules, state, _, _), action) in enumerate(zip(replay_states(game, actions), actions)):
        if ply >= opening_plies and rules.to_move(state) == rules.user_side:
            yield rules, state, action


def replay_lines(result: MatchResult) -> Iterator[str]:
    """A played match move by move: the start board, then each ply and the board after it.

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since).
    """
    for number, (rules, state, action, who) in enumerate(replay_states(result.game, result.actions)):
        if number:
            yield f"ply {number} ({who}): {json.dumps(action)}"
        yield rules.render(state)
