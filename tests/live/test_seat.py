"""The seat-protocol client and the emulator's reading of the Chinese chess platform text."""

from __future__ import annotations

import time

import httpx
import pytest

from harness.games import load as load_game
from harness.live.seat import SeatConfig, play_seat
from tests.waiting import wait_until


@pytest.mark.parametrize("seat", ["red", "black"])
def test_a_full_chinese_chess_match_is_played_and_shadow_tracked_from_either_seat(emulator, seat):
    match = emulator.create_match(seat=seat, seed=4, beat_ms=5000)
    result = play_seat(SeatConfig(url=match["url"], player="random", seed=1, rate=500.0))
    server = emulator.matches[match["match"]]
    assert result.error is None and result.source == "live"
    assert result.game == load_game("xiangqi", seat=seat).spec
    assert result.actions == server.history  # every ply of both seats, as the server applied them
    assert result.extra["ranks"] == server.ranks and not result.extra["outcome_mismatch"]
    assert result.extra["local_outcome"][0] == result.outcome
    assert result.server_score == result.score
    assert len(result.extra["sent"]) == (len(server.history) + (seat == "red")) // 2
    polled = [entry for entry in emulator.log if entry.method == "GET"]
    assert polled, "the seat waited by polling with the server's pollAfterMs"


def test_the_view_follows_the_platform_text(emulator):
    match = emulator.create_match(seat="red", seed=1, beat_ms=5000, start_ms=300)
    starting = httpx.get(match["url"]).json()
    assert starting["status"] == "starting" and starting["next"]["rel"] != "act"
    assert 0 < starting["pollAfterMs"] < starting["remainMs"] <= 300
    view = wait_until(lambda: (answer := httpx.get(match["url"]).json())["status"] == "running" and answer,
                      "the match starts after its 300 ms")
    summary = view["data"]["summary"]
    assert view["status"] == "running" and view["next"]["rel"] == "act" and view["data"]["round"] == 1
    assert summary["you"] == 0 and summary["side"] == "red" and summary["turn"] == 0
    assert summary["yourTurn"] is True and summary["phase"] == "move" and summary["lastEvent"] is None
    assert len(summary["board"]) == 90 and summary["board"][4] == {"mark": "將", "side": "black"}
    assert summary["board"][85] == {"mark": "帥", "side": "red"}
    assert 0 < view["pollAfterMs"] < view["remainMs"] <= 5000
    command = view["data"]["legal"][0]
    after = httpx.post(match["url"], json={"command": command, "round": 1}).json()
    assert after["data"]["round"] == 2 and after["data"]["summary"]["turn"] == 1
    assert after["data"]["legal"] == [] and after["next"]["rel"] != "act"
    assert after["data"]["summary"]["lastEvent"].startswith("red")
    stale = httpx.post(match["url"], json={"command": command, "round": 1})
    assert stale.status_code == 409


def test_a_missed_clock_loses_for_the_side_to_move(emulator):
    match = emulator.create_match(seat="red", seed=1, beat_ms=300, start_ms=0)
    view = wait_until(lambda: (answer := httpx.get(match["url"]).json())["status"] == "finished" and answer,
                      "red's 300 ms clock runs out")
    assert view["result"]["ranks"] == [2, 1]
    assert view["remainMs"] == 0 and "missed" in view["data"]["summary"]["lastEvent"]
    assert emulator.matches[match["match"]].history == [None]
    result = play_seat(SeatConfig(url=match["url"], player="random", rate=500.0))
    assert result.outcome == "loss" and result.server_score == 0 and "missed" in result.reason


def test_an_empty_command_from_the_side_to_move_loses_and_a_hold_from_the_other_seat_does_not(emulator):
    match = emulator.create_match(seat="black", seed=1, beat_ms=5000, start_ms=0)
    emulator.standin_ms = 400
    held = httpx.post(match["url"], json={"command": [], "round": 1}).json()
    assert held["status"] == "running" and held["data"]["pending"] == []
    view = wait_until(lambda: (answer := httpx.get(match["url"]).json())["data"]["summary"]["yourTurn"] and answer,
                      "the stand-in's move after 400 ms")
    assert view["status"] == "running"
    assert "pending" not in view["data"]
    lost = httpx.post(match["url"], json={"command": [], "round": view["data"]["round"]}).json()
    assert lost["status"] == "finished" and lost["result"]["ranks"] == [1, 2]


def test_a_deepening_player_chooses_well_inside_the_remaining_clock(emulator):
    from harness.live.seat import SeatGame
    from players import load as load_player
    rules = load_game("xiangqi")
    load_player("alphabeta:depth=1").choose(rules, rules.initial_state())  # load the compiled search first
    match = emulator.create_match(seat="red", seed=2, beat_ms=2000, start_ms=0)
    game = SeatGame(SeatConfig(url=match["url"], player="alphabeta:depth=60", rate=500.0))
    game._fetch()
    remain_s = game.view["remainMs"] / 1000
    game._observe(game.view["data"]["legal"])
    started = time.monotonic()
    action = game._choose(game.view["data"]["legal"])
    elapsed = time.monotonic() - started
    assert action in game.view["data"]["legal"]
    assert elapsed > 0.2, "it searched on until its limit"
    assert time.monotonic() < game.received + remain_s, "and answered before the beat's end"


def test_without_data_legal_the_seat_sends_its_own_move_in_the_example_shape_and_tracks_by_the_board(emulator):
    emulator.seat_lists_legal = False
    match = emulator.create_match(seat="black", seed=6, beat_ms=5000)
    result = play_seat(SeatConfig(url=match["url"], player="random", seed=2, rate=500.0))
    server = emulator.matches[match["match"]]
    assert result.error is None and result.actions == server.history
    assert result.extra["ranks"] == server.ranks and not result.extra["outcome_mismatch"]


def test_the_seat_client_rides_out_server_errors_dropped_connections_and_garbage(emulator):
    match = emulator.create_match(seat="red", seed=8, beat_ms=5000)
    for fault in ("500", "drop", "garbage", "429"):
        emulator.faults.add(fault, path="/seats/", count=1, retry_after=0.05)
    config = SeatConfig(url=match["url"], player="random", rate=500.0)
    result = play_seat(config)
    assert result.error is None and result.actions == emulator.matches[match["match"]].history
    assert result.extra["requests"]["retries"] == 4 and emulator.faults.pending() == 0
