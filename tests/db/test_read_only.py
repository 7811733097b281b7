"""Reading never writes: the reading commands and ``harness serve`` open the database read-only and never migrate.

SQLite: the file's bytes and modification time are the same after every
reading command. PostgreSQL: a role that may only SELECT (the ``viewer`` role
of docs/db.md) runs every reading command and the web view, and the
database's rows are the same afterwards. A file holding another program's
tables is refused, untouched, by every command; a database at an older
harness schema is refused by readers with one line naming ``harness db upgrade``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url

from harness.cli import main
from harness.db import open_database
from harness.db.schema import alembic_config, head_revision
from harness.tuning.adapter import open_study
from harness.tuning.studyfile import parse_study_file
from harness.web import WebServer, create_app
from tests.tuning_studies import tiny_study

STUDY = "readable"
WEB_PAGES = ("/", "/runs", "/studies", "/games/totality", "/api/games/totality/leaderboard", "/api/runs",
             "/api/studies", "/players")


def reading_commands(out: Path) -> list[list[str]]:
    """Every reading command with arguments that make it read (the recorded run is 1, its first match 1)."""
    return [["leaderboard", "totality"], ["ratings", "totality"], ["runs"], ["studies"], ["players"],
            ["show", "1"], ["export"], ["report", STUDY, "--out", str(out / "report.html")], ["ladder", "1"]]


def fill(url: str) -> None:
    """Recorded matches of a run, and a study with one pruned trial that a recorded run names."""
    assert main(["play", "totality", "--player", "random", "--opponent", "random", "--games", "2", "--record",
                 "--db", url]) == 0
    config = parse_study_file(tiny_study(STUDY))
    study = open_study(config, url)
    trial = study.ask(config, 0)
    trial.report(10.0, 0)
    trial.set_attr("games", 2)
    study.tell_pruned(trial)
    with open_database(url) as database:
        database.start_run("study", config.games_label, {}, study=STUDY, trial=0)


def serve_pages(url: str) -> None:
    """Every listed page of ``harness serve`` over loopback answers 200."""
    server = WebServer(create_app(url), port=0).start()
    try:
        for page in WEB_PAGES:
            with urllib.request.urlopen(server.url + page) as answer:
                assert answer.status == 200, page
    finally:
        server.stop()


def file_state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_reading_commands_and_serve_leave_the_sqlite_file_unchanged(tmp_path, capsys):
    path = tmp_path / "harness.db"
    url = f"sqlite:///{path}"
    fill(url)
    before = file_state(path)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    for argv in reading_commands(tmp_path):
        assert main([*argv, "--db", url]) == 0, (argv, capsys.readouterr().err)
        assert file_state(path) == before, argv
    serve_pages(url)
    assert file_state(path) == before


def test_a_reading_command_creates_no_database(tmp_path, capsys):
    for argv in reading_commands(tmp_path):
        assert main([*argv, "--db", f"sqlite:///{tmp_path / 'missing.db'}"]) == 2, argv
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "missing.db").exists()


WRITING_COMMANDS = (
    ["play", "totality", "--player", "random", "--opponent", "random", "--record"],
    ["tournament", "totality", "--player", "random", "--opponent", "random", "--games", "1", "--workers", "1"],
    ["db", "upgrade"],
    ["fit", "totality"],
)


def test_every_command_refuses_a_file_of_another_program_untouched(tmp_path, capsys):
    path = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.execute("INSERT INTO notes VALUES ('mine')")
        connection.commit()
    before = file_state(path)
    study_file = tmp_path / "study.toml"
    study_file.write_text(tiny_study("other", trials=1))
    commands = [*reading_commands(tmp_path), *WRITING_COMMANDS, ["tune", str(study_file)]]
    for argv in commands:
        capsys.readouterr()
        assert main([*argv, "--db", f"sqlite:///{path}"]) == 2, argv
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and "not a harness results database" in error[0] and "notes" in error[0], argv
        assert file_state(path) == before, argv
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db", "study.toml"]  # no -wal, -shm, report
    with pytest.raises(Exception, match="not a harness results database"):
        create_app(f"sqlite:///{path}")


def migrated_to(url: str, revision: str) -> None:
    from alembic import command
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), revision)
    finally:
        engine.dispose()


def test_an_older_schema_is_refused_by_readers_until_db_upgrade(tmp_path, capsys):
    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    migrated_to(url, "0003")
    before = file_state(path)
    for argv in reading_commands(tmp_path):
        capsys.readouterr()
        assert main([*argv, "--db", url]) == 2, argv
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and "revision 0003" in error[0] and "harness db upgrade" in error[0], argv
        assert file_state(path) == before, argv
    assert main(["db", "upgrade", "--db", url]) == 0
    assert f"schema at revision {head_revision()}" in capsys.readouterr().out
    assert main(["runs", "--db", url]) == 0


PG_URL = os.environ.get("HARNESS_TEST_PG")


@contextlib.contextmanager
def viewer_role(url: str) -> Iterator[str]:
    """The ``viewer`` role of docs/db.md on the scratch schema of ``url``: it may connect and SELECT, nothing more.

    Role names are global to the server, so the test's viewer carries a unique suffix. Yields its URL.
    """
    parsed = make_url(url)
    schema = parsed.query["options"].removeprefix("-csearch_path=")
    role, password = f"viewer_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    admin = create_engine(url)
    statements = [f"CREATE ROLE {role} LOGIN PASSWORD '{password}'",
                  f'GRANT CONNECT ON DATABASE "{parsed.database}" TO {role}',
                  f'GRANT USAGE ON SCHEMA "{schema}" TO {role}',
                  f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {role}']
    try:
        with admin.begin() as connection:
            for statement in statements:
                connection.exec_driver_sql(statement)
        yield parsed.set(username=role, password=password).render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{schema}" FROM {role}')
            connection.exec_driver_sql(f'REVOKE ALL ON SCHEMA "{schema}" FROM {role}')
            connection.exec_driver_sql(f'REVOKE ALL ON DATABASE "{parsed.database}" FROM {role}')
            connection.exec_driver_sql(f"DROP ROLE {role}")
        admin.dispose()


def table_contents(url: str) -> dict[str, list[tuple]]:
    """Every row of every table of the scratch schema, sorted (what a write would change)."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = [name for (name,) in connection.exec_driver_sql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")]
            return {table: sorted(map(tuple, connection.exec_driver_sql(f'SELECT * FROM "{table}"')), key=repr)
                    for table in tables}
    finally:
        engine.dispose()


@pytest.mark.skipif(not PG_URL, reason="HARNESS_TEST_PG is not set (a PostgreSQL URL the tests may use)")
def test_a_select_only_role_runs_every_reading_command_and_serve_and_changes_nothing(tmp_path, capsys):
    from harness.db.database import scratch_database
    with scratch_database(PG_URL) as url:
        fill(url)
        before = table_contents(url)
        with viewer_role(url) as viewer:
            for argv in reading_commands(tmp_path):
                assert main([*argv, "--db", viewer]) == 0, (argv, capsys.readouterr().err)
            serve_pages(viewer)
            assert main(["play", "totality", "--player", "random", "--opponent", "random", "--record",
                         "--db", viewer]) != 0  # the role really cannot write
        assert table_contents(url) == before
