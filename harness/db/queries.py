"""Leaderboard and rating queries: SQL aggregates per player, statistics in ``harness.ratings``.

The database does the counting (games, wins, draws, losses, sum and sum of
squares of the score, best, worst, live mismatches) grouped by player
configuration, so a leaderboard over millions of matches moves one row per
player to Python; ``harness.ratings`` turns the moments into intervals.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from sqlalchemy import case, func, select

from harness.db.models import MatchRow, NamedPlayerRow, PlayerRow
from harness.db.records import RANKINGS, LeaderboardRow
from harness.db.specs import canonical_game, game_condition, game_parts, spec_hash
from harness.errors import InvalidInput
from harness.ratings import Ratings, interval_from_moments, rate_matches

if TYPE_CHECKING:
    from harness.db.database import Database

# A live game's server score and ours "mismatch" when they differ by more than this.
MISMATCH_TOLERANCE = 1e-6


def canonical_player(database: Database, spec: str) -> str:
    """A player spec in canonical form, ``tuned:<name>`` aliases resolved.

    Raises:
        SpecError: an unknown alias, kind, parameter or weight.
    """
    spec = database.resolve_spec(spec, allow_engines=True)  # only read, never run
    try:
        from players import load
        return load(spec).spec
    except ImportError:  # a kind whose module is not installed: compare the text as given
        return spec


def leaderboard(database: Database, game: str, opponent: str | None = None, run: int | str | None = None,
                by: str = "mean", confidence: float = 0.95) -> list[LeaderboardRow]:
    """Per player configuration: games, W/D/L, mean score with interval, best, worst, mismatches.

    Args:
        database: the results database.
        game: a game spec; matches of exactly this configuration count
            (``totality`` is level wise, ``totality:easy`` level easy).
        opponent: only matches against this opponent (spec or ``tuned:`` alias).
        run: only matches of this run (id or name).
        by: ``mean`` ranks by mean score, ``lcb`` by the interval's lower bound.
        confidence: the intervals' two-sided confidence level.

    Returns:
        Rows ranked best first (ties: more games, then spec).

    Raises:
        InvalidInput: an unknown game, opponent, run or ranking.
    """
    if by not in RANKINGS:
        raise InvalidInput(f"unknown ranking {by!r}; valid: {', '.join(RANKINGS)}")
    win, draw, loss = (func.sum(case((MatchRow.outcome == outcome, 1), else_=0))
                       for outcome in ("win", "draw", "loss"))
    mismatch = func.sum(case((func.abs(MatchRow.server_score - MatchRow.score) > MISMATCH_TOLERANCE, 1), else_=0))
    query = (select(PlayerRow.spec, func.count(MatchRow.id), win, draw, loss, func.sum(MatchRow.score),
                    func.sum(MatchRow.score * MatchRow.score), func.max(MatchRow.score), func.min(MatchRow.score),
                    mismatch)
             .join(PlayerRow, PlayerRow.id == MatchRow.player_id)
             .where(MatchRow.game == canonical_game(game))
             .group_by(PlayerRow.spec))
    query = _filter(database, query, opponent, run)
    with database.session() as session:
        aggregates = session.execute(query).all()
        aliases = _aliases(session)
    rows = []
    for spec, games, wins, draws, losses, total, squares, best, worst, mismatches in aggregates:
        mean = total / games
        variance = (squares - games * mean * mean) / (games - 1) if games > 1 else 0.0
        mean, low, high = interval_from_moments(games, mean, max(variance, 0.0), confidence)
        rows.append(dict(player=spec, alias=aliases.get(spec), games=games, wins=int(wins), draws=int(draws),
                         losses=int(losses), mean=mean, low=low, high=high, best=float(best), worst=float(worst),
                         mismatches=int(mismatches)))
    rows.sort(key=lambda r: (-r[by if by == "mean" else "low"], -r["mean"], -r["games"], r["player"]))
    return [LeaderboardRow(rank=rank, **row) for rank, row in enumerate(rows, 1)]


def ratings(database: Database, game: str, run: int | str | None = None, confidence: float = 0.95,
            anchor: str | None = None) -> Ratings:
    """Bradley-Terry Elo of every player configuration that played ``game``.

    A bare game name pools every configuration of the game (both seats of
    Chinese chess, both Totality levels): Elo compares players, not seats.
    A spec with options (``xiangqi:black``) keeps only that configuration.

    Raises:
        InvalidInput: an unknown game, run or anchor.
    """
    opponent = PlayerRow.__table__.alias("opponent")
    query = (select(PlayerRow.spec, opponent.c.spec, MatchRow.outcome)
             .join(PlayerRow, PlayerRow.id == MatchRow.player_id)
             .join(opponent, opponent.c.id == MatchRow.opponent_id))
    query = query.where(game_condition(game, pool_configurations=True))
    query = _filter(database, query, None, run)
    with database.session() as session:
        games = [tuple(row) for row in session.execute(query)]
    if anchor is not None:
        anchor = canonical_player(database, anchor)
    return rate_matches(games, confidence=confidence, anchor=anchor)


def _filter(database: Database, query: Any, opponent: str | None, run: int | str | None) -> Any:
    if opponent is not None:
        opponent_ids = select(PlayerRow.id).where(PlayerRow.hash == spec_hash(canonical_player(database, opponent)))
        query = query.where(MatchRow.opponent_id.in_(opponent_ids.scalar_subquery()))
    if run is not None:
        query = query.where(MatchRow.run_id == database.run_id(run))
    return query


def _aliases(session: Any) -> dict[str, str]:
    """Canonical spec -> its ``tuned:`` aliases (comma separated when several)."""
    aliases: dict[str, list[str]] = {}
    for name, spec in session.execute(select(NamedPlayerRow.name, NamedPlayerRow.spec).order_by(NamedPlayerRow.name)):
        aliases.setdefault(spec, []).append(f"tuned:{name}")
    return {spec: ",".join(names) for spec, names in aliases.items()}


def json_number(value: float) -> float | None:
    """A float for JSON output: infinite and NaN become null."""
    return value if math.isfinite(value) else None


LEADERBOARD_FORMAT = "harness.leaderboard/1"
RATINGS_FORMAT = "harness.ratings/1"
LEADERBOARD_COLUMNS = ("rank", "player", "alias", "games", "wins", "draws", "losses", "mean", "low", "high",
                       "best", "worst", "mismatches")


def leaderboard_row_data(row: LeaderboardRow) -> dict[str, Any]:
    """A leaderboard row as JSON data in ``LEADERBOARD_COLUMNS`` order (infinite bounds -> null)."""
    return {column: json_number(value) if isinstance(value, float) else value
            for column, value in ((c, getattr(row, c)) for c in LEADERBOARD_COLUMNS)}


def leaderboard_document(database: Database, game: str, opponent: str | None = None,
                         run: int | str | None = None, by: str = "mean") -> dict[str, Any]:
    """The leaderboard as the stable JSON document of ``harness leaderboard --json`` (docs/db.md)."""
    rows = leaderboard(database, game, opponent=opponent, run=run, by=by)
    return {
        "format": LEADERBOARD_FORMAT,
        "game": canonical_game(game),
        "opponent": None if opponent is None else canonical_player(database, opponent),
        "run_id": None if run is None else database.run_id(run),
        "by": by,
        "confidence": 0.95,
        "rows": [leaderboard_row_data(row) for row in rows],
    }


def ratings_document(database: Database, game: str, run: int | str | None = None,
                     anchor: str | None = None) -> dict[str, Any]:
    """Bradley-Terry ratings as the stable JSON document of ``harness ratings --json`` (docs/db.md)."""
    table = ratings(database, game, run=run, anchor=anchor)
    with database.session() as session:
        aliases = _aliases(session)
    return {
        "format": RATINGS_FORMAT,
        "game": canonical_game(game) if ":" in game else game_parts(game)[0],
        "run_id": None if run is None else database.run_id(run),
        "confidence": table.confidence,
        "anchor": table.anchor,
        "prior_draws": table.prior_draws,
        "ratings": [{"rank": rank, "player": r.player, "alias": aliases.get(r.player), "elo": r.elo,
                     "low": r.low, "high": r.high, "games": r.games, "points": r.points}
                    for rank, r in enumerate(table.ratings, 1)],
    }
