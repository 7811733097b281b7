"""Database fixtures: every test runs on SQLite, and on PostgreSQL when HARNESS_TEST_PG is set.

Each test gets a fresh database: a new SQLite file, or a new PostgreSQL schema
(selected through the connection's search_path) dropped afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from harness.db import Database, open_database
from harness.db.database import scratch_database
from harness.match import MatchResult

PG_URL = os.environ.get("HARNESS_TEST_PG")
BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """The URL of a fresh, empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'harness.db'}"
        return
    with scratch_database(PG_URL) as url:
        yield url


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    """An open database with the schema at head."""
    database = open_database(database_url)
    yield database
    database.close()


def make_result(player: str = "random", opponent: str = "gbot", seed: int = 0, *, game: str = "totality",
                outcome: str = "win", score: float = 1.0, key: str | None = None, **fields) -> MatchResult:
    """A MatchResult as a driver would hand it over (the key defaults to a function of the rest)."""
    values = dict(game=game, player=player, opponent=opponent, seed=seed, outcome=outcome, reason="test",
                  score=score, counters={"ply": 2}, actions=[{"type": "pass"}, {"type": "pass"}], plies=2,
                  duration_s=0.25, player_s=0.125, opponent_s=0.0625,
                  key=key or f"{game}|{player}|{opponent}|{seed}")
    values.update(fields)
    return MatchResult(**values)


@pytest.fixture(name="make_result")
def make_result_fixture():
    """The ``make_result`` factory."""
    return make_result
