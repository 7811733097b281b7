"""harness db backup / restore: consistent copies of a SQLite database taken while it is written."""

from __future__ import annotations

import gzip
import sqlite3

import optuna
import pytest

from harness.cli import main
from harness.db import open_database



def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def written(tmp_path, make_result):
    """An open SQLite results database in WAL mode with six matches, and an Optuna study in the same file."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    database = open_database(url)
    run_id = database.start_run("tournament", "totality", {}, name="cup")
    for seed in range(6):
        database.record(run_id, make_result("greedy", "gbot", seed, score=float(seed)))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(study_name="kept", storage=url, direction="maximize")
    study.add_trial(optuna.trial.create_trial(params={"x": 1.5}, distributions={
        "x": optuna.distributions.FloatDistribution(0, 2)}, value=7.25))
    yield url, database
    database.close()


@pytest.mark.parametrize("name", ["copy.db.gz", "copy.db"])
def test_a_copy_taken_while_the_database_is_open_restores_every_match_and_trial(written, tmp_path, capsys, name):
    url, database = written
    code, out, err = run_cli(capsys, "db", "backup", str(tmp_path / name), "--db", url)
    assert code == 0 and err == "" and "tables" in out
    raw = (tmp_path / name).read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    restored_url = f"sqlite:///{tmp_path / 'restored.db'}"
    code, out, err = run_cli(capsys, "db", "restore", str(tmp_path / name), "--db", restored_url)
    assert code == 0 and err == "" and "restored" in out
    with open_database(restored_url, create=False) as restored:
        assert [m.seed for m in restored.matches()] == [m.seed for m in database.matches()] == list(range(6))
    study = optuna.load_study(study_name="kept", storage=restored_url)
    assert [(t.params, t.value) for t in study.trials] == [({"x": 1.5}, 7.25)]


def test_the_copy_holds_what_was_committed_and_not_a_transaction_in_flight(written, tmp_path, capsys):
    url, database = written
    writer = sqlite3.connect(str(tmp_path / "live.db"), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM run_matches")
    try:
        code, _, err = run_cli(capsys, "db", "backup", str(tmp_path / "copy.db"), "--db", url)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert code == 0 and err == ""
    with sqlite3.connect(str(tmp_path / "copy.db")) as copy:
        assert copy.execute("SELECT count(*) FROM run_matches").fetchone()[0] == 6


def test_restore_never_writes_over_a_database(written, tmp_path, capsys):
    url, _ = written
    assert run_cli(capsys, "db", "backup", str(tmp_path / "copy.db.gz"), "--db", url)[0] == 0
    other = tmp_path / "other.db"
    other.write_bytes(b"")
    code, out, err = run_cli(capsys, "db", "restore", str(tmp_path / "copy.db.gz"), "--db", f"sqlite:///{other}")
    assert code == 2 and out == "" and "already" in err and err.count("\n") == 1
    assert other.read_bytes() == b""


@pytest.mark.parametrize("content", [b"not a database at all\n", gzip.compress(b"not a database either" * 100)])
def test_a_file_that_is_not_a_copy_is_refused_and_nothing_is_left(tmp_path, capsys, content):
    given = tmp_path / "junk.db.gz"
    given.write_bytes(content)
    code, out, err = run_cli(capsys, "db", "restore", str(given), "--db", f"sqlite:///{tmp_path / 'new.db'}")
    assert code == 2 and out == "" and "not a SQLite database" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.db.gz"]


def test_a_cut_off_gzip_copy_is_refused(written, tmp_path, capsys):
    url, _ = written
    assert run_cli(capsys, "db", "backup", str(tmp_path / "copy.db.gz"), "--db", url)[0] == 0
    cut = tmp_path / "cut.db.gz"
    cut.write_bytes((tmp_path / "copy.db.gz").read_bytes()[:-100])
    code, _, err = run_cli(capsys, "db", "restore", str(cut), "--db", f"sqlite:///{tmp_path / 'new.db'}")
    assert code == 2 and "not a whole copy" in err
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize("args, complaint", [
    (["db", "backup", "x.db", "--db", "postgresql+psycopg://harness:s3cret@db.lan/h"], "use pg_dump"),
    (["db", "restore", "x.db", "--db", "postgresql+psycopg://harness:s3cret@db.lan/h"], "pg_restore"),
    (["db", "backup", "x.db", "--db", "sqlite:///missing.db"], "no database at sqlite:///missing.db"),
    (["db", "backup", "no/such/dir/x.db", "--db", "sqlite:///live.db"], "FILE 'no/such/dir/x.db': the directory"),
    (["db", "backup", "live.db", "--db", "sqlite:///live.db"], "is the database itself"),
    (["db", "restore", "missing.db.gz", "--db", "sqlite:///new.db"], "no file 'missing.db.gz'"),
    (["db", "backup", "x.db", "--db", "sqlite://"], "give a SQLite file URL"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(written, tmp_path, capsys, monkeypatch, args, complaint):
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == "" and complaint in err and err.count("\n") == 1, err
    assert "s3cret" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# A real `harness db backup` / `restore` in a subprocess that SIGKILLs itself at a named point inside the
# copy: deterministic, where a kill after a timed wait would land anywhere (or after the end).
KILLED_AT = """
import os, signal, sys
import harness.db.backup as backup

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

def part_then_die(reading, writing, length=0):
    writing.write(reading.read(4096))  # the temporary file holds the copy's first page, then the process dies
    writing.flush()
    die()

point = sys.argv[1]
if point == "copying":
    backup.shutil.copyfileobj = part_then_die
elif point == "checking":
    backup._checked = die
elif point == "renaming":
    backup.place = die
from harness.cli import main
sys.exit(main(sys.argv[2:]))
"""
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def killed_at(point: str, *args: str) -> int:
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", KILLED_AT, point, *args], env=env, capture_output=True,
                          timeout=120).returncode


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("name, point", [("copy.db", "checking"), ("copy.db", "renaming"),
                                         ("copy.db.gz", "copying"), ("copy.db.gz", "renaming")])
def test_a_backup_killed_inside_the_copy_leaves_no_target_and_the_next_one_is_whole(written, tmp_path, capsys,
                                                                                   name, point):
    url, database = written
    target = tmp_path / name
    assert killed_at(point, "db", "backup", str(target), "--db", url) == -9
    assert not target.exists() and leftovers(tmp_path), "the kill did not land inside the copy"
    code, _, err = run_cli(capsys, "db", "backup", str(target), "--db", url)
    assert code == 0 and err == ""
    assert leftovers(tmp_path) == []  # the killed one's temporary file is removed by the next backup
    restored_url = f"sqlite:///{tmp_path / 'restored.db'}"
    assert run_cli(capsys, "db", "restore", str(target), "--db", restored_url)[0] == 0
    with open_database(restored_url, create=False) as restored:
        assert [m.seed for m in restored.matches()] == list(range(6))


@pytest.mark.parametrize("name, point", [("copy.db", "copying"), ("copy.db.gz", "checking"),
                                         ("copy.db", "renaming")])
def test_a_restore_killed_inside_the_copy_leaves_no_database_and_the_next_one_is_whole(written, tmp_path, capsys,
                                                                                     name, point):
    url, _ = written
    assert run_cli(capsys, "db", "backup", str(tmp_path / name), "--db", url)[0] == 0
    restored = tmp_path / "restored.db"
    restored_url = f"sqlite:///{restored}"
    assert killed_at(point, "db", "restore", str(tmp_path / name), "--db", restored_url) == -9
    assert not restored.exists() and leftovers(tmp_path), "the kill did not land inside the copy"
    code, _, err = run_cli(capsys, "db", "restore", str(tmp_path / name), "--db", restored_url)
    assert code == 0 and err == "" and leftovers(tmp_path) == []
    with open_database(restored_url, create=False) as database:
        assert [m.seed for m in database.matches()] == list(range(6))


def test_a_restored_copy_of_an_older_schema_is_upgraded_so_readers_can_read_it(tmp_path, capsys):
    """The committed ladder backups were made at revision 0003; a reader refuses an older schema, so the
    restore (the write the user asked for) brings the new file to this harness's schema."""
    from alembic import command
    from sqlalchemy import create_engine

    from harness.db import schema
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        command.upgrade(schema.alembic_config(connection), "0003")
    engine.dispose()
    assert run_cli(capsys, "db", "backup", str(tmp_path / "old.db.gz"), "--db", url)[0] == 0
    code, out, _ = run_cli(capsys, "db", "restore", str(tmp_path / "old.db.gz"), "--db", f"sqlite:///{tmp_path / 'new.db'}")
    assert code == 0 and "its schema upgraded from revision 0003" in out
    code, out, err = run_cli(capsys, "runs", "--db", f"sqlite:///{tmp_path / 'new.db'}")
    assert code == 0, err
