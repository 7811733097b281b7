"""Every fault of a live server, over loopback: each game still ends with the server's result.

For both protocols: 429 with Retry-After, 500 and 503 with an HTML body,
truncated JSON, a stall longer than the client's read timeout, a dropped
connection, and (for the stateless Gameboard loop) a server restart in mid-game.
Each case also has the server refuse one action, and checks that no refused
action is sent again at once.
"""

from __future__ import annotations

import pytest

from harness.live.http import RetryPolicy
from harness.live.runner import LiveRunConfig, run_live
from harness.live.seat import SeatConfig, play_seat

from tests.live.faults import Restartable, assert_no_refused_action_sent_again_at_once

#: A read timeout shorter than the stall, so the stall is a timeout and a retry.
POLICY = RetryPolicy(total_s=30.0, base_s=0.05, cap_s=0.3, malformed_retries=3, connect_s=1.0, read_s=0.5)
FAULTS = {"429": dict(kind="429", retry_after=0.2), "500-html": dict(kind="500"), "503-html": dict(kind="503"),
          "truncated": dict(kind="truncated"), "stall": dict(kind="delay", delay_s=1.2),
          "drop": dict(kind="drop")}


@pytest.mark.parametrize("fault", [*FAULTS, "restart"])
def test_a_gameboard_game_rides_out_the_fault_and_ends_with_the_servers_result(db, tmp_path, fault, capsys):
    server = Restartable(tmp_path / "emulator.key", opponent="random")
    server.server.faults.add("illegal", path="/action", count=1)

    def progress(checkpoint):
        if len(checkpoint.actions) == 2 and checkpoint.status == "running":
            if fault == "restart" and not server.restarts:
                server.restart()
            elif fault != "restart":
                server.server.faults.add(path="/action", count=2, **FAULTS[fault])
    try:
        config = LiveRunConfig(game="ravenward", player="random", games=1, seed_start=21, base_url=server.url,
                               rate=1000.0, policy=POLICY)
        summary = run_live(db, config, progress=progress)
    finally:
        server.stop()
    (game,) = summary.games.values()
    stored = db.live_game(game.live_game_id)
    (match,) = db.matches(run_id=summary.run_id)
    final = stored.server_state["transcript"]["steps"][-1]["reply"]
    assert game.status == stored.status == "done" and final["gameOver"]
    assert match.server_score == stored.server_score == final["score"] == match.score
    assert match.extra["requests"]["retries"] >= 1 and match.extra["illegal_replies"] == 1
    assert_no_refused_action_sent_again_at_once(server.all_requests())
    retry_lines = [line for line in capsys.readouterr().err.splitlines() if "retrying in" in line]
    assert len(retry_lines) == match.extra["requests"]["retries"], "one line per retry"
    assert "attempt 1 failed" in retry_lines[0]
    if fault == "429":
        assert match.extra["requests"]["waited_s"] >= 0.4, "Retry-After was honoured"


@pytest.mark.parametrize("fault", [*FAULTS, "restart"])
def test_a_seat_rides_out_the_fault_and_ends_with_the_servers_result(fault, tmp_path):
    server = Restartable(tmp_path / "key", matches_file=tmp_path / "matches.json", opponent="random",
                         start_ms=50, poll_ms=30, standin_ms=30)

    def restart_after_two(event):
        if fault == "restart" and len(event["plies"]) == 3:
            server.restart(down_s=0.3)
    try:
        match = server.server.create_match(seat="red", seed=5, beat_ms=4000, max_rounds=10)
        server.server.faults.add("illegal", path="/seats/", method="POST", count=1)
        if fault != "restart":
            server.server.faults.add(path="/seats/", count=2, **FAULTS[fault])
        config = SeatConfig(url=match["url"], player="random", rate=500.0, policy=POLICY)
        result = play_seat(config, restart_after_two)
        played = server.server.matches[match["match"]]
        log = server.all_requests()
    finally:
        server.stop()
    assert result.extra["ranks"] == played.ranks == [1, 1], "the match ran to its last round"
    assert "missed" not in (played.finish_line or "") and None not in played.history
    assert result.actions == played.history and result.extra["requests"]["retries"] >= 1
    assert [entry.status for entry in log].count(422) == 1
    assert_no_refused_action_sent_again_at_once(log)
