"""Live Gameboard games through the real client against the emulator, recorded in a real database."""

from __future__ import annotations

import httpx
import pytest

from harness.errors import InvalidInput
from harness.games import load as load_game
from harness.live.runner import LiveRunConfig, resume_live, run_live


def run(db, emulator, fast, game="ravenward", games=1, progress=None, seed_start=3, **options):
    config = LiveRunConfig(game=game, player="random", games=games, seed_start=seed_start, base_url=emulator.url,
                           rate=500.0, policy=fast, **options)
    return run_live(db, config, progress=progress)


def only_game(summary):
    (game,) = summary.games.values()
    return game


@pytest.mark.parametrize("game", ["ravenward", "totality", "totality:easy"])
def test_a_full_live_game_is_recorded_with_every_action_the_server_states_and_both_scores(db, emulator, fast, game):
    summary = run(db, emulator, fast, game)
    outcome = only_game(summary)
    assert outcome.status == "done" and outcome.error is None
    stored = db.live_game(outcome.live_game_id)
    transcript = stored.server_state["transcript"]
    assert stored.status == "done" and stored.server_state["state"] == transcript["steps"][-1]["reply"]["state"]
    assert stored.actions == [step["action"] for step in transcript["steps"]]
    assert all(step["reply"]["state"] for step in transcript["steps"]) and transcript["init"]["state"]
    (match,) = db.matches(run_id=summary.run_id)
    assert match.source == "live" and match.server_score == match.score == stored.server_score
    rules = load_game(match.game)
    state = rules.initial_state()
    for action in match.actions:  # both sides' actions replay to the scored end
        state = rules.apply(state, action)
    assert rules.is_terminal(state) and rules.score(state) == match.score
    assert db.run(summary.run_id).kind == "live" and db.run(summary.run_id).status == "done"
    (init,) = [entry for entry in emulator.log if entry.path.endswith("/init")]
    assert "seed=3" in init.query
    if rules.name == "totality":  # the level travels as a query parameter of init
        assert f"level={rules.config['level']}" in init.query
        assert transcript["params"] == {"level": rules.config["level"]}


def test_the_emulator_refuses_a_tampered_state(emulator):
    start = httpx.get(f"{emulator.url}/api/games/ravenward/init", params={"seed": 1}).json()
    body, _, mac = start["state"].rpartition(".")
    forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + mac
    reply = httpx.post(f"{emulator.url}/api/games/ravenward/action",
                       json={"state": forged, "action": start["legalActions"][0]})
    assert reply.status_code == 400 and "tampered" in reply.json()["error"]


def test_an_illegal_action_is_answered_ok_false_with_the_legal_actions(emulator):
    start = httpx.get(f"{emulator.url}/api/games/totality/init", params={"seed": 1}).json()
    reply = httpx.post(f"{emulator.url}/api/games/totality/action",
                       json={"state": start["state"], "action": {"type": "place", "row": 0, "col": 0}})
    assert reply.status_code == 200
    assert reply.json()["ok"] is False and reply.json()["legalActions"] == start["legalActions"]
    assert start["score"] == 0 and start["gameOver"] is False


def test_a_refused_action_is_counted_and_never_sent_again(db, emulator, fast):
    emulator.faults.add("illegal", path="/action")
    summary = run(db, emulator, fast)
    outcome = only_game(summary)
    transcript = db.live_game(outcome.live_game_id).server_state["transcript"]
    (refused,) = transcript["illegal"]
    assert outcome.status == "done" and outcome.result.extra["illegal_replies"] == 1
    assert transcript["steps"][refused["step"]]["action"] != refused["action"]


@pytest.mark.parametrize("fault", ["500", "drop", "garbage", "truncated", "429"])
def test_transient_faults_during_a_game_cost_nothing(db, emulator, fast, fault):
    emulator.faults.add(fault, path="/action", count=2, retry_after=0.1)
    outcome = only_game(run(db, emulator, fast))
    assert outcome.status == "done" and outcome.result.extra["requests"]["retries"] >= 2


def test_an_interrupted_game_resumes_from_its_stored_state_with_nothing_lost(db, emulator, fast):
    def fail_after_three_steps(checkpoint):
        if len(checkpoint.actions) == 3 and checkpoint.status == "running":
            emulator.faults.add("500", path="/action", count=1000)

    summary = run(db, emulator, fast.__class__(total_s=0.5, base_s=0.05, cap_s=0.1),
                  progress=fail_after_three_steps)
    outcome = only_game(summary)
    assert outcome.status == "interrupted" and "TransportError" in outcome.error
    stored = db.live_game(outcome.live_game_id)
    assert stored.status == "interrupted" and len(stored.actions) == 3
    assert db.matches(run_id=summary.run_id) == [] and db.run(summary.run_id).status == "interrupted"
    emulator.faults.clear()
    inits = sum(entry.path.endswith("/init") for entry in emulator.log)
    resumed = only_game(resume_live(db, outcome.live_game_id, rate=500.0))
    assert resumed.status == "done" and sum(e.path.endswith("/init") for e in emulator.log) == inits
    final = db.live_game(outcome.live_game_id)
    assert final.actions[:3] == stored.actions
    assert final.server_state["transcript"]["steps"][:3] == stored.server_state["transcript"]["steps"]
    (match,) = db.matches(run_id=summary.run_id)
    assert match.server_score == match.score and db.run(summary.run_id).status == "done"
    with pytest.raises(InvalidInput, match="already ended"):
        resume_live(db, outcome.live_game_id)


def test_garbage_beyond_the_retry_bound_interrupts_the_game_cleanly_and_it_resumes(db, emulator, fast):
    emulator.faults.add("garbage", path="/action", count=3)
    outcome = only_game(run(db, emulator, fast))
    assert outcome.status == "interrupted" and "ProtocolError" in outcome.error
    assert only_game(resume_live(db, outcome.live_game_id, rate=500.0)).status == "done"


def test_a_server_whose_rules_drift_is_played_to_its_end_and_the_unsure_moves_counted(db, emulator, fast):
    emulator.faults.add("drift", path="/action")
    summary = run(db, emulator, fast)
    outcome = only_game(summary)
    stored = db.live_game(outcome.live_game_id)
    assert outcome.status == "done" and stored.status == "done" and stored.error is None
    (match,) = db.matches(run_id=summary.run_id)
    assert match.server_score == stored.server_score and match.error is None
    assert match.counters["ambiguous_no_fit"] >= 1
    assert match.counters["ambiguous_moves"] >= match.counters["ambiguous_no_fit"]


def test_a_server_score_that_differs_from_the_local_formula_is_a_mismatch(db, emulator, fast):
    emulator.score_offset = 1.0
    summary = run(db, emulator, fast)
    (mismatch,) = summary.mismatches
    assert mismatch.server_score == mismatch.score + 1.0


def test_a_chinese_chess_game_is_refused_by_the_gameboard_loop(db, emulator, fast):
    with pytest.raises(InvalidInput, match="arena"):
        run(db, emulator, fast, game="xiangqi")


def test_only_a_server_refusing_every_listed_action_interrupts_the_game_and_none_is_sent_twice(db, emulator, fast):
    listed = len(load_game("ravenward").legal_actions(load_game("ravenward").initial_state()))
    emulator.faults.add("illegal", path="/action", count=listed - 1)
    outcome = only_game(run(db, emulator, fast))  # all but one refused: the game goes on
    assert outcome.status == "done" and outcome.result.extra["illegal_replies"] == listed - 1
    emulator.faults.add("illegal", path="/action", count=1000)
    outcome = only_game(run(db, emulator, fast, seed_start=4))
    assert outcome.status == "interrupted" and f"refused every action it listed ({listed})" in outcome.error
    stored = db.live_game(outcome.live_game_id)
    refused = [entry["key"] for entry in stored.server_state["transcript"]["illegal"]]
    assert len(refused) == len(set(refused)) == listed
    emulator.faults.clear()
    assert only_game(resume_live(db, outcome.live_game_id, rate=500.0)).status == "done"


def test_replies_are_read_tolerantly():
    from harness.live.gameboard import read_reply
    reply = read_reply({"state": {"opaque": 1}, "legal_actions": [{"type": "move"}], "game_over": True,
                        "score": 12, "extra": "ignored"}, "test")
    assert reply.ok and reply.game_over and reply.score == 12 and reply.legal_actions == [{"type": "move"}]
    refused = read_reply({"ok": False, "reason": "no", "legalActions": []}, "test")
    assert not refused.ok and refused.state is None and refused.reason == "no"
    from harness.errors import ProtocolError
    with pytest.raises(ProtocolError, match="no state"):
        read_reply({"legalActions": []}, "test")


@pytest.mark.parametrize("game", ["ravenward", "totality:easy"])
def test_a_live_game_is_an_environment_over_the_tracker_and_passes_the_contract(emulator, fast, game):
    from harness.live.environment import GameboardEnv
    from harness.live.gameboard import GameboardClient
    from harness.live.http import HttpClient, RateLimiter
    from harness.live.session import slug_of
    from harness.testing import check_env
    rules = load_game(game)
    params = {"level": rules.config["level"]} if "level" in rules.config else {}
    with HttpClient(limiter=RateLimiter(1000.0), policy=fast) as http:
        env = GameboardEnv(rules, GameboardClient(http, slug_of(rules), emulator.url), params)
        check_env(env, seeds=range(2))
    assert env.transcript["steps"] and all(c is None for c in env.conditions), "the board pinned every move"
