"""One match: a pure function of its spec, ``play_match(spec) -> MatchResult``.

The player sits in the user's seat of the game (the King's side, the Sun, or
the configured Chinese chess seat); the opponent in the other. A player that
fails (an external engine that crashes, times out or answers garbage, or an
illegal action) loses the match with reason ``player_error``; an opponent that
fails loses it for its side with reason ``opponent_error``. Nothing else fails.

``MatchResult`` and the key's format live in ``harness.results`` (plain values
the database shares without importing this module), the replay of a recorded
action list in ``harness.replay``; both are re-exported here, where callers
have always found them.

A match's opening is either ``opening_plies`` random plies (seeded) or, with
``openings`` naming a suite (``harness.games.openings``), the suite's opening
that the seed picks; the recorded ``opening_plies`` is then the opening's
length, so a replay still skips what the player did not choose, and
``extra["openings"]`` names the suite.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.envs import LocalEnv
from harness.errors import IllegalAction, InvalidInput, OpponentError, PlayerError
from harness.games import load as load_game
from harness.games.openings import load_suite
from harness.replay import replay_lines
from harness.results import MatchResult, canonical_match_key
from players import canonical as canonical_player, load as load_player

__all__ = ["MatchResult", "MatchSpec", "build_result", "canonical_match_key", "match_key", "play_match",
           "check_opening", "recorded_spec", "replay_lines"]


@dataclass(frozen=True)
class MatchSpec:
    """Everything that decides a match; equal specs play identical matches."""

    game: str
    player: str
    opponent: str
    seed: int
    opening_plies: int = 0
    openings: str = ""  # an opening suite's name: the seed picks its opening; "" plays opening_plies

    def __post_init__(self) -> None:
        if self.openings and self.opening_plies:
            raise InvalidInput(f"a match opens either from the suite {self.openings!r} or with "
                               f"{self.opening_plies} random plies, not both: give openings or opening_plies",
                               parameters=("openings", "opening_plies"))

    @property
    def key(self) -> str:
        """Deterministic key of this match: the same spec always gives the same key."""
        return match_key(self)


def check_opening(game: str, opening_plies: int = 0, openings: str = "") -> None:
    """Check how a plan's matches open, before anything is stored: bad input now rather than at play.

    Raises:
        InvalidInput: negative ``opening_plies``, both a suite and random plies, or a suite ``game``
            (a game spec) does not have.
    """
    if opening_plies < 0:
        raise InvalidInput(f"opening_plies must not be negative, got {opening_plies}", parameters=("opening_plies",))
    if openings and opening_plies:
        raise InvalidInput("give openings (a suite) or opening_plies (random plies), not both",
                           parameters=("openings", "opening_plies"))
    if openings:
        load_suite(game, openings)


def match_key(spec: MatchSpec) -> str:
    """A short stable hash of the canonical spec, unique per distinct match in a run.

    Every spelling of the same match (``totality:easy``, ``totality:level=easy``)
    gives the same key: the specs are canonicalised first, then hashed by
    ``harness.results.canonical_match_key``.

    Raises:
        InvalidInput: an unknown game, player or opening suite.
    """
    rules = load_game(spec.game)
    if spec.openings:
        load_suite(rules.name, spec.openings)  # an unknown suite is bad input before any match is planned
    return canonical_match_key(rules.spec, canonical_player(spec.player), canonical_player(spec.opponent),
                               spec.seed, spec.opening_plies, spec.openings)


def recorded_spec(result: Mapping[str, Any]) -> MatchSpec:
    """The spec a recorded match (``MatchResult.to_dict()``) was played from, so its key can be made again.

    A match from a suite recorded the opening's length as ``opening_plies``
    and the suite in ``extra["openings"]``; its spec has the suite and no
    random plies.
    """
    openings = (result.get("extra") or {}).get("openings", "")
    return MatchSpec(result["game"], result["player"], result["opponent"], result["seed"],
                     0 if openings else result.get("opening_plies", 0), openings)


def build_result(rules: Any, state: Any, *, player: str, opponent: str, seed: int, actions: Any,
                 outcome: tuple[str, str], started: float, player_s: float, opponent_s: float, key: str,
                 error: str | None = None, score: float | None = None, counters: dict[str, int] | None = None,
                 **fields: Any) -> MatchResult:
    """The one place a ``MatchResult`` is made, for local, Gameboard and seat play alike.

    The score and counters come from the rules at ``state`` (the score is 0
    for a match that ended in error) unless given; ``counters`` are added to
    the rules' own; ``fields`` are the remaining ``MatchResult`` fields
    (``source``, ``server_score``, ``extra``, ``opening_plies``).
    """
    if score is None:
        score = rules.score(state) if error is None and state is not None else 0.0
    own = rules.counters(state) if state is not None else {}
    actions = list(actions)
    return MatchResult(
        game=rules.spec, player=player, opponent=opponent, seed=seed, outcome=outcome[0], reason=outcome[1],
        score=score, counters={**own, **(counters or {})}, actions=actions, plies=len(actions),
        duration_s=time.perf_counter() - started, player_s=player_s, opponent_s=opponent_s, key=key,
        error=error, **fields)


def play_match(spec: MatchSpec) -> MatchResult:
    """Play one match locally and return its result."""
    started = time.perf_counter()
    rules = load_game(spec.game)
    player = load_player(spec.player, rules.name)
    env = LocalEnv(rules, spec.opponent, opening_plies=spec.opening_plies, openings=spec.openings)
    player.reset(spec.seed)
    player_s = 0.0
    error: str | None = None
    outcome: tuple[str, str] | None = None
    try:
        observation = env.reset(spec.seed)
        while not observation.done:
            move_started = time.perf_counter()
            try:
                action = player.choose(rules, observation.state)
            finally:
                player_s += time.perf_counter() - move_started
            try:
                observation = env.step(action)
            except IllegalAction as illegal:
                raise PlayerError(f"illegal action {action!r}: {illegal}") from illegal
        outcome = observation.outcome
    except OpponentError as failure:
        error, outcome = str(failure), ("win", "opponent_error")
    except PlayerError as failure:
        error, outcome = str(failure), ("loss", "player_error")
    finally:
        player.close()
        env.opponent.close()
    # The game's counters, then the players' own figures (a UCI engine's nodes) by seat.
    counters = ({f"player_{k}": v for k, v in player.stats().items()}
                | {f"opponent_{k}": v for k, v in env.opponent.stats().items()})
    return build_result(rules, env.state, player=player.spec, opponent=env.opponent.spec, seed=spec.seed,
                        actions=env.actions, outcome=outcome, started=started, player_s=player_s,
                        opponent_s=env.opponent_seconds, key=match_key(spec), error=error, counters=counters,
                        opening_plies=len(env.opening) if spec.openings else spec.opening_plies,
                        extra={"openings": spec.openings} if spec.openings else {})
