"""The external engine player: the JSON-lines protocol, the example engine, and every way an engine fails."""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import sys
import textwrap

import pytest

import players
from harness.cli import main
from harness.errors import PlayerError
from harness.games import load as load_game
from harness.match import MatchSpec, play_match

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scripts" / "example_engine.py"
GAME = "totality"  # the cheapest full game to play; every game runs in test_example_engine_plays_every_game


def command(*argv: str | pathlib.Path) -> str:
    """An ``external:`` spec running ``argv`` with this interpreter, quoted for the spec grammar."""
    text = shlex.join([sys.executable, *map(str, argv)])
    return "external:command=" + json.dumps(text)


def engine(tmp_path: pathlib.Path, body: str, name: str = "engine.py") -> pathlib.Path:
    """Write a small engine script; it records its pid in ``pids`` when it starts."""
    path = tmp_path / name
    path.write_text("import json, os, sys, time\n"
                    f"open({str(tmp_path / 'pids')!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
                    + textwrap.dedent(body))
    return path


def pids(tmp_path: pathlib.Path) -> list[int]:
    return [int(line) for line in (tmp_path / "pids").read_text().split()]


def assert_gone(pid: int) -> None:
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize("game", ["ravenward", "totality", "xiangqi:black"])
def test_example_engine_plays_every_game_to_the_end(game):
    result = play_match(MatchSpec(game, command(EXAMPLE), "random", seed=5))
    assert result.error is None
    assert result.reason not in ("player_error", "opponent_error")
    rules = load_game(game)
    state = rules.initial_state()
    for action in result.actions:
        state = rules.apply(state, action)
    assert rules.is_terminal(state) and rules.outcome(state) == (result.outcome, result.reason)


def test_example_engine_replays_exactly_for_a_seed_and_varies_with_it():
    first = play_match(MatchSpec(GAME, command(EXAMPLE), "random", seed=11))
    again = play_match(MatchSpec(GAME, command(EXAMPLE), "random", seed=11))
    other = play_match(MatchSpec(GAME, command(EXAMPLE), "random", seed=12))
    assert first.actions == again.actions and first.score == again.score
    assert first.actions != other.actions


def test_example_engine_first_strategy_always_takes_the_first_legal_action():
    result = play_match(MatchSpec(GAME, command(EXAMPLE, "--strategy", "first"), "random", seed=2))
    rules = load_game(GAME)
    state = rules.initial_state()
    for action in result.actions:
        if rules.to_move(state) == rules.user_side:
            assert action == rules.legal_actions(state)[0]
        state = rules.apply(state, action)


def test_example_engine_plays_through_the_cli(capsys):
    code = main(["play", GAME, "--player", command(EXAMPLE), "--opponent", "random", "--seed", "3", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    result = json.loads(out)
    assert result["player"].startswith("external:command=") and result["error"] is None
    assert result["outcome"] in ("win", "draw", "loss") and result["plies"] == len(result["actions"])


def test_the_engine_gets_the_documented_request(tmp_path):
    log = tmp_path / "requests"
    script = engine(tmp_path, f"""
        for line in sys.stdin:
            open({str(log)!r}, "a").write(line)
            request = json.loads(line)
            print(json.dumps({{"action": request["legal_actions"][-1]}}), flush=True)
    """)
    spec = command(script) + ",depth=3,timeout=7"
    result = play_match(MatchSpec("totality:easy", spec, "random", seed=4))
    assert result.error is None
    rules = load_game("totality:easy")
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) > 3
    for ply, request in enumerate(requests):
        assert set(request) == {"game", "state", "state_json", "to_move", "legal_actions", "limits", "seed", "ply"}
        state = rules.state_from_json(request["state_json"])
        assert request["game"] == "totality:level=easy"
        assert request["state"] == rules.notation(state)
        assert request["to_move"] == rules.to_move(state) == rules.user_side
        assert request["legal_actions"] == rules.legal_actions(state)
        assert request["limits"] == {"depth": 3, "timeout": 7.0}
        assert request["seed"] == 4 and request["ply"] == ply


def test_a_bare_action_reply_is_accepted(tmp_path):
    script = engine(tmp_path, """
        for line in sys.stdin:
            print(json.dumps(json.loads(line)["legal_actions"][0]), flush=True)
    """)
    assert play_match(MatchSpec(GAME, command(script), "random", seed=1)).error is None


def test_the_engine_is_started_once_per_match_and_stopped_after_it(tmp_path):
    script = engine(tmp_path, """
        for line in sys.stdin:
            print(json.dumps({"action": json.loads(line)["legal_actions"][0]}), flush=True)
    """)
    result = play_match(MatchSpec(GAME, command(script), "random", seed=1))
    assert result.error is None and result.plies > 10
    [pid] = pids(tmp_path)
    assert_gone(pid)


def test_building_the_player_starts_nothing_and_close_is_idempotent(tmp_path):
    script = engine(tmp_path, "sys.stdin.read()\n")
    player = players.load(command(script))
    assert not (tmp_path / "pids").exists()
    player.close()
    player.close()


def test_an_engine_that_sleeps_past_its_timeout_is_killed_and_loses(tmp_path):
    script = engine(tmp_path, "time.sleep(60)\n")
    result = play_match(MatchSpec(GAME, command(script) + ",timeout=0.5", "random", seed=1))
    assert (result.outcome, result.reason, result.score) == ("loss", "player_error", 0.0)
    assert "did not reply within 0.5 s and was killed" in result.error
    [pid] = pids(tmp_path)
    assert_gone(pid)


def test_an_engine_that_answers_garbage_loses(tmp_path):
    script = engine(tmp_path, """
        for line in sys.stdin:
            print("e2e4 please", flush=True)
    """)
    result = play_match(MatchSpec(GAME, command(script), "random", seed=1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    assert "not JSON: 'e2e4 please'" in result.error
    assert_gone(pids(tmp_path)[0])


def test_an_engine_that_crashes_loses_and_its_stderr_is_reported(tmp_path):
    script = engine(tmp_path, """
        sys.stdin.readline()
        print("out of cheese", file=sys.stderr, flush=True)
        sys.exit(3)
    """)
    result = play_match(MatchSpec(GAME, command(script), "random", seed=1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    assert "closed its output without replying (exit code 3)" in result.error
    assert "out of cheese" in result.error


def test_an_engine_that_crashes_mid_game_loses_at_that_move(tmp_path):
    script = engine(tmp_path, """
        for number, line in enumerate(sys.stdin):
            if number == 3:
                raise SystemExit(1)
            print(json.dumps({"action": json.loads(line)["legal_actions"][0]}), flush=True)
    """)
    result = play_match(MatchSpec(GAME, command(script), "random", seed=1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    rules = load_game(GAME)
    state = rules.initial_state()
    played = []
    for action in result.actions:
        if rules.to_move(state) == rules.user_side and action != {"type": "pass"}:
            played.append(action)
        state = rules.apply(state, action)
    assert not rules.is_terminal(state) and len(played) == 3


def test_an_engine_that_plays_an_illegal_action_loses(tmp_path):
    script = engine(tmp_path, """
        for line in sys.stdin:
            print(json.dumps({"action": {"type": "place", "row": 99, "col": 99}}), flush=True)
    """)
    result = play_match(MatchSpec(GAME, command(script), "random", seed=1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    assert "not one of the" in result.error and "legal actions" in result.error


def test_a_program_that_does_not_exist_loses_without_failing_the_match():
    result = play_match(MatchSpec(GAME, "external:command=no-such-engine-anywhere --fast", "random", seed=1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    assert "could not be started" in result.error


def test_a_failing_engine_in_the_opponent_seat_loses_for_the_opponent(tmp_path):
    script = engine(tmp_path, "time.sleep(60)\n")
    result = play_match(MatchSpec("xiangqi:black", "random", command(script) + ",timeout=0.3", seed=1))
    assert (result.outcome, result.reason) == ("win", "opponent_error")
    assert "did not reply" in result.error
    assert_gone(pids(tmp_path)[0])


def test_the_command_runs_without_a_shell(tmp_path):
    marker = tmp_path / "injected"
    code = "import sys; sys.stdin.readline(); print(sys.argv[1:], flush=True)"
    spec = "external:command=" + json.dumps(shlex.join([sys.executable, "-c", code]) + f" ; touch {marker}")
    player = players.load(spec + ",timeout=20")
    rules = load_game(GAME)
    with pytest.raises(PlayerError, match=r"not JSON: .*\[';', 'touch', "):
        player.choose(rules, rules.initial_state())
    player.close()
    assert not marker.exists()


def test_the_engine_runs_with_a_clean_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_DB", "postgresql://tuner:s3cret@db/harness")
    monkeypatch.setenv("PGPASSWORD", "s3cret")
    script = engine(tmp_path, f"""
        open({str(tmp_path / 'environment')!r}, "w").write(json.dumps(dict(os.environ)))
        for line in sys.stdin:
            print(json.dumps({{"action": json.loads(line)["legal_actions"][0]}}), flush=True)
    """)
    assert play_match(MatchSpec(GAME, command(script), "random", seed=1)).error is None
    environment = json.loads((tmp_path / "environment").read_text())
    assert "HARNESS_DB" not in environment and "PGPASSWORD" not in environment
    assert not any("s3cret" in value for value in environment.values())
    assert environment["PATH"] == os.environ["PATH"]
