"""Database fixtures: every test runs on SQLite, and on PostgreSQL when HARNESS_TEST_PG is set.

Each test gets a fresh database: a new SQLite file, or a new PostgreSQL schema
(selected through the connection's search_path) dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from harness.db import Database, open_database

PG_URL = os.environ.get("HARNESS_TEST_PG")
BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """The URL of a fresh, empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'harness.db'}"
        return
    schema = f"test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    """An open database with the schema at head."""
    database = open_database(database_url)
    yield database
    database.close()
