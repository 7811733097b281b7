"""Resuming live games and seats: one transaction per finished game, restarts, refusals, bad URLs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.cli import main
from harness.errors import InvalidInput
from harness.live.http import RetryPolicy
from harness.live.runner import LiveRunConfig, resume_arena, resume_live, run_arena, run_live
from harness.live.seat import SeatConfig
from harness.live.session import LiveGameConfig, play_live_game

from tests.live.faults import Restartable


def config_for(url, fast, **options):
    return LiveRunConfig(game="totality", player="random", games=1, seed_start=7, base_url=url, rate=1000.0,
                         policy=fast, **options)


def test_a_finished_games_checkpoint_and_match_row_are_written_together_or_not_at_all(db, emulator, fast):
    summary = run_live(db, config_for(emulator.url, fast))
    (game,) = summary.games.values()
    stored = db.live_game(game.live_game_id)
    (match,) = db.matches(run_id=summary.run_id)
    assert stored.status == "done" and match.extra["live_game_id"] == stored.id
    run_id = db.start_run("live", "totality", {"source": "live"})
    db.save_live_game(run_id, "k", stored.game, 1, stored.player, {"state": None}, [], "running")
    unstorable = replace(game.result, key="k", extra={"not json": object()})
    with pytest.raises(InvalidInput, match="cannot store as JSON"):
        db.save_live_game(run_id, "k", stored.game, 1, stored.player, {"state": None}, [], "done",
                          result=unstorable)
    (kept,) = db.live_games(run_id)
    assert kept.status == "running" and db.matches(run_id=run_id) == [], "neither the checkpoint nor the row"


def test_a_game_whose_checkpoint_says_done_but_whose_match_row_is_missing_is_recorded_on_resume(db, emulator, fast):
    run_id = db.start_run("live", "totality", {"source": "live"})
    game = LiveGameConfig(game="totality", player="random", seed=9, base_url=emulator.url, rate=1000.0, policy=fast)

    def checkpoint_only(checkpoint):  # what a crash between the two writes used to leave behind
        db.save_live_game(run_id, checkpoint.key, checkpoint.game, checkpoint.seed, checkpoint.player,
                          checkpoint.server_state, checkpoint.actions, checkpoint.status,
                          server_score=checkpoint.server_score)
    finished = play_live_game(game, checkpoint_only)
    (stored,) = db.live_games(run_id)
    assert stored.status == "done" and db.matches(run_id=run_id) == []
    requests = len(emulator.log)
    resumed = resume_live(db, stored.id, rate=1000.0, policy=fast)
    (match,) = db.matches(run_id=run_id)
    assert len(emulator.log) == requests, "replayed from the transcript, no request"
    assert match.actions == finished.actions and match.server_score == finished.server_score == match.score
    assert match.extra["live_game_id"] == stored.id and resumed.games[stored.key].status == "done"
    with pytest.raises(InvalidInput, match="already ended"):
        resume_live(db, stored.id)


def interrupted_game(db, server, fast):
    def fail_after_two(checkpoint):
        if len(checkpoint.actions) == 2 and checkpoint.status == "running":
            server.server.faults.add("500", path="/action", count=1000)
    summary = run_live(db, config_for(server.url, RetryPolicy(total_s=0.3, base_s=0.05, cap_s=0.1)),
                       progress=fail_after_two)
    (game,) = summary.games.values()
    assert game.status == "interrupted" and game.resumable
    return game


def test_a_game_resumes_after_the_emulator_restarts_because_it_keeps_its_key(db, tmp_path, fast):
    server = Restartable(tmp_path / "key", opponent="random")
    try:
        game = interrupted_game(db, server, fast)
        server.restart(down_s=0.0)
        server.wait()
        resumed = resume_live(db, game.live_game_id, rate=1000.0, policy=fast)
    finally:
        server.stop()
    assert resumed.games[game.key].status == "done"
    (match,) = db.matches(run_id=resumed.run_id)
    assert match.server_score == match.score


def test_a_server_that_refuses_the_stored_state_ends_the_resume_for_good_with_exit_1(db, tmp_path, fast, capsys):
    server = Restartable(tmp_path / "key", opponent="random")
    try:
        game = interrupted_game(db, server, fast)
        server.restart(down_s=0.0, key_file=tmp_path / "another-key")  # as a restart with a new key
        server.wait()
        code = main(["live", "--resume", str(game.live_game_id), "--rate", "1000", "--db", str(db.url)])
    finally:
        server.stop()
    out = capsys.readouterr().out
    stored = db.live_game(game.live_game_id)
    assert code == 1 and stored.status == "interrupted" and stored.error.startswith("StateRefused")
    assert "interrupted for good" in out and "--resume" not in out
    assert db.matches(run_id=db.live_game(game.live_game_id).run_id) == []


@pytest.mark.parametrize("argv", [["live", "ravenward", "--base-url", "127.0.0.1:8765"],
                                  ["live", "--resume", "1", "--base-url", "localhost:8765"],
                                  ["arena", "xiangqi", "--url", "127.0.0.1:8765/arena/xiangqi/matches"]])
def test_a_url_without_a_scheme_is_refused_at_once_with_exit_2(argv, tmp_path, capsys):
    code = main([*argv, "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    err = capsys.readouterr().err
    assert code == 2 and "must start with http:// or https://" in err and len(err.strip().splitlines()) == 1


def test_an_arena_seat_rejoins_its_match_after_a_crash_and_records_it_once(db, emulator):
    match = emulator.create_match(seat="red", seed=3, beat_ms=3000, max_rounds=12)
    crash_at = 3

    class Crash(Exception):
        pass

    from harness.live import runner
    original = runner.play_seat

    def crashing(config, sink, **options):  # a crash of the client process after three commands
        def stop_after(event):
            sink(event)
            if len(event["plies"]) >= 2 * crash_at - 1:
                raise Crash()
        return original(config, stop_after, **options)

    runner.play_seat = crashing
    try:
        with pytest.raises(Crash):
            run_arena(db, SeatConfig(url=match["url"], player="random", rate=500.0))
    finally:
        runner.play_seat = original
    (run,) = db.runs("live")
    (seat,) = db.live_games(run.id)
    assert seat.status == "running" and len(seat.actions) == crash_at and db.run(run.id).status == "interrupted"
    run_id, result = resume_arena(db, seat.id, rate=500.0)
    played = emulator.matches[match["match"]]
    assert run_id == run.id and result.extra["ranks"] == played.ranks
    assert result.actions == played.history and result.extra["sent"][:crash_at] == seat.actions
    (recorded,) = db.matches(run_id=run.id)
    assert recorded.key == seat.key and db.live_game(seat.id).status == "done"
    with pytest.raises(InvalidInput, match="already ended"):
        resume_arena(db, seat.id)
