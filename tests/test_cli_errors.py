"""Every failure of the CLI is one line and a documented exit code (0, 1, 2, 130), never a traceback.

The last-resort handler is exercised through real commands added to the
real group for one test (a body that raises what no boundary translated);
the operating-system cases are the real ones: a port in use, a missing
output directory, a malformed database URL, a read-only database.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest

from harness.cli import cli, main

ROOT = Path(__file__).resolve().parents[1]
SECRET = "s3cr3t-Pa55word"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def failing_command():
    """Adds ``harness boom KIND`` to the real group for one test: it raises what KIND names."""

    @cli.command("boom")
    @click.argument("kind")
    @click.option("--db", "db_url", default=None)
    def boom(kind: str, db_url: str | None) -> None:
        if kind == "runtime":
            raise RuntimeError(f"worker exploded\nconnecting to postgresql://harness:{SECRET}@db.example/x")
        if kind == "interrupt":
            raise KeyboardInterrupt
        if kind == "sqlite":  # a database error that reached the CLI through no harness boundary
            connection = sqlite3.connect(f"file:{db_url}?mode=ro", uri=True)
            connection.execute("CREATE TABLE t (x)")
        if kind == "secret":
            raise ValueError(f"bad thing near {SECRET}")

    yield boom
    cli.commands.pop("boom")


def test_an_unexpected_error_is_one_masked_line_and_exit_code_1(failing_command, capsys, monkeypatch):
    monkeypatch.delenv("HARNESS_DEBUG", raising=False)
    code, out, err = run(capsys, "boom", "runtime")
    assert code == 1 and out == ""
    assert err.startswith("harness: RuntimeError: worker exploded") and err.count("\n") == 1
    assert SECRET not in err and "harness:***@db.example" in err and "Traceback" not in err


def test_the_password_of_the_given_database_url_is_masked_even_outside_a_url(failing_command, capsys, monkeypatch):
    monkeypatch.delenv("HARNESS_DEBUG", raising=False)
    code, _, err = run(capsys, "boom", "secret", "--db", f"postgresql://harness:{SECRET}@db.example/x")
    assert code == 1 and SECRET not in err and "***" in err and err.count("\n") == 1


def test_debug_prints_the_traceback_first_and_still_masks(failing_command, capsys, monkeypatch):
    monkeypatch.delenv("HARNESS_DEBUG", raising=False)
    code, _, err = run(capsys, "--debug", "boom", "runtime")
    assert code == 1 and "Traceback (most recent call last)" in err and "in boom" in err
    assert err.rstrip("\n").splitlines()[-1].startswith("harness: RuntimeError: worker exploded")
    assert SECRET not in err
    monkeypatch.setenv("HARNESS_DEBUG", "1")
    code, _, err = run(capsys, "boom", "runtime")
    assert code == 1 and "Traceback (most recent call last)" in err


def test_ctrl_c_anywhere_is_exit_code_130(failing_command, capsys):
    code, _, err = run(capsys, "boom", "interrupt")
    assert code == 130 and err.strip() == "harness: interrupted"


def test_a_sqlite_error_escaping_a_library_is_named_as_a_database_error(failing_command, capsys, tmp_path):
    path = tmp_path / "x.db"
    sqlite3.connect(path).close()
    code, _, err = run(capsys, "boom", "sqlite", "--db", str(path))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("harness: error: database: attempt to write a readonly database; the database is "
                          "read-only")


def test_a_database_url_with_a_port_that_is_not_a_number_is_bad_input(capsys):
    code, _, err = run(capsys, "leaderboard", "totality", "--db", f"postgresql://u:{SECRET}@h:notaport/db")
    assert code == 2 and err.count("\n") == 1 and SECRET not in err
    assert "its port is not a number" in err and "postgresql://u:***@h:notaport/db" in err


def test_a_database_url_that_lands_on_another_argument_is_masked_in_clicks_own_error(capsys):
    # Found by the fuzz test: ``--db`` took the next flag as its value, so click quoted the URL as MATCH_ID.
    code, _, err = run(capsys, "show", "--db", "--nope", f"postgresql://u:{SECRET}@h:notaport/db", "1")
    assert code == 2 and err.count("\n") == 1 and SECRET not in err
    assert "'postgresql://u:***@h:notaport/db' is not a valid integer" in err


def test_without_the_database_layer_the_cli_masks_with_the_same_pattern(monkeypatch):
    # A broken install: the database layer cannot be imported, yet a password written in a URL is masked
    # exactly as the layer would mask it (one pattern, harness.masking).
    from harness.cli import masked
    from harness.db import mask_secrets
    text = f"could not reach postgresql+psycopg://u:{SECRET}@h/db (also redis://:{SECRET}@r:6379)"
    with_layer = masked(text, [])
    monkeypatch.setitem(sys.modules, "harness.db", None)  # import harness.db now raises ImportError
    assert masked(text, []) == with_layer == mask_secrets(text)
    assert SECRET not in with_layer and "postgresql+psycopg://u:***@h/db" in with_layer


def test_report_checks_its_output_directory_before_any_work(capsys, tmp_path):
    database = tmp_path / "h.db"
    code, _, err = run(capsys, "report", "no-such-study", "--out", str(tmp_path / "missing" / "r.html"),
                       "--db", f"sqlite:///{database}")
    assert code == 2 and err.count("\n") == 1
    assert "does not exist" in err and "mkdir -p" in err
    assert not database.exists()  # not even the database was opened


def test_a_tournament_with_a_malformed_address_writes_no_run(capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = run(capsys, "tournament", "totality", "--player", "random", "--opponent", "random",
                       "--games", "2", "--address", "nowhere", "--db", url)
    assert code == 2 and "Ray address" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "export", "--db", url)
    assert code == 0 and out == ""
    from harness.db import open_database
    with open_database(url) as db:
        assert db.runs() == []


def test_tune_on_a_read_only_database_is_one_line(capsys, tmp_path):
    path = tmp_path / "h.db"
    assert run(capsys, "db", "upgrade", "--db", f"sqlite:///{path}")[0] == 0
    before = path.read_bytes()
    code, _, err = run(capsys, "tune", str(ROOT / "studies" / "demo-totality.toml"), "--trials", "1",
                       "--db", f"sqlite:///file:{path}?mode=ro&uri=true")
    assert code == 1 and err.count("\n") == 1
    assert "attempt to write a readonly database" in err and "read-only" in err
    assert path.read_bytes() == before


def test_live_and_arena_on_a_read_only_database_are_one_line_before_any_request(capsys, tmp_path):
    from harness.live.emulator import Emulator
    path = tmp_path / "h.db"
    assert run(capsys, "db", "upgrade", "--db", f"sqlite:///{path}")[0] == 0
    before = path.read_bytes()
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    with Emulator(opponent="random") as server:
        code, _, err = run(capsys, "live", "totality", "--player", "random", "--base-url", server.url,
                           "--db", read_only)
        assert code == 1 and err.count("\n") == 1 and "read-only" in err
        code, _, err = run(capsys, "arena", "xiangqi", "--url", f"{server.url}/arena/xiangqi/matches",
                           "--db", read_only)
        assert code == 1 and err.count("\n") == 1 and "read-only" in err
        assert list(server.log) == []
    assert path.read_bytes() == before


def test_emulate_on_a_port_in_use_names_the_port_and_how_to_pick_another():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "harness.cli", "emulate", "--port", str(port)],
                              capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env={**os.environ, "HARNESS_DEBUG": ""})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and f"127.0.0.1:{port}" in done.stderr
    assert "in use" in done.stderr and "--port 0" in done.stderr


@pytest.mark.parametrize("command", [
    ["tournament", "totality", "--player", "random", "--opponent", "random", "--games", "2"],
    ["tune", str(ROOT / "studies" / "demo-totality.toml")],
])
def test_an_unreachable_ray_head_is_one_line_before_anything_is_written(command, capsys, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = run(capsys, *command, "--address", f"127.0.0.1:{closed}", "--db", url)
    assert code == 1 and err.count("\n") == 1 and f"127.0.0.1:{closed}" in err
    from harness.db import open_database, stored_tables
    with open_database(url) as db:
        assert db.runs() == []
    assert "studies" not in stored_tables(url)  # no study was created either


def test_an_sprt_hypothesis_no_games_can_meet_is_bad_input_before_any_run(capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'h.db'}"
    code, _, err = run(capsys, "tournament", "totality", "--player", "random", "--opponent", "random",
                       "--games", "2", "--sprt", "0,1000000", "--db", url)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "outside 0..1" in err and "--sprt 0,10" in err
    from harness.db import open_database
    with open_database(url) as db:
        assert db.runs() == []
