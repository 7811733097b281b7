"""A study on PostgreSQL: the same trials and outcome as on SQLite.

On PostgreSQL when HARNESS_TEST_PG is set (CI sets it), always on SQLite. A
study has one driver at a time (its lease, ``tests/test_tuning.py``); what two
machines share is the database, so the outcome must not depend on which one.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cluster import InProcessPool
from harness.tuning import parse_study_file, study_trials, tune
from harness.db import open_database
from tests.tuning_studies import tiny_study

PG_URL = os.environ.get("HARNESS_TEST_PG")


@pytest.fixture(params=["sqlite"] + (["postgresql"] if PG_URL else []))
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database: a SQLite file, or a new PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'harness.db'}"
        return
    import psycopg
    schema = f"tuning_{uuid.uuid4().hex[:12]}"
    plain = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{separator}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(plain, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_a_study_gives_the_same_trials_and_outcome_on_every_database(database_url: str, tmp_path: Path) -> None:
    """The outcome depends only on the study file: on PostgreSQL (a server, row locks, its own float
    and JSON types) as on a SQLite file, trial for trial."""
    config = parse_study_file(tiny_study("shared", trials=4))
    reference = f"sqlite:///{tmp_path / 'reference.db'}"
    with InProcessPool() as pool:
        expected = tune(config, db_url=reference, pool=pool)
        summary = tune(config, db_url=database_url, pool=pool)
    keep = ("number", "state", "value", "params", "intermediate", "spec")
    assert ([{k: t[k] for k in keep} for t in study_trials("shared", database_url)]
            == [{k: t[k] for k in keep} for t in study_trials("shared", reference)])
    assert summary.outcome == expected.outcome
    with open_database(database_url) as db:
        recorded = sorted(r.trial for r in db.runs(kind="study") if r.study == "shared" and r.trial is not None)
    assert recorded == [0, 1, 2, 3]
