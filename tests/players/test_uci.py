"""The UCI player: the real Fairy-Stockfish, a small test engine for every failure, and engine reuse.

The tests that need the real engine take the ``fairy_stockfish`` fixture
(skipped where it is not installed, a failure in CI). Node counts are small so
the whole module takes well under a minute.
"""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import sys

import pytest

import players
from harness.cluster import Pool
from harness.db import open_database
from harness.errors import SpecError
from harness.games import load as load_game
from harness.match import MatchSpec, play_match
from harness.testing import check_player, random_positions
from harness.tournament import play as play_tournament, plan
from players.uci import UCIEngine, action_to_move, move_to_action

TEST_ENGINE = pathlib.Path(__file__).with_name("uci_engine.py")
FAIRY_NODES = 1500


def fairy(command: str, **extra: object) -> str:
    spec = {"kind": "uci", "command": command, "nodes": FAIRY_NODES, "option.Threads": 1} | extra
    return players.load(spec).spec


def scripted(log: pathlib.Path, *args: str, **extra: object) -> str:
    """A ``uci:`` spec for the test engine, logging to ``log``."""
    command = shlex.join([sys.executable, str(TEST_ENGINE), str(log), *args])
    return players.load({"kind": "uci", "command": command, "nodes": 100} | extra).spec


def logged(log: pathlib.Path) -> tuple[list[dict], list[str]]:
    """The test engine's start records (pid, environment) and the commands it received."""
    lines = log.read_text().splitlines()
    starts = [json.loads(line) for line in lines if line.startswith("{")]
    return starts, [line for line in lines if not line.startswith("{")]


def assert_gone(pid: int) -> None:
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def replay(result) -> None:
    """Every recorded action is legal by the project's engine, and the game ends as recorded."""
    rules = load_game(result.game)
    state = rules.initial_state()
    for action in result.actions:
        assert action in rules.legal_actions(state)
        state = rules.apply(state, action)
    assert rules.is_terminal(state) and rules.outcome(state) == (result.outcome, result.reason)


@pytest.fixture(autouse=True)
def no_idle_engines():
    """Each test starts and ends without idle engines in this process."""
    players.shutdown()
    yield
    players.shutdown()


# ---- coordinates ------------------------------------------------------------------------------

@pytest.mark.parametrize("first_rank", [1, 0])
def test_every_legal_move_of_many_positions_translates_both_ways(first_rank):
    rules = load_game("xiangqi")
    count = 0
    for state in random_positions(rules, 40, seed=5, step=3):
        for action in rules.legal_actions(state):
            move = action_to_move(action, first_rank)
            assert move_to_action(move, first_rank) == action
            count += 1
    assert count > 1000
    assert action_to_move({"from": [9, 7], "to": [7, 6]}, 1) == "h1g3"
    assert action_to_move({"from": [0, 0], "to": [1, 0]}, 1) == "a10a9"
    assert action_to_move({"from": [7, 7], "to": [7, 4]}, 0) == "h2e2"


@pytest.mark.parametrize("text", ["banana", "", "j1a1", "a11a1", "a0a1", "e2e4e5", "A1A2"])
def test_text_that_is_not_a_move_is_refused(text):
    with pytest.raises(ValueError):
        move_to_action(text, 1)


def test_fairy_stockfish_lists_exactly_the_legal_moves_of_the_projects_engine(fairy_stockfish):
    rules = load_game("xiangqi")
    engine = UCIEngine([fairy_stockfish], {}, "auto", timeout=20)
    try:
        assert engine.name.startswith("Fairy-Stockfish") and engine.first_rank == 1
        for state in random_positions(rules, 30, seed=9, step=5):
            engine.process.send(f"position fen {rules.to_fen(state)}")
            engine.process.send("go perft 1")
            lines = engine._lines_until("Nodes", 20, prefix=True)
            moves = [line.split(":")[0] for line in lines if line.endswith(": 1")]
            legal = rules.legal_actions(state)
            assert len(moves) == len(legal) and sorted(moves) == sorted(action_to_move(a, 1) for a in legal)
            assert sorted((move_to_action(m, 1) for m in moves), key=json.dumps) == sorted(legal, key=json.dumps)
    finally:
        engine.close()


# ---- the real engine --------------------------------------------------------------------------

def test_handshake_sets_the_variant_and_the_options(fairy_stockfish):
    engine = UCIEngine([fairy_stockfish], {"Hash": "8", "threads": "1"}, "auto", timeout=20)
    try:
        assert {"Hash", "Threads", "UCI_Variant"} <= set(engine.options)
        engine.new_game(20)
        move, info = engine.search(load_game("xiangqi").to_fen(load_game("xiangqi").initial_state()), [],
                                   "go nodes 500", 20)
        assert move_to_action(move, 1) in load_game("xiangqi").legal_actions(load_game("xiangqi").initial_state())
        assert info["nodes"] >= 1 and info["depth"] >= 1 and "score" in info
    finally:
        engine.close()
    assert_gone(engine.process.pid)


def test_an_option_the_engine_lacks_is_a_player_error_naming_its_options(fairy_stockfish):
    result = play_match(MatchSpec("xiangqi", fairy(fairy_stockfish, **{"option.Speed": 9}), "random", 1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    assert "has no option 'Speed'" in result.error and "Hash" in result.error


def test_fairy_stockfish_beats_random_and_reports_its_search_in_the_counters(fairy_stockfish):
    result = play_match(MatchSpec("xiangqi", fairy(fairy_stockfish), "random", seed=3))
    assert (result.outcome, result.error) == ("win", None)
    replay(result)
    counters = result.counters
    assert counters["player_uci_moves"] == (result.plies + 1) // 2
    assert counters["player_uci_nodes"] >= FAIRY_NODES * counters["player_uci_moves"] // 2
    assert counters["player_uci_depth"] >= counters["player_uci_moves"] and "player_uci_score_cp" in counters


def test_a_game_against_alphabeta_is_legal_throughout_and_replays_on_a_reused_engine(fairy_stockfish):
    spec = MatchSpec("xiangqi:black", "alphabeta:nodes=1500", fairy(fairy_stockfish), seed=2, opening_plies=2)
    first = play_match(spec)
    assert first.error is None and first.plies > 10
    replay(first)
    again = play_match(spec)  # the idle engine of the first match, after ucinewgame
    assert again.actions == first.actions and again.counters == first.counters


def test_the_player_contract_in_both_seats(fairy_stockfish):
    for game in ("xiangqi", "xiangqi:black"):
        player = players.load(fairy(fairy_stockfish, nodes=300), game=game)
        try:
            check_player(player, load_game(game), games=2, seed=4, max_plies=30)
        finally:
            player.close()


# ---- a tournament on Ray ----------------------------------------------------------------------

def engine_children(pid: int) -> list[int]:
    """Process ids of the fairy-stockfish processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        try:
            name = (entry / "comm").read_text().strip()
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and name.startswith("fairy-stockfish"):
            found.append(int(entry.name))
    return found


def test_a_tournament_on_ray_reuses_one_engine_per_worker_and_closes_them_with_the_pool(
        fairy_stockfish, ray_cluster, tmp_path):
    config = plan("xiangqi", [fairy(fairy_stockfish, nodes=400)], "random", games=6)
    with open_database(f"sqlite:///{tmp_path / 'results.db'}") as database:
        run_id = database.start_run("tournament", config.game, config.to_dict())
        pool = Pool(workers=2)
        try:
            report = play_tournament(database, run_id, config, pool)
            worker_pids = pool.worker_pids()
            engines = {pid: engine_children(pid) for pid in worker_pids}
        finally:
            pool.close()
        assert report.recorded == 6
        matches = database.matches(run_id=run_id)
        assert all(match.error is None and match.outcome == "win" for match in matches)
    assert all(len(children) == 1 for children in engines.values()), engines  # one per worker, reused
    for children in engines.values():
        assert_gone(children[0])


# ---- failures, with the test engine -----------------------------------------------------------

def test_an_engine_that_hangs_on_go_is_killed_and_loses(tmp_path):
    log = tmp_path / "log"
    result = play_match(MatchSpec("xiangqi", scripted(log, "--mode", "hang", timeout=0.5), "random", 1))
    assert (result.outcome, result.reason, result.score) == ("loss", "player_error", 0.0)
    assert "did not reply within 0.5 s and was killed (awaiting bestmove)" in result.error
    starts, _ = logged(log)
    assert_gone(starts[0]["pid"])


def test_an_engine_that_hangs_in_the_handshake_loses_in_the_opponent_seat(tmp_path):
    log = tmp_path / "log"
    result = play_match(MatchSpec("xiangqi", "random", scripted(log, "--mode", "hang-handshake",
                                                                start_timeout=3), 1))
    assert (result.outcome, result.reason) == ("win", "opponent_error")
    assert "awaiting uciok" in result.error
    assert_gone(logged(log)[0][0]["pid"])


@pytest.mark.parametrize("mode, message", [
    ("garbage", "sent 'bestmove banana': 'banana' is not a move"),
    ("illegal", "sent bestmove a1a1 ("),
    ("crash", "closed its output without replying (awaiting bestmove) (exit code 139); stderr: segmentation"),
])
def test_an_engine_that_misbehaves_loses_and_is_not_reused(tmp_path, mode, message):
    log = tmp_path / "log"
    spec = scripted(log, "--mode", mode)
    result = play_match(MatchSpec("xiangqi", spec, "random", 1))
    assert (result.outcome, result.reason) == ("loss", "player_error")
    assert message in result.error
    assert_gone(logged(log)[0][0]["pid"])
    play_match(MatchSpec("xiangqi", spec, "random", 2))
    assert len(logged(log)[0]) == 2  # a new engine for the next match


def test_the_engine_is_reused_across_matches_with_ucinewgame_and_quits_at_shutdown(tmp_path):
    log = tmp_path / "log"
    spec = scripted(log, **{"option.Hash": 32})
    for seed in (1, 2):
        result = play_match(MatchSpec("xiangqi", spec, "random", seed))
        assert result.error is None and result.counters["player_uci_nodes"] == 1234 * result.counters[
            "player_uci_moves"]
    starts, commands = logged(log)
    assert len(starts) == 1
    assert commands[:4] == ["uci", "setoption name UCI_Variant value xiangqi", "setoption name Hash value 32",
                            "isready"]
    assert commands.count("ucinewgame") == 2
    positions = [line for line in commands if line.startswith("position fen ")]
    assert positions[0] == "position fen " + load_game("xiangqi").to_fen(load_game("xiangqi").initial_state())
    assert positions[1].startswith(positions[0] + " moves ") and len(positions[2].split(" moves ")[1].split()) == 4
    players.shutdown()
    assert commands != logged(log)[1] and logged(log)[1][-1] == "quit"
    assert_gone(starts[0]["pid"])


def test_a_pikafish_style_engine_without_uci_variant_speaks_ranks_0_to_9(tmp_path):
    log = tmp_path / "log"
    result = play_match(MatchSpec("xiangqi:black", "random", scripted(log, "--ranks", "0-9"), 3))
    assert result.error is None
    replay(result)
    _, commands = logged(log)
    assert not any("UCI_Variant" in line for line in commands)
    forced = play_match(MatchSpec("xiangqi", scripted(log, "--ranks", "0-9", ranks="1-10"), "random", 3))
    assert forced.reason == "player_error"  # the same engine read with the wrong ranks


def test_the_engine_runs_with_a_clean_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_DB", "postgresql://tuner:s3cret@db/harness")
    monkeypatch.setenv("PGPASSWORD", "s3cret")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    log = tmp_path / "log"
    assert play_match(MatchSpec("xiangqi", scripted(log), "random", 1)).error is None
    environment = logged(log)[0][0]["environment"]
    assert "HARNESS_DB" not in environment and "PGPASSWORD" not in environment
    assert not any("s3cret" in value for value in environment.values())
    assert environment["PATH"] == os.environ["PATH"] and environment["LC_ALL"] == "C.UTF-8"


def test_the_command_runs_without_a_shell(tmp_path):
    marker = tmp_path / "injected"
    log = tmp_path / "log"
    command = shlex.join([sys.executable, str(TEST_ENGINE), str(log)]) + f" ; touch {marker}"
    result = play_match(MatchSpec("xiangqi", players.load({"kind": "uci", "command": command, "nodes": 9}).spec,
                                  "random", 1))
    assert result.error is None and not marker.exists()
    assert logged(log)[0][0]["extra"] == [";", "touch", str(marker)]


# ---- specs ------------------------------------------------------------------------------------

def test_specs_round_trip_with_options_sorted_after_the_parameters():
    player = players.load("uci:command=fairy-stockfish,option.Threads=1,nodes=2000,option.Skill Level=5")
    assert player.spec == "uci:command=fairy-stockfish,nodes=2000,option.Skill Level=5,option.Threads=1"
    assert players.load(player.spec) == player
    table = players.load({"kind": "uci", "command": "fairy-stockfish", "nodes": 2000,
                          "options": {"Threads": 1, "Skill Level": 5}})
    assert table == player and players.runs_command(player) and not players.runs_command("gbot")
    assert players.load("uci:fairy-stockfish,depth=3").params["command"] == "fairy-stockfish"


def test_limits_become_the_go_command():
    player = players.load("uci:command=e,depth=5,nodes=100")
    assert player.go_command() == ("go depth 5 nodes 100", 0.0)
    assert players.load("uci:command=e,time=0.5").go_command() == ("go movetime 500", 0.5)
    assert players.load("uci:command=e,movetime=250").go_command(players.Limits(time=2.0)) == (
        "go movetime 2000", 2.0)


@pytest.mark.parametrize("spec, message", [
    ("uci:nodes=10", "needs command="),
    ("uci:command=e", "needs a limit"),
    ("uci:command=e,time=1,movetime=10", "not both"),
    ("uci:command=e,nodes=0", "at least 1"),
    ("uci:command=e,nodes=10,ranks=1-9", "valid values: auto, 1-10, 0-9"),
    ('uci:command=e,nodes=10,option.Hash="16\\nquit"', "one line of text"),
])
def test_bad_specs_are_spec_errors(spec, message):
    with pytest.raises(SpecError, match=message):
        players.load(spec)


def test_a_uci_player_plays_chinese_chess_only():
    with pytest.raises(SpecError, match="plays xiangqi, not totality"):
        players.load("uci:command=e,nodes=10", game="totality")
    with pytest.raises(SpecError):
        play_match(MatchSpec("totality", "uci:command=e,nodes=10", "random", 1))
