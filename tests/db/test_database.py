"""harness.db on SQLite and PostgreSQL: schema, runs, idempotent atomic records, aliases, live games."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from dataclasses import fields

import pytest
from sqlalchemy import func, select, text

from harness.db import Database, open_database
from harness.db.models import MatchRow, PlayerRow
from harness.errors import DatabaseError, InvalidInput, SpecError
from harness.match import MatchResult


def count(db: Database, model) -> int:
    with db.session() as session:
        return session.scalar(select(func.count()).select_from(model))


def test_schema_built_by_the_migrations_equals_the_models(db):
    assert db.revision() is not None
    assert db.schema_differences() == []


def test_schema_comparison_notices_a_missing_index(db):
    with db.session(write=True) as session:
        session.execute(text("DROP INDEX ix_matches_game_player_id"))
    differences = db.schema_differences()
    assert any(d[0] == "add_index" and d[1].name == "ix_matches_game_player_id" for d in differences)


def test_opening_again_keeps_the_data_and_the_revision(database_url, make_result):
    with open_database(database_url) as first:
        run_id = first.start_run("tournament", "totality", {"players": ["random"]})
        first.record(run_id, make_result())
        revision = first.revision()
    with open_database(database_url) as second:
        assert second.revision() == revision
        assert second.count_matches(run_id) == 1


def test_a_run_is_found_by_id_or_by_its_newest_name_and_its_status_ends_it(db):
    first = db.start_run("tournament", "xiangqi:black", {"rounds": 2}, name="nightly")
    second = db.start_run("study", "totality", {}, name="nightly", study="t1", trial=4)
    assert db.run(first).game == "xiangqi:black"
    assert db.run(str(first)).id == first
    assert db.run("nightly").id == second
    assert (db.run(second).study, db.run(second).trial) == ("t1", 4)
    assert db.run("nope") is None
    db.set_run_status(first, "done")
    record = db.run(first)
    assert record.status == "done" and record.config == {"rounds": 2}
    assert record.started <= record.ended <= datetime.now(timezone.utc)  # both backends hand back UTC times
    assert [r.id for r in db.runs(kind="study")] == [second]


def test_bad_run_kind_status_or_id_is_refused(db):
    with pytest.raises(InvalidInput, match="valid kinds"):
        db.start_run("party", "totality", {})
    run_id = db.start_run("live", "totality", {})
    with pytest.raises(InvalidInput, match="valid"):
        db.set_run_status(run_id, "finished")
    with pytest.raises(InvalidInput, match="no run"):
        db.set_run_status(run_id + 100, "done")


def test_a_recorded_match_reads_back_with_every_field(db, make_result):
    run_id = db.start_run("live", "xiangqi:black", {})
    result = make_result("alphabeta:depth=3", "gbot", 12, game="xiangqi:black", outcome="draw", score=0.5,
                         counters={"ply": 240, "red_rank": 2}, actions=[{"from": [9, 1], "to": [7, 2]}],
                         source="live", server_score=0.5, error=None, extra={"server": "x"}, opening_plies=2)
    assert db.record(run_id, result) is True
    (record,) = db.matches(run_id=run_id)
    assert record.to_result() == MatchResult(**{f.name: getattr(result, f.name) for f in fields(MatchResult)}
                                             | {"game": "xiangqi:seat=black"})
    assert record.run_id == run_id and db.match(record.id) == record
    assert json.loads(json.dumps(record.to_dict()))["id"] == record.id
    assert db.matches(game="xiangqi:seat=black") == [record]
    assert db.matches(game="xiangqi") == []


def test_re_recording_a_match_key_is_a_no_op_and_another_run_holds_the_same_match(db, make_result):
    run_id = db.start_run("tournament", "totality", {})
    other_run = db.start_run("tournament", "totality", {})
    result = make_result(score=5.0)
    assert db.record(run_id, result) is True
    assert db.record(run_id, make_result(score=99.0, key=result.key)) is False
    assert db.record(other_run, make_result(score=77.0, key=result.key)) is True  # held, not copied
    assert db.record(other_run, result) is False
    assert db.recorded_keys(run_id) == db.recorded_keys(other_run) == {result.key}
    assert [m.score for m in db.matches(run_id=run_id)] == [m.score for m in db.matches(run_id=other_run)] == [5.0]
    assert db.count_matches() == 1 and db.count_matches(other_run) == 1
    assert [row.games for row in db.leaderboard("totality")] == [1]
    assert [row.games for row in db.leaderboard("totality", run_id=other_run)] == [1]
    assert count(db, PlayerRow) == 2  # random and gbot, each once


def test_concurrent_writers_store_each_match_once(database_url, make_result):
    with open_database(database_url) as setup:
        run_id = setup.start_run("tournament", "totality", {})
    results = [make_result(f"alphabeta:depth={1 + seed % 3}", "gbot", seed) for seed in range(40)]
    stored: list[bool] = []
    failures: list[BaseException] = []

    def writer():
        try:
            with open_database(database_url) as db:
                for result in results:
                    stored.append(db.record(run_id, result))
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert stored.count(True) == 40 and stored.count(False) == 120
    with open_database(database_url) as db:
        assert db.count_matches(run_id) == 40
        assert count(db, PlayerRow) == 4


def test_a_failing_write_leaves_nothing_behind(db, make_result):
    run_id = db.start_run("tournament", "totality", {})
    unstorable = make_result("greedy", "mcts:iterations=50", extra={"handle": object()})
    with pytest.raises(InvalidInput, match="JSON"):
        db.record(run_id, unstorable)
    assert count(db, MatchRow) == 0 and count(db, PlayerRow) == 0  # the players it inserted rolled back
    good = [make_result("greedy", "gbot", seed) for seed in range(3)]
    with pytest.raises(InvalidInput, match="JSON"):
        db.record_many(run_id, [*good, unstorable])
    assert count(db, MatchRow) == 0
    assert db.record_many(run_id, good) == 3
    assert db.record(run_id, make_result("greedy", "mcts:iterations=50")) is True  # the failed ids were not cached


def test_a_match_of_an_unknown_run_is_refused_and_not_stored(db, make_result):
    with pytest.raises(DatabaseError):
        db.record(12345, make_result())
    assert count(db, MatchRow) == 0


def test_named_players_resolve_tuned_aliases(db):
    db.save_named_player("sunrise", "alphabeta:depth=4,w.corners=3.5", "totality", note="trial 17")
    assert db.resolve_spec("tuned:sunrise") == "alphabeta:depth=4,w.corners=3.5"
    assert db.resolve_spec("greedy") == "greedy"
    db.save_named_player("sunrise", "alphabeta:depth=5", "totality")  # a re-run study replaces its alias
    assert db.named_player("sunrise") == "alphabeta:depth=5"
    with pytest.raises(SpecError, match="tuned:sunrise"):
        db.resolve_spec("tuned:sunset")
    with pytest.raises(InvalidInput, match="not valid"):
        db.save_named_player("bad name", "greedy", "totality")


def test_a_named_players_verdict_and_its_evidence_round_trip_and_a_replacement_replaces_them(db):
    db.save_named_player("sunrise", "alphabeta:depth=4", "totality", note="study sunrise, trial 3",
                         verdict="no gain", detail="+1.2 [-3.4, 5.8] over 240 openings")
    db.save_named_player("by-hand", "greedy", "totality")
    record = db.named_player_record("sunrise")
    assert (record.name, record.spec, record.note, record.verdict, record.detail) == (
        "sunrise", "alphabeta:depth=4", "study sunrise, trial 3", "no gain", "+1.2 [-3.4, 5.8] over 240 openings")
    assert (db.named_player_record("by-hand").verdict, db.named_player_record("by-hand").detail) == (None, "")
    assert db.named_player_record("nobody") is None
    db.save_named_player("sunrise", "alphabeta:depth=5", "totality", verdict="better", detail="+12.3 [4.1, 20.5]")
    assert [(r.name, r.verdict, r.detail) for r in db.named_player_records()] == [
        ("by-hand", None, ""), ("sunrise", "better", "+12.3 [4.1, 20.5]")]
    db.save_named_player("sunrise", "alphabeta:depth=6", "totality")  # other weights: the old verdict is gone
    assert db.named_player_record("sunrise").verdict is None


def test_a_verdict_not_among_the_verdicts_is_refused_and_nothing_is_stored(db):
    with pytest.raises(InvalidInput, match="unknown verdict 'not distinguishable'; valid: better, no gain, worse"):
        db.save_named_player("sunrise", "greedy", "totality", verdict="not distinguishable")
    assert issubclass(InvalidInput, ValueError) and db.named_player_record("sunrise") is None


def test_live_games_are_upserted_by_run_and_key(db):
    run_id = db.start_run("live", "ravenward", {})
    first = db.save_live_game(run_id, "g1", "ravenward", 7, "greedy", {"board": "..."}, [], "playing")
    again = db.save_live_game(run_id, "g1", "ravenward", 7, "greedy", {"board": "x"}, [{"from": 1}], "done",
                              server_score=42.0)
    assert first == again
    record = db.live_game(first)
    assert (record.status, record.server_state, record.actions, record.server_score) == (
        "done", {"board": "x"}, [{"from": 1}], 42.0)
    assert [g.key for g in db.live_games(run_id)] == ["g1"]
    assert db.live_game(first + 1000) is None


def test_a_finished_live_games_checkpoint_and_match_row_are_one_transaction(db, make_result):
    run_id = db.start_run("live", "totality", {})
    db.save_live_game(run_id, "g1", "totality", 7, "random", {"state": "s1"}, [], "running")
    with pytest.raises(InvalidInput):  # the row cannot be stored: the checkpoint is not either
        db.save_live_game(run_id, "g1", "totality", 7, "random", {"state": "s2"}, [], "done",
                          result=make_result(key="g1", extra={"bad": object()}))
    assert db.live_games(run_id)[0].status == "running"
    assert db.matches(run_id=run_id) == []
    game_id = db.save_live_game(run_id, "g1", "totality", 7, "random", {"state": "s2"}, [], "done",
                                server_score=1.0, result=make_result(key="g1"))
    (match,) = db.matches(run_id=run_id)
    assert db.live_game(game_id).status == "done" and match.extra["live_game_id"] == game_id


def test_an_optuna_study_can_share_the_database(database_url, make_result):
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with open_database(database_url) as db:
        run_id = db.start_run("study", "totality", {}, study="shared", trial=0)
        db.record(run_id, make_result())
    study = optuna.create_study(study_name="shared", storage=database_url)
    study.optimize(lambda trial: trial.suggest_float("x", 0, 1), n_trials=2)
    with open_database(database_url) as db:  # Optuna's tables and its alembic_version do not disturb ours
        assert db.schema_differences() == []
        assert db.count_matches(run_id) == 1
    assert len(optuna.load_study(study_name="shared", storage=database_url).trials) == 2


CRASHING_WRITER = """
import os, sys
from sqlalchemy import event
from harness.db import open_database
from harness.match import MatchResult

db = open_database(sys.argv[1])
run_id = db.start_run("tournament", "totality", {})
result = dict(game="totality", opponent="gbot", outcome="win", reason="test", score=1.0, counters={},
              actions=[], plies=0, duration_s=0.0, player_s=0.0, opponent_s=0.0)
db.record(run_id, MatchResult(player="random", seed=1, key="kept", **result))

def die_after_the_match_insert(conn, cursor, statement, parameters, context, executemany):
    if statement.startswith("INSERT INTO matches"):
        os._exit(3)  # the process dies inside the transaction, before its commit

event.listen(db.engine, "after_cursor_execute", die_after_the_match_insert)
db.record(run_id, MatchResult(player="greedy", seed=2, key="lost", **result))
"""


def test_a_writer_killed_mid_transaction_leaves_no_half_written_match(database_url, tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "crash.py"
    script.write_text(CRASHING_WRITER)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    finished = subprocess.run([sys.executable, str(script), database_url], env=environment, timeout=120)
    assert finished.returncode == 3
    with open_database(database_url) as db:
        assert [m.key for m in db.matches()] == ["kept"]
        assert count(db, PlayerRow) == 2  # greedy was inserted in the lost transaction only
        assert db.record(db.runs()[0].id, db.matches()[0].to_result()) is False


def test_check_writable_refuses_a_read_only_database_and_changes_nothing(tmp_path):
    from harness.errors import DatabaseError
    path = tmp_path / "h.db"
    with open_database(f"sqlite:///{path}") as db:
        db.check_writable()
        revision = db.revision()
    with open_database(f"sqlite:///file:{path}?mode=ro&uri=true") as read_only:
        with pytest.raises(DatabaseError, match="read-only"):
            read_only.check_writable()
        assert read_only.revision() == revision
