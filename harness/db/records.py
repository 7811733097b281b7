"""Frozen records handed out by the database: plain values, no live ORM objects."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from harness.results import MatchResult

RUN_KINDS = ("tournament", "study", "live", "play", "import")
RUN_STATUSES = ("running", "done", "interrupted", "failed")
RANKINGS = ("mean", "lcb")


@dataclass(frozen=True)
class RunRecord:
    """One run of work as stored."""

    id: int
    name: str | None
    kind: str
    game: str
    config: dict[str, Any]
    status: str
    started: datetime
    ended: datetime | None
    study: str | None
    trial: int | None
    host: str = ""
    version: str = ""


@dataclass(frozen=True)
class RunSummary:
    """A run with what it holds: matches recorded (of how many planned), their mean score, when."""

    run: RunRecord
    matches: int
    planned: int | None        # matches the run's plan holds; None when the run does not say
    mean_score: float | None   # over its recorded matches; None when there are none
    first_recorded: datetime | None
    last_recorded: datetime | None

    @property
    def rate(self) -> float | None:
        """Matches per second between the run's start and its last recorded match (None before one)."""
        if self.last_recorded is None or self.matches == 0:
            return None
        seconds = (self.last_recorded - self.run.started).total_seconds()
        return self.matches / seconds if seconds > 0 else None


@dataclass(frozen=True)
class NamedPlayerRecord:
    """A named player (``tuned:<name>``, ``fitted:<name>``) as stored: the spec it names, its game, where it
    came from (``kind``, and in words ``note``), its verdict.

    ``verdict`` is one of ``harness.verdicts.VERDICTS``, or None for a player
    no confirmation stands behind (shown as unconfirmed); ``detail`` is the
    confirmation's evidence in a few words, empty when there is none.
    """

    name: str
    spec: str
    game: str
    note: str
    created: datetime | None
    verdict: str | None = None
    detail: str = ""
    kind: str = "tuned"

    @property
    def alias(self) -> str:
        """The name as a player spec names it: ``<kind>:<name>``."""
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True, kw_only=True)
class MatchRecord(MatchResult):
    """A recorded match: its row id and run beside every ``MatchResult`` field."""

    id: int
    run_id: int
    recorded: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data, like ``MatchResult.to_dict`` (the time as ISO 8601 text)."""
        data = super().to_dict()
        data["recorded"] = None if self.recorded is None else self.recorded.isoformat()
        return data

    def to_result(self) -> MatchResult:
        """The plain ``MatchResult`` this record holds."""
        return MatchResult(**{f.name: getattr(self, f.name) for f in fields(MatchResult)})


@dataclass(frozen=True)
class LeaderboardRow:
    """One player configuration's results in a leaderboard.

    ``low``/``high`` bound the mean score with 95% confidence, always within
    the game's score bounds (with a single game they are the bounds);
    see ``harness.ratings.bounded_interval_from_moments``. ``mismatches`` counts live games
    whose server score differs from the locally computed score. ``verdict``
    is the study's verdict of each ``tuned:`` alias in ``alias``, comma
    separated in the same order (``unconfirmed`` for one without a verdict).
    """

    rank: int
    player: str
    alias: str | None
    games: int
    wins: int
    draws: int
    losses: int
    mean: float
    low: float
    high: float
    best: float
    worst: float
    mismatches: int
    verdict: str | None = None  # None without an alias


@dataclass(frozen=True)
class LiveGameRecord:
    """A live game's last saved state."""

    id: int
    run_id: int
    key: str
    game: str
    seed: int
    player: str
    server_state: Any
    actions: list[Any]
    status: str
    error: str | None
    server_score: float | None
    updated: datetime
