"""The emulator cannot be turned against its host: fault route opt-in, bounded memory, failing stand-ins."""

from __future__ import annotations

import sys
import time

import httpx

from harness.live.emulator import Emulator, load_key
from harness.live.seat import SeatConfig, play_seat


def test_the_fault_route_exists_only_when_asked_for():
    body = {"faults": [{"kind": "500"}]}
    with Emulator(opponent="random") as closed:
        assert httpx.post(f"{closed.url}/_admin/faults", json=body).status_code == 404
        assert closed.faults.pending() == 0
    with Emulator(opponent="random", faults=True) as open_:
        reply = httpx.post(f"{open_.url}/_admin/faults", json=body)
        assert reply.status_code == 200 and open_.faults.pending() == 1
        failed = httpx.get(f"{open_.url}/api/games/ravenward/init", params={"seed": 1})
        assert failed.status_code == 500 and failed.headers["content-type"] == "text/html"


def test_the_request_log_and_the_finished_matches_are_bounded():
    with Emulator(opponent="random", max_log=5, max_finished=2, start_ms=0) as server:
        for _ in range(9):
            httpx.get(f"{server.url}/api/games")
        assert len(server.log) == 5
        matches = [server.create_match(seat="red", beat_ms=50) for _ in range(4)]
        time.sleep(0.1)
        for match in matches:  # each view finds its match's clock run out
            httpx.get(match["url"])
        assert len([m for m in server.matches.values() if m.status == "finished"]) <= 2


def test_a_stand_in_that_fails_ends_its_match_with_an_error_instead_of_thinking_forever():
    failing = f"external:command={sys.executable} -c pass,timeout=2"  # an engine that exits at once
    with Emulator(opponent=failing, start_ms=0, poll_ms=30, standin_ms=30) as server:
        match = server.create_match(seat="black", seed=1, beat_ms=3000)
        result = play_seat(SeatConfig(url=match["url"], player="random", rate=500.0, max_wait_s=20.0))
        played = server.matches[match["match"]]
    assert played.status == "finished" and played.ranks == [2, 1] and "stand-in" in played.finish_line
    assert result.outcome == "win" and result.error and "PlayerError" in result.error


def test_the_key_file_is_kept_across_starts_and_only_its_owner_may_read_it(tmp_path):
    path = tmp_path / "keys" / "emulator.key"
    first = load_key(path)
    assert load_key(path) == first and (path.stat().st_mode & 0o777) == 0o600
    with Emulator(opponent="random", key_file=path) as one:
        state = httpx.get(f"{one.url}/api/games/totality/init", params={"seed": 2}).json()
    with Emulator(opponent="random", key_file=path) as two:  # a restart: its states still verify
        legal = state["legalActions"][0]
        reply = httpx.post(f"{two.url}/api/games/totality/action", json={"state": state["state"], "action": legal})
        assert reply.status_code == 200 and reply.json()["state"]
