"""A series of local matches in this process (``harness play --games N``), recorded as a run if asked.

``harness play`` is the quick look: no Ray, one match after another. With
``--record`` the series is a run of kind ``play`` in the results database, so
``harness show``, ``harness leaderboard --run`` and ``harness serve`` see its
matches like a tournament's. The run is started only after every spec was
checked, so bad input creates nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.db import Database
from harness.errors import InvalidInput
from harness.games import load as load_game
from harness.match import MatchResult, MatchSpec, check_opening, play_match
from players.named import SpecResolver


@dataclass(frozen=True)
class Series:
    """``games`` matches of one player against one opponent on seeds ``seed_start`` onwards."""

    game: str
    player: str
    opponent: str
    seed_start: int = 0
    games: int = 1
    opening_plies: int = 0
    openings: str = ""  # an opening suite: each seed plays the suite's opening (harness.games.openings)

    def specs(self) -> list[MatchSpec]:
        """The matches, in seed order."""
        return [MatchSpec(self.game, self.player, self.opponent, seed, self.opening_plies, self.openings)
                for seed in range(self.seed_start, self.seed_start + self.games)]

    def to_dict(self) -> dict[str, Any]:
        """The run's config: plain JSON data."""
        return {"mode": "play", "game": self.game, "players": [self.player], "opponent": self.opponent,
                "seed_start": self.seed_start, "games": self.games, "opening_plies": self.opening_plies} \
            | ({"openings": self.openings} if self.openings else {})


def plan_series(game: str, player: str, opponent: str, *, seed_start: int = 0, games: int = 1,
                opening_plies: int = 0, openings: str = "", resolver: SpecResolver | None = None) -> Series:
    """Check a series' settings and canonicalise its specs (``resolver``: named players, default none).

    Raises:
        InvalidInput: an unknown game or player, a count below 1, negative opening plies, an
            unknown opening suite, or a suite with random plies.
    """
    rules = load_game(game)
    if games < 1:
        raise InvalidInput(f"games must be at least 1, got {games}", parameters=("games",))
    check_opening(rules.name, opening_plies, openings)
    resolver = resolver if resolver is not None else SpecResolver()
    player_spec, opponent_spec = (resolver.canonical(spec, rules.name) for spec in (player, opponent))
    return Series(rules.spec, player_spec, opponent_spec, seed_start, games, opening_plies, openings)


def play_series(series: Series, database: Database | None = None, name: str | None = None) -> Iterator[
        tuple[int | None, MatchResult]]:
    """Play the series one match after another, recording each into a new run when given a database.

    Yields:
        ``(run_id, result)`` per match as it ends (``run_id`` None when not recording).
        The run is marked done at the end, interrupted when the caller stops early
        or Ctrl-C arrives.
    """
    run_id = None if database is None else database.start_run("play", series.game, series.to_dict(), name=name)
    status = "interrupted"
    try:
        for spec in series.specs():
            result = play_match(spec)
            if database is not None and run_id is not None:
                database.record(run_id, result)
            yield run_id, result
        status = "done"
    finally:
        if database is not None and run_id is not None:
            database.set_run_status(run_id, status)
