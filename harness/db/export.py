"""Recorded matches out of the database: JSON lines for other tools, text boards for people.

An export line carries every action of both sides in order, in the live API's
action JSON, and the game with all of its options spelled out
(``totality:level=wise``, ``xiangqi:legality=strict,seat=red``), so anyone
can replay a recorded match with another engine without knowing our
defaults. The keys are documented in docs/db.md and only ever added to.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from harness.db.queries import check_run_game
from harness.db.records import MatchRecord
from harness.db.specs import explicit_game
from harness.replay import replay_lines

if TYPE_CHECKING:
    from harness.db.database import Database


def export_line(record: MatchRecord) -> dict[str, Any]:
    """One recorded match as plain JSON data (one line of ``harness export``).

    ``openings`` (the opening suite) is there only for a match played from one,
    so the lines of every other match stay as they were. The times and ``extra``
    make a line whole: ``harness db import`` loads it back as the match it was.
    """
    suite = (record.extra or {}).get("openings")
    return {
        "match_id": record.id,
        "run_id": record.run_id,
        "key": record.key,
        "game": explicit_game(record.game),
        "player": record.player,
        "opponent": record.opponent,
        "seed": record.seed,
        "opening_plies": record.opening_plies,
        "outcome": record.outcome,
        "reason": record.reason,
        "score": record.score,
        "server_score": record.server_score,
        "counters": record.counters,
        "plies": record.plies,
        "source": record.source,
        "error": record.error,
        "duration_s": record.duration_s,
        "player_s": record.player_s,
        "opponent_s": record.opponent_s,
        "extra": record.extra or {},
        "actions": record.actions,
    } | ({"openings": suite} if suite else {})


def export_lines(database: Database, game: str | None = None, run: int | str | None = None) -> Iterator[str]:
    """JSON lines of the recorded matches, oldest first.

    Args:
        database: the results database.
        game: a game name (every configuration) or a spec with options (that one).
        run: a run id or name.

    Raises:
        InvalidInput: an unknown game or run, or a run of another game.
    """
    if run is None:
        run_id = None
    else:
        run_id = database.run_id(run) if game is None else check_run_game(database, run, game, pool_configurations=True)
    for record in database.iter_matches(run_id=run_id, game=game, pool_configurations=True):
        yield json.dumps(export_line(record), separators=(",", ":"))


def replay_boards(record: MatchRecord) -> Iterator[str]:
    """A recorded match move by move: a header, the start board, each ply and its board, the result.

    Raises:
        IllegalAction: a recorded action is not legal (the engine changed since).
    """
    yield (f"match {record.id} (run {record.run_id}): {explicit_game(record.game)}, "
           f"{record.player} vs {record.opponent}, seed {record.seed}")
    yield from replay_lines(record)
    server = "" if record.server_score is None else f", server score {record.server_score:g}"
    yield f"result: {record.outcome} ({record.reason}), score {record.score:g}{server}, {record.plies} plies"
