"""scripts/judge_games.py: the real Fairy-Stockfish reads stored Chinese chess matches move by move and
names the measured seat's worst move; bad input is one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.match import MatchSpec, play_match
from tests.scripts import export_file, script_module

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "judge_games.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """An export file: a random red player's loss, a black win against random, and a Totality match."""
    specs = [MatchSpec("xiangqi", "random", "gbot:depth=2", 2, 2),
             MatchSpec("xiangqi:black", "gbot:depth=2", "random", 0, 2),
             MatchSpec("totality", "random", "greedy", 0, 2)]
    return export_file(tmp_path_factory.mktemp("judge") / "results.jsonl", specs)


def test_match_result_lines_read_as_export_lines_do(tmp_path):
    with script_module("judge_games") as script:
        lines = tmp_path / "lines.jsonl"
        lines.write_text(json.dumps(play_match(MatchSpec("xiangqi", "random", "random", 1, 2)).to_dict()) + "\n")
        exported = export_file(tmp_path / "exported.jsonl", [MatchSpec("xiangqi", "random", "random", 1, 2)])
        chosen = [script.selected(script.read_matches(path), "any", None, None) for path in (lines, exported)]
    assert [len(found) for found in chosen] == [1, 1]
    assert chosen[0][0]["actions"] == chosen[1][0]["actions"]


def test_the_losses_are_judged_and_the_worst_move_is_the_seats_own(fairy_stockfish, results):
    done = run(str(results), "--depth", "3", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (game,) = report["games"]  # only the loss: the win is filtered out and Totality is not judged
    assert (game["game"], game["outcome"], game["seed"]) == ("xiangqi", "loss", 2)
    worst = game["worst"]
    assert worst["ply"] >= 2 and worst["ply"] % 2 == 0  # after the two random plies, on a red turn
    assert worst["drop"] == pytest.approx(worst["before"] - worst["after"], abs=0.01)
    assert report["summary"]["games"] == 1 and sum(report["summary"]["decided"].values()) == 1


def test_any_outcome_and_a_seat_read_from_black(fairy_stockfish, results):
    done = run(str(results), "--depth", "2", "--outcome", "any", "--json")
    assert done.returncode == 0, done.stderr
    games = json.loads(done.stdout)["games"]
    assert [g["game"] for g in games] == ["xiangqi", "xiangqi:seat=black"]
    black = games[1]
    assert black["outcome"] == "win" and black["worst"]["ply"] % 2 == 1 and black["lost_from"] is None


def test_tried_players_choose_at_the_worst_move_and_are_read_beside_the_played_move(fairy_stockfish, results):
    done = run(str(results), "--depth", "3", "--try", "gbot:depth=2", "--try", "random", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (game,) = report["games"]
    tried = game["worst"]["tried"]
    assert list(tried) == ["played", "gbot:depth=2", "random"]
    assert tried["played"]["move"] == game["worst"]["move"]  # the game's own move, read again
    summary = report["summary"]["tried"]
    assert {spec: counts["positions"] for spec, counts in summary.items()} == dict.fromkeys(tried, 1)
    for spec, counts in summary.items():  # measured against the engine's own move, read the same way
        assert counts["mistakes"] == int(game["worst"]["engine_after"] - tried[spec]["after"] > 2.0)
        if tried[spec]["move"] == game["worst"]["engine_move"]:  # the engine's own move is never a mistake
            assert tried[spec]["after"] == game["worst"]["engine_after"]


def test_a_file_still_being_written_is_read_without_its_torn_line_and_left_as_it_is(fairy_stockfish, results,
                                                                                      tmp_path):
    writing = tmp_path / "writing.jsonl"
    whole = results.read_text()
    writing.write_text(whole + whole[:40])  # a run in the middle of appending a match
    done = run(str(writing), "--depth", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["games"] == 1
    assert writing.read_text() == whole + whole[:40]  # a reader does not cut a writer's file


def test_a_cache_answers_a_second_screen_with_the_first_ones_readings(fairy_stockfish, results, tmp_path):
    cache = tmp_path / "readings.jsonl"
    first = run(str(results), "--depth", "3", "--try", "gbot:depth=2", "--cache", str(cache), "--json")
    assert first.returncode == 0, first.stderr
    read = cache.read_text().splitlines()
    assert read and all(json.loads(line)["depth"] == 3 for line in read)
    again = run(str(results), "--depth", "3", "--try", "gbot:depth=2", "--cache", str(cache), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert cache.read_text().splitlines() == read  # nothing read twice
    deeper = run(str(results), "--depth", "4", "--cache", str(cache), "--json")  # another depth reads anew
    assert deeper.returncode == 0, deeper.stderr
    assert len(cache.read_text().splitlines()) > len(read)


@pytest.mark.parametrize("args, says", [
    (["missing.jsonl"], "missing.jsonl is not a file"),
    (["--depth", "0"], "--depth must be at least 1"),
    (["--engine", "no-such-engine-here"], "--engine no-such-engine-here"),
    (["--opponent", "gbot:depth=banana"], "depth"),
    (["--try", "nosuchplayer"], "nosuchplayer"),
    (["--drop", "0"], "--drop above 0"),
])
def test_bad_input_is_one_line_and_exit_2(results, args, says):
    files = [] if args[0].endswith(".jsonl") else [str(results)]
    done = run(*files, *args)
    assert done.returncode == 2
    assert says in done.stderr and done.stdout == ""
