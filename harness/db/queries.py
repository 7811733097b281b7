"""Leaderboard and rating queries: SQL aggregates per player, statistics in ``harness.ratings``.

Every row of ``matches`` is a distinct match (its key is unique), so each
count below counts each match once, however many runs hold it.

The database does the counting (games, wins, draws, losses, sum and sum of
squares of the score, best, worst, live mismatches) grouped by player
configuration, so a leaderboard over millions of matches moves one row per
player to Python; ``harness.ratings`` turns the moments into intervals.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from sqlalchemy import case, func, select

from harness import spec_forms
from harness.db.models import MatchRow, NamedPlayerRow, PlayerRow, RunMatchRow
from harness.db.records import RANKINGS, LeaderboardRow
from harness.db.specs import canonical_game, game_condition, game_parts, spec_hash
from harness.errors import InvalidInput
from harness.games import load as load_game
from harness.ratings import Ratings, bounded_interval_from_moments, rate_matches
from harness.verdicts import shown_verdict

if TYPE_CHECKING:
    from harness.db.database import Database

# A live game's server score and ours "mismatch" when they differ by more than this.
MISMATCH_TOLERANCE = 1e-6


def canonical_player(database: Database, spec: str) -> str:
    """A player spec in canonical form, ``tuned:<name>`` aliases resolved.

    The form is the players' (``harness.spec_forms``, registered by the
    players when loaded): the database never imports them.

    Raises:
        SpecError: an unknown alias, kind, parameter or weight.
    """
    spec = database.resolve_spec(spec, allow_engines=True)  # only read, never run
    try:
        return spec_forms.canonical_player(spec)
    except ImportError:  # a kind whose module is not installed: compare the text as given
        return spec


def leaderboard(database: Database, game: str, opponent: str | None = None, run: int | str | None = None,
                by: str = "mean", confidence: float = 0.95) -> list[LeaderboardRow]:
    """Per player configuration: games, W/D/L, mean score with interval, best, worst, mismatches.

    The interval of each mean lies within the game's score bounds
    (``Rules.score_bounds``): Wilson for a score that only takes its two
    bounds, else Student t clipped to the bounds (``harness.ratings``).

    Args:
        database: the results database.
        game: a game spec; matches of exactly this configuration count
            (``totality`` is level wise, ``totality:easy`` level easy).
        opponent: only matches against this opponent (a canonical spec or a ``tuned:`` alias).
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
    query = _filter(database, query, opponent, run, game)
    with database.session() as session:
        aggregates = session.execute(query).all()
        aliases = _aliases(session)
    bounds = load_game(game).score_bounds()
    rows = []
    for spec, games, wins, draws, losses, total, squares, best, worst, mismatches in aggregates:
        mean, low, high = bounded_interval_from_moments(games, float(total), float(squares), bounds, confidence)
        alias, verdict = aliases.get(spec, (None, None))
        rows.append(dict(player=spec, alias=alias, games=games, wins=int(wins), draws=int(draws),
                         losses=int(losses), mean=mean, low=low, high=high, best=float(best), worst=float(worst),
                         mismatches=int(mismatches), verdict=verdict))
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
    query = _filter(database, query, None, run, game, pool_configurations=True)
    with database.session() as session:
        games = [tuple(row) for row in session.execute(query)]
    if anchor is not None:
        anchor = canonical_player(database, anchor)
    return rate_matches(games, confidence=confidence, anchor=anchor)


def check_run_game(database: Database, run: int | str, game: str, pool_configurations: bool = False) -> int:
    """The run's id, after checking that it played ``game`` (its configuration, or any with pooling).

    Raises:
        InvalidInput: no such run, or a run of another game or configuration.
    """
    record = database.run(run)
    if record is None:
        database.run_id(run)  # raises the message naming harness runs
    assert record is not None
    played = canonical_game(record.game)
    if record.kind == "import" and game_parts(game)[0] == game_parts(played)[0]:
        return record.id  # an imported file may hold every configuration of its game (both seats)
    if pool_configurations and ":" not in game:
        wanted, same = game_parts(game)[0], game_parts(played)[0] == game_parts(game)[0]
    else:
        wanted = canonical_game(game)
        same = played == wanted
    if not same:
        raise InvalidInput(f"run {record.id} is a {played} run, not {wanted}; "
                           "harness runs lists every run with its game")
    return record.id


def empty_message(game: str | None, opponent: str | None = None, run: int | str | None = None) -> str:
    """The one line saying that nothing matches a query (instead of an empty table)."""
    where = "".join([f" against {opponent}" if opponent else "", f" in run {run}" if run is not None else ""])
    return (f"no {game + ' ' if game else ''}matches recorded{where} yet; harness runs lists what is recorded, "
            "harness tournament and harness play --record add matches")


def _filter(database: Database, query: Any, opponent: str | None, run: int | str | None,
            game: str | None = None, pool_configurations: bool = False) -> Any:
    if run is not None and game is not None:
        run = check_run_game(database, run, game, pool_configurations)
    if opponent is not None:
        opponent_ids = select(PlayerRow.id).where(PlayerRow.hash == spec_hash(canonical_player(database, opponent)))
        query = query.where(MatchRow.opponent_id.in_(opponent_ids.scalar_subquery()))
    if run is not None:
        held = select(RunMatchRow.match_id).where(RunMatchRow.run_id == database.run_id(run))
        query = query.where(MatchRow.id.in_(held))
    return query


def _aliases(session: Any) -> dict[str, tuple[str, str]]:
    """Canonical spec -> its ``tuned:`` aliases and their verdicts, each comma separated in the same order.

    A verdict is the study's (``better``, ``no gain``, ``worse``), ``unconfirmed`` for an alias without one.
    """
    aliases: dict[str, list[tuple[str, str]]] = {}
    query = (select(NamedPlayerRow.name, NamedPlayerRow.spec, NamedPlayerRow.verdict, NamedPlayerRow.kind)
             .order_by(NamedPlayerRow.name))
    for name, spec, verdict, kind in session.execute(query):
        aliases.setdefault(spec, []).append((f"{kind}:{name}", shown_verdict(verdict)))
    return {spec: (",".join(name for name, _ in named), ",".join(verdict for _, verdict in named))
            for spec, named in aliases.items()}


def json_number(value: float) -> float | None:
    """A float for JSON output: infinite and NaN become null."""
    return value if math.isfinite(value) else None


LEADERBOARD_FORMAT = "harness.leaderboard/1"
RATINGS_FORMAT = "harness.ratings/1"
LEADERBOARD_COLUMNS = ("rank", "player", "alias", "games", "wins", "draws", "losses", "mean", "low", "high",
                       "best", "worst", "mismatches", "verdict")  # new columns go last: CSV readers count them


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
    rows = []
    for rank, r in enumerate(table.ratings, 1):
        alias, verdict = aliases.get(r.player, (None, None))
        rows.append({"rank": rank, "player": r.player, "alias": alias, "elo": r.elo, "low": r.low, "high": r.high,
                     "games": r.games, "points": r.points, "verdict": verdict})
    return {
        "format": RATINGS_FORMAT,
        "game": canonical_game(game) if ":" in game else game_parts(game)[0],
        "run_id": None if run is None else database.run_id(run),
        "confidence": table.confidence,
        "anchor": table.anchor,
        "prior_draws": table.prior_draws,
        "ratings": rows,
    }


RUNS_FORMAT = "harness.runs/1"
PLAYERS_FORMAT = "harness.players/1"


def run_summary_data(summary: Any) -> dict[str, Any]:
    """One run of ``harness runs --json``: the run, its progress and its mean score (docs/db.md)."""
    run = summary.run
    rate = summary.rate
    return {"id": run.id, "name": run.name, "kind": run.kind, "game": run.game, "status": run.status,
            "started": run.started.isoformat(), "ended": None if run.ended is None else run.ended.isoformat(),
            "matches": summary.matches, "planned": summary.planned,
            "mean_score": None if summary.mean_score is None else json_number(summary.mean_score),
            "games_per_s": None if rate is None else round(rate, 3), "study": run.study, "trial": run.trial,
            "host": run.host, "version": run.version, "config": run.config}


def runs_document(database: Database, kind: str | None = None, game: str | None = None,
                  run: int | str | None = None) -> dict[str, Any]:
    """The runs as the stable JSON document of ``harness runs --json`` (docs/db.md)."""
    summaries = database.run_summaries(kind=kind, game=game, run=run)
    return {"format": RUNS_FORMAT, "kind": kind, "game": game,
            "runs": [run_summary_data(summary) for summary in summaries]}


def players_document(database: Database) -> dict[str, Any]:
    """The named players as the stable JSON document of ``harness players --json`` (docs/db.md).

    One key per kind of named player (``tuned``: studies'; ``fitted``:
    ``harness fit``'s), so a kind can be added without changing what a key means.
    """
    sections: dict[str, list[dict[str, Any]]] = {"tuned": [], "fitted": []}
    for p in database.named_player_records():
        sections[p.kind].append({"name": p.alias, "spec": p.spec, "game": p.game, "note": p.note,
                                 "created": None if p.created is None else p.created.isoformat(),
                                 "verdict": shown_verdict(p.verdict), "verdict_detail": p.detail})
    return {"format": PLAYERS_FORMAT, **sections}


def game_counts(database: Database) -> dict[str, int]:
    """Recorded matches per game configuration (canonical spec), sorted by spec."""
    with database.session() as session:
        rows = session.execute(select(MatchRow.game, func.count(MatchRow.id)).group_by(MatchRow.game)).all()
    return {game: int(count) for game, count in sorted(rows)}


def opponents(database: Database, game: str) -> list[str]:
    """The opponents that played a game configuration, as canonical specs, sorted."""
    query = (select(PlayerRow.spec).join(MatchRow, MatchRow.opponent_id == PlayerRow.id)
             .where(MatchRow.game == canonical_game(game)).distinct())
    with database.session() as session:
        return sorted(session.scalars(query))
