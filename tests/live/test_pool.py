"""Live games on a real local Ray pool: one rate limit shared by every worker, states stored by the driver."""

from __future__ import annotations

from harness.live.runner import LiveRunConfig, run_live


def test_two_workers_play_live_games_under_one_shared_rate_limit(db, emulator, fast):
    rate = 8.0
    config = LiveRunConfig(game="totality", player="random", games=2, seed_start=11, base_url=emulator.url,
                           rate=rate, workers=2, policy=fast)
    summary = run_live(db, config)
    assert [g.status for g in summary.games.values()] == ["done", "done"]
    arrivals = sorted(entry.at for entry in emulator.log)
    # one shared limiter: the whole run's requests are spaced by 1/rate (two separate limiters would
    # halve that); arrival jitter on a busy machine is allowed for, a burst is not
    assert arrivals[-1] - arrivals[0] >= 0.95 * (len(arrivals) - 1) / rate
    assert all(arrivals[i + 5] - arrivals[i] >= 4 / rate for i in range(len(arrivals) - 5))
    inits = [entry.at for entry in emulator.log if entry.path.endswith("/init")]
    last_actions = max(entry.at for entry in emulator.log if entry.path.endswith("/action"))
    assert len(inits) == 2 and max(inits) < last_actions, "the two games ran at the same time"
    for game in summary.games.values():  # every step streamed back and stored by the driver
        stored = db.live_game(game.live_game_id)
        assert stored.status == "done" and stored.actions == game.result.extra["sent"]
    assert {m.source for m in db.matches(run_id=summary.run_id)} == {"live"}
