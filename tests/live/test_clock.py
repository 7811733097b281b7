"""The seat client never misses a clock: a player that sleeps past it, a machine whose cores are busy."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from harness.live.emulator import Emulator
from harness.live.seat import SeatConfig, play_seat, warm_up
from players import load as load_player
from players.random import RandomPlayer


class SleepingPlayer(RandomPlayer):
    """A player that answers only after every clock of the match has run out."""

    def choose(self, rules, state, limits=None):
        time.sleep(2.5)
        return super().choose(rules, state, limits)


def play_short_match(seat, beat_ms, rounds, **options):
    warm_up()  # what the client does before its first view, done before the match's countdown starts
    load_player(options.get("config", {}).get("player", "random"), "xiangqi")
    # a start countdown long enough for the client to set up on a loaded machine (no clock runs then)
    with Emulator(opponent="random", start_ms=2000, poll_ms=30, standin_ms=30) as server:
        match = server.create_match(seat=seat, seed=2, beat_ms=beat_ms, max_rounds=rounds)
        result = play_seat(SeatConfig(url=match["url"], rate=500.0, **options.pop("config", {})), **options)
        return result, server.matches[match["match"]]


def test_a_player_that_sleeps_past_the_clock_is_replaced_by_the_fallback_before_the_beat_ends():
    result, played = play_short_match("red", beat_ms=700, rounds=6, player=SleepingPlayer(),
                                      config={"player": "random"})
    assert None not in played.history and "missed" not in played.finish_line, "0 missed clocks"
    assert played.ranks == [1, 1] and result.extra["ranks"] == [1, 1]
    assert result.extra["fallback_moves"] == len(result.extra["sent"]) == 3
    assert result.counters["fallback_moves"] == 3 and result.actions == played.history


@pytest.fixture
def busy_cores():
    """CPU-burning processes, more than the machine's cores, for the length of the test."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    yield burners
    for burner in burners:
        burner.kill()
        burner.wait()


@pytest.mark.parametrize("seat", ["red", "black"])
def test_on_a_machine_with_busy_cores_no_clock_is_missed(busy_cores, seat):
    result, played = play_short_match(seat, beat_ms=900, rounds=8, config={"player": "greedy"})
    assert all(burner.poll() is None for burner in busy_cores), "the cores stayed busy"
    assert None not in played.history and "missed" not in played.finish_line, "0 missed clocks"
    assert played.ranks == [1, 1] and result.actions == played.history
