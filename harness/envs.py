"""Environments: a seat in one game, the same protocol for local and live play.

``LocalEnv`` plays the opponent's replies inside ``step`` exactly as the live
API does: the observation handed back is always the user's turn or a finished
game. A forced pass of the user (the only legal action is ``{"type": "pass"}``)
is resolved inside ``step`` too, as the live Totality API resolves it.

An opening (random plies, or a suite's opening: ``harness.games.openings``)
is played by both sides at ``reset``; it may end with either side to move,
and when that is the opponent, it replies before the user's first turn.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.errors import IllegalAction, InvalidInput, OpponentError, PlayerError
from harness.games import Action, Outcome, Rules, State, load as load_game
from harness.games.openings import load_suite
from players import Player, load as load_player

PASS: Action = {"type": "pass"}


@dataclass(frozen=True)
class Observation:
    """What a seat sees after ``reset`` or ``step``."""

    state: State
    legal_actions: list[Action]
    done: bool
    score: float
    outcome: Outcome | None
    info: dict[str, Any] = field(default_factory=dict)


class Environment(Protocol):
    """A seat in one game: ``reset`` starts a game, ``step`` plays one user action."""

    rules: Rules

    def reset(self, seed: int) -> Observation: ...

    def step(self, action: Action) -> Observation: ...


class LocalEnv:
    """The local rules plus an opponent player in the other seat.

    Args:
        game: a game spec (``"totality:easy"``) or loaded rules.
        opponent: the opponent's spec or player.
        opening_plies: random plies played by both sides after ``reset``
            (seeded), for variety from the fixed start positions.
        openings: an opening suite of the game, by name: ``reset(seed)``
            plays the suite's opening ``seed % len(suite)`` instead.

    Raises:
        InvalidInput: both ``opening_plies`` and ``openings``, or an unknown suite.
    """

    def __init__(self, game: str | Rules, opponent: str | Player, opening_plies: int = 0,
                 openings: str = "") -> None:
        self.rules = load_game(game) if isinstance(game, str) else game
        if openings and opening_plies:
            raise InvalidInput(f"an environment opens either from the suite {openings!r} or with "
                               f"{opening_plies} random plies, not both", parameters=("openings", "opening_plies"))
        self.suite = load_suite(self.rules.name, openings) if openings else None
        self.opponent = load_player(opponent, self.rules.name)
        self.opening_plies = opening_plies
        self.state: State = None
        self.actions: list[Action] = []
        self.opening: list[Action] = []  # the actions ``reset`` played before the opponent's first reply
        self.opponent_seconds = 0.0

    def reset(self, seed: int) -> Observation:
        """Start a new game; the opponent's randomness and the opening follow ``seed``."""
        self.opponent.reset(seed)
        self.state = self.rules.initial_state()
        self.actions = []
        self.opponent_seconds = 0.0
        if self.suite is not None:
            for action in self.suite.opening(seed):
                self._apply(action)
        else:
            opening = random.Random(f"opening:{seed}")
            for _ in range(self.opening_plies):
                if self.rules.is_terminal(self.state):
                    break
                self._apply(opening.choice(self.rules.legal_actions(self.state)))
        self.opening = list(self.actions)
        self._advance()
        return self.observe()

    def step(self, action: Action) -> Observation:
        """Apply the user's action, then the opponent's replies and forced passes.

        Raises:
            IllegalAction: the action is not legal; the state is unchanged.
            OpponentError: the opponent's player failed or replied illegally.
            IllegalAction: the game is over, or it is not the user's turn.
        """
        if self.rules.is_terminal(self.state):
            raise IllegalAction("the game is over; call reset() to start another")
        if self.rules.to_move(self.state) != self.rules.user_side:
            raise IllegalAction("it is not the user's turn")
        legal = self.rules.legal_actions(self.state)
        if action not in legal:
            raise IllegalAction(f"{action!r} is not legal here; legal actions: "
                                f"{', '.join(map(str, legal[:8]))}{' ...' if len(legal) > 8 else ''}")
        self._apply(action)
        self._advance()
        return self.observe()

    def observe(self) -> Observation:
        """The observation of the current state."""
        rules, state = self.rules, self.state
        done = rules.is_terminal(state)
        return Observation(state=state, legal_actions=[] if done else rules.legal_actions(state),
                           done=done, score=rules.score(state), outcome=rules.outcome(state))

    def _apply(self, action: Action) -> None:
        self.state = self.rules.apply(self.state, action)
        self.actions.append(action)

    def _advance(self) -> None:
        rules = self.rules
        while not rules.is_terminal(self.state):
            if rules.to_move(self.state) == rules.user_side:
                legal = rules.legal_actions(self.state)
                if legal != [PASS]:
                    return
                self._apply(PASS)
                continue
            started = time.perf_counter()
            try:
                reply = self.opponent.choose(rules, self.state)
            except PlayerError as failure:
                raise OpponentError(f"opponent {self.opponent.spec} failed: {failure}") from failure
            finally:
                self.opponent_seconds += time.perf_counter() - started
            if reply not in rules.legal_actions(self.state):
                raise OpponentError(f"opponent {self.opponent.spec} chose the illegal action {reply!r}")
            self._apply(reply)
