"""Migrations on databases written by older revisions: 0002 removes duplicate matches and every run keeps its
games; 0003 gives named players a verdict and keeps the ones saved before it, unconfirmed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from sqlalchemy import Connection, create_engine, text

from harness.db import open_database
from harness.db.schema import alembic_config, head_revision


@contextmanager
def written_at(database_url: str, revision: str) -> Iterator[Connection]:
    """A connection to a database migrated only to ``revision``, to write rows as that revision's code did."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), revision)
            yield connection
    finally:
        engine.dispose()


def test_upgrading_a_database_with_copied_matches_keeps_one_row_per_key_and_every_run_its_games(database_url):
    with written_at(database_url, "0001") as connection:
        connection.execute(text(
            "INSERT INTO players (id, hash, kind, spec, params, created) VALUES "
            "(1, 'h1', 'random', 'random', '{}', '2026-01-01'), (2, 'h2', 'gbot', 'gbot', '{}', '2026-01-01')"))
        connection.execute(text(
            "INSERT INTO runs (id, name, kind, game, config, status, started, host, version) VALUES "
            "(1, 'first', 'study', 'totality', '{}', 'interrupted', '2026-01-01', 'h', '0'), "
            "(2, 'retry', 'study', 'totality', '{}', 'done', '2026-01-01', 'h', '0'), "
            "(3, 'again', 'tournament', 'totality', '{}', 'done', '2026-01-01', 'h', '0')"))
        # seeds 0-2 played by run 1; run 2 copied 0 and 1 and played 3; run 3 replayed 0
        rows = [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 3), (3, 0)]
        for number, (run_id, seed) in enumerate(rows, 1):
            connection.execute(text(
                "INSERT INTO matches (id, run_id, key, game, game_name, seed, opening_plies, player_id, "
                "opponent_id, outcome, reason, score, counters, plies, actions, duration_s, player_s, "
                "opponent_s, source, extra, recorded) VALUES (:id, :run, :key, 'totality', 'totality', :seed, 0, "
                "1, 2, 'win', 'test', :score, '{}', 2, '[]', 0.1, 0.1, 0.1, 'local', '{}', '2026-01-01')"),
                dict(id=number, run=run_id, key=f"k{seed}", seed=seed, score=float(seed)))

    with open_database(database_url) as db:
        assert db.schema_differences() == []
        assert db.count_matches() == 4  # k0..k3, once each
        assert sorted(m.id for m in db.matches()) == [1, 2, 3, 6]  # the first row of each key is kept
        assert {run: sorted(m.seed for m in db.matches(run_id=run)) for run in (1, 2, 3)} == {
            1: [0, 1, 2], 2: [0, 1, 3], 3: [0]}
        assert [row.games for row in db.leaderboard("totality")] == [4]
        assert [row.games for row in db.leaderboard("totality", run_id=2)] == [3]


def test_upgrading_a_database_made_at_0002_keeps_its_named_players_unconfirmed(database_url):
    with written_at(database_url, "0002") as connection:
        connection.execute(text(
            "INSERT INTO named_players (id, name, spec, game, note, created) VALUES "
            "(1, 'demo', 'alphabeta:depth=2,w.corners=3', 'totality', 'study demo, trial 13', '2026-01-01'), "
            "(2, 'by-hand', 'greedy', 'ravenward', '', '2026-01-01')"))

    with open_database(database_url) as db:
        assert db.revision() == head_revision() and db.schema_differences() == []
        assert [(p.name, p.spec, p.game, p.note, p.verdict, p.detail) for p in db.named_player_records()] == [
            ("by-hand", "greedy", "ravenward", "", None, ""),
            ("demo", "alphabeta:depth=2,w.corners=3", "totality", "study demo, trial 13", None, "")]
        assert db.resolve_spec("tuned:demo") == "alphabeta:depth=2,w.corners=3"
