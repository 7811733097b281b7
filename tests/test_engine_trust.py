"""Engine commands that come from a database run only with --allow-engines (play, tournament, tune, live, arena)."""

from __future__ import annotations

import json
import pathlib
import shlex
import sys

import pytest

from harness.cli import main
from harness.db import open_database
from harness.errors import SpecError
from harness.tournament import TournamentConfig, run_tournament

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "example_engine.py"
ENGINE = "external:command=" + json.dumps(shlex.join([sys.executable, str(EXAMPLE)]))


@pytest.fixture
def db_url(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with open_database(url) as db:
        db.save_named_player("engine", ENGINE, "totality")
    return url


def test_a_tuned_alias_that_runs_a_command_is_refused_without_allow_engines(db_url, capsys):
    code = main(["play", "totality", "--player", "tuned:engine", "--opponent", "random", "--db", db_url])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("harness: error: tuned player 'tuned:engine' runs an engine command (external:command=")
    assert "--allow-engines" in err and len(err.strip().splitlines()) == 1


def test_with_allow_engines_the_alias_plays(db_url, capsys):
    code = main(["play", "totality", "--player", "tuned:engine", "--opponent", "random", "--db", db_url,
                 "--allow-engines", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["error"] is None


def test_a_spec_given_on_the_command_line_needs_no_flag(db_url, capsys):
    code = main(["play", "totality", "--player", ENGINE, "--opponent", "random", "--db", db_url, "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["error"] is None


def test_read_only_lookups_resolve_engine_aliases(db_url):
    with open_database(db_url) as db:
        with pytest.raises(SpecError, match="run only with allow_engines"):
            db.resolve_spec("tuned:engine")
        assert db.resolve_spec("tuned:engine", allow_engines=True).startswith("external:")
        assert db.leaderboard("totality", opponent="tuned:engine") is not None


def test_a_tournament_refuses_an_engine_alias_and_a_stored_plan_that_runs_a_command(db_url):
    with pytest.raises(SpecError, match="tuned player 'tuned:engine' runs an engine command"):
        run_tournament("totality", ["tuned:engine"], "random", games=2, db_url=db_url)
    config = TournamentConfig("totality:level=wise", ("random",), ENGINE, 2)
    with open_database(db_url) as db:
        run_id = db.start_run("tournament", config.game, config.to_dict(), name="stored")
        assert db.runs() and db.matches(run_id=run_id) == []
    with pytest.raises(SpecError, match=f"run {run_id}'s player runs an engine command"):
        run_tournament(None, resume="stored", db_url=db_url)


def test_live_and_arena_refuse_an_engine_alias_before_any_request_and_play_it_with_allow_engines(db_url, capsys):
    from harness.live.emulator import Emulator
    with Emulator(opponent="random", start_ms=100, poll_ms=30, standin_ms=30) as server:
        common = ["--player", "tuned:engine", "--db", db_url]
        assert main(["live", "totality", *common, "--base-url", server.url, "--rate", "200"]) == 2
        assert "--allow-engines" in capsys.readouterr().err
        assert main(["arena", "xiangqi", *common, "--url", f"{server.url}/arena/xiangqi/matches"]) == 2
        assert "--allow-engines" in capsys.readouterr().err
        assert list(server.log) == []  # refused before any request
        assert main(["live", "totality", *common, "--base-url", server.url, "--rate", "200",
                     "--allow-engines"]) == 0
        assert "1 recorded" in capsys.readouterr().out


def test_the_kinds_that_run_a_program_are_named_once_for_the_database_and_the_players():
    # the database applies harness.trust's rule to stored text without loading a player; the players'
    # own flag must agree with it for every kind
    from harness.trust import COMMAND_KINDS, runs_command
    from players import KINDS, player_class
    assert {kind for kind in KINDS if player_class(kind).RUNS_COMMAND} == COMMAND_KINDS
    assert runs_command(ENGINE) and not runs_command("alphabeta:depth=3") and not runs_command("tuned:engine")
