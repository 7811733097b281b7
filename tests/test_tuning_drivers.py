"""Two drivers on one study cooperate through the shared storage: distinct trials, one budget.

On PostgreSQL when HARNESS_TEST_PG is set (CI sets it), always on SQLite.
The drivers run in two threads of this process, each with its own database
handles, Optuna storage and Ray pool: everything they share goes through the
database, exactly as for two machines.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.cluster import Pool, ray_session
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


@pytest.fixture(scope="module")
def pools() -> Iterator[tuple[Pool, Pool]]:
    with ray_session(num_cpus=2), Pool(workers=1) as first, Pool(workers=1) as second:
        yield first, second


def test_two_drivers_on_one_study_run_distinct_trials_within_one_budget(
        database_url: str, pools: tuple[Pool, Pool]) -> None:
    # enough trials that the whole budget outlasts one driver starting a second or two after
    # the other on a busy machine (six took three seconds, and one driver once ran them all)
    config = parse_study_file(tiny_study("shared", trials=16, sampler='"tpe"'))
    # the database exists before the drivers start (harness db upgrade): two connections
    # switching a brand-new SQLite file to WAL at the same instant can find it locked
    open_database(database_url).close()
    with ThreadPoolExecutor(2) as executor:
        runs = [executor.submit(tune, config, db_url=database_url, pool=pool,
                                validate_best=False) for pool in pools]
        summaries = [run.result(timeout=300) for run in runs]
    trials = study_trials("shared", database_url)
    finished = [t for t in trials if t["state"] in ("complete", "pruned")]
    assert 16 <= len(finished) <= 17  # each driver checks the budget before it asks: at most one over
    assert len({t["number"] for t in trials}) == len(trials)
    assert len({t["driver"] for t in finished}) == 2, "both drivers ran trials"
    assert all(s.study == "shared" for s in summaries)
    with open_database(database_url) as db:
        recorded = sorted(r.trial for r in db.runs(kind="study") if r.study == "shared")
    # every trial's games in its own run; on SQLite (no row locks) both drivers may take the one
    # enqueued baseline trial, and the one that finds it finished drops its copy
    numbers = [t["number"] for t in trials]
    assert (sorted(set(recorded)) if database_url.startswith("sqlite") else recorded) == numbers
