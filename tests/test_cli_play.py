"""The ``harness`` command's core: ``games``, ``play``, ``--version`` and clean failures on bad input."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from harness import __version__
from harness.cli import main
from harness.games import load as load_game, names as game_names
from harness.games.openings import load_suite

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_games_lists_every_game_with_its_options(capsys):
    code, out, err = run(capsys, "games")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == game_names()
    assert "[level: wise|easy]" in out and "[seat: red|black]" in out
    # under each game: its strong player and its ladder of stand-ins
    assert out.count("  strong = alphabeta:") == out.count("  ladder (") == len(game_names())
    assert "gbot:depth=6,eval=material" in out and "uci:command=fairy-stockfish,nodes=1000," in out
    assert out.count("  references beside the ladder: uci:command=fairy-stockfish") == 1
    assert "fairy-stockfish" not in "".join(line for line in out.splitlines() if line.startswith("  ladder ("))


def test_version_prints_the_package_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"harness, version {__version__}"


def test_play_prints_one_summary_line(capsys):
    code, out, err = run(capsys, "play", "totality:easy", "--player", "greedy", "--opponent", "random",
                         "--seed", "3")
    assert code == 0 and err == ""
    [line] = out.splitlines()
    assert line.startswith("totality:level=easy: greedy vs random, seed 3: ")
    assert " plies, " in line and ", score " in line


def test_play_show_prints_the_board_after_every_ply(capsys):
    code, out, _ = run(capsys, "play", "xiangqi:black", "--player", "random", "--opponent", "greedy",
                       "--seed", "1", "--show", "--opening-plies", "2")
    assert code == 0
    rules = load_game("xiangqi:black")
    assert out.startswith(rules.render(rules.initial_state()))
    plies = [line for line in out.splitlines() if line.startswith("ply ")]
    assert plies[0].startswith("ply 1 (opponent): ") and plies[1].startswith("ply 2 (player): ")
    summary = out.splitlines()[-1]
    assert summary.endswith("plies, " + summary.rsplit("plies, ", 1)[1])
    assert len(plies) == int(summary.split(" plies")[0].rsplit(" ", 1)[1])


def test_play_json_prints_the_match_result(capsys):
    code, out, _ = run(capsys, "play", "ravenward", "--player", "greedy", "--opponent", "random",
                       "--seed", "2", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["game"] == "ravenward" and result["seed"] == 2 and len(result["key"]) == 24
    assert result["plies"] == len(result["actions"])


def test_play_from_a_suite_starts_with_the_seeds_opening(capsys):
    suite = load_suite("xiangqi")
    code, out, _ = run(capsys, "play", "xiangqi:black", "--player", "greedy", "--opponent", "random",
                       "--seed", "17", "--openings", suite.name, "--json")
    result = json.loads(out)
    assert code == 0 and result["actions"][:suite.plies] == suite.opening(17)
    assert result["opening_plies"] == suite.plies and result["extra"] == {"openings": suite.name}


def test_a_failing_player_is_reported_on_stderr_and_recorded_as_a_loss(capsys):
    code, out, err = run(capsys, "play", "totality", "--player", "external:command=no-such-engine-anywhere",
                         "--opponent", "random")
    assert code == 0
    assert "loss (player_error)" in out and err.startswith("error: engine 'no-such-engine-anywhere'")


@pytest.mark.parametrize("argv, message", [
    (["play", "chess"], "unknown game 'chess'; valid games: ravenward, totality, xiangqi"),
    (["play", "totality:hard"], "valid values: wise, easy"),
    (["play", "totality", "--player", "alphabeat"], "unknown player kind 'alphabeat'; valid kinds"),
    (["play", "totality", "--player", "alphabeta:dpeth=3"], "valid parameters: behind, depth, endgame, extend, nodes, techniques, tiebreak, time"),
    (["play", "totality", "--opponent", "alphabeta:w.nope=1"], "valid features: "),
    (["play", "totality", "--seed", "many"], "'many' is not a valid integer"),
    (["play", "totality", "--opening-plies", "-1"], "-1 is not in the range x>=0"),
    (["play", "totality", "--colour", "red"], "No such option"),
    (["play", "totality", "--openings", "nope"], "no opening suite 'nope'; valid suites: totality-8ply"),
    (["play", "totality", "--openings", "totality-8ply", "--opening-plies", "2"],
     "give --openings (a suite) or --opening-plies (random plies), not both"),
    (["play"], "Missing argument 'GAME'"),
    (["play", "totality", "--games", "10000000000000000000000"], "is not in the range 1<=x<=1000000"),
    (["dance"], "No such command 'dance'"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_code_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("harness: error: ") and message in err


def test_the_console_entry_point_never_shows_a_traceback():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "harness.cli", "play", "totality", "--player", "nope"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("harness: error: unknown player kind 'nope'")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_play_resolves_a_tuned_player_from_the_results_database(capsys, tmp_path):
    from harness.db import open_database
    url = f"sqlite:///{tmp_path / 'results.db'}"
    with open_database(url) as db:
        db.save_named_player("champion", "alphabeta:depth=2", "totality")
    code, out, err = run(capsys, "play", "totality", "--player", "tuned:champion", "--opponent", "random",
                         "--seed", "4", "--json", "--db", url)
    assert code == 0, err
    assert json.loads(out)["player"] == "alphabeta:depth=2"
    code, _, err = run(capsys, "play", "totality", "--player", "tuned:nobody", "--db", url)
    assert code == 2 and err.count("\n") == 1 and "tuned:champion" in err


def test_playing_a_tuned_player_not_confirmed_better_says_so_in_one_line_and_a_better_one_says_nothing(
        capsys, tmp_path):
    from harness.db import open_database
    url = f"sqlite:///{tmp_path / 'results.db'}"
    with open_database(url) as db:
        db.save_named_player("flat", "alphabeta:depth=1", "totality", verdict="no gain",
                             detail="+0.4 [-2.0, 2.8] over 240 openings")
        db.save_named_player("champion", "alphabeta:depth=2", "totality", verdict="better",
                             detail="+12.3 [4.1, 20.5] over 240 openings")
    code, out, err = run(capsys, "play", "totality", "--player", "tuned:flat", "--opponent", "tuned:flat",
                         "--games", "2", "--json", "--db", url)
    assert code == 0 and len(out.splitlines()) == 2  # stdout stays the results alone
    assert err == ("harness: note: tuned:flat is not confirmed better than its study's incumbent (verdict: no gain); "
                   "its evidence: +0.4 [-2.0, 2.8] over 240 openings\n")
    code, out, err = run(capsys, "play", "totality", "--player", "tuned:champion", "--opponent", "random",
                         "--db", url)
    assert code == 0 and err == ""


def test_play_games_record_stores_a_run_that_show_and_leaderboard_see(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'played.db'}"
    code, out, err = run(capsys, "play", "ravenward", "--player", "greedy", "--opponent", "random", "--seed", "5",
                         "--games", "3", "--record", "--run-name", "warmup", "--db", url)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert [line.split("seed ")[1].split(":")[0] for line in lines[:3]] == ["5", "6", "7"]
    assert lines[3].startswith("3 games: ") and lines[4].startswith("recorded as run 1: harness show ")
    code, out, _ = run(capsys, "runs", "--json", "--db", url)
    (recorded,) = json.loads(out)["runs"]
    assert (recorded["kind"], recorded["name"], recorded["status"], recorded["matches"], recorded["planned"]) == (
        "play", "warmup", "done", 3, 3)
    code, out, _ = run(capsys, "leaderboard", "ravenward", "--run", "warmup", "--json", "--db", url)
    (row,) = json.loads(out)["rows"]
    assert (row["player"], row["games"]) == ("greedy", 3)
    match_id = lines[4].split("harness show ")[1].split(";")[0]
    code, out, _ = run(capsys, "show", match_id, "--db", url)
    assert code == 0 and "greedy vs random, seed 5" in out


def test_play_without_record_writes_nothing_and_bad_input_creates_nothing(tmp_path, capsys):
    path = tmp_path / "none.db"
    code, out, _ = run(capsys, "play", "totality", "--player", "random", "--opponent", "random", "--games", "2",
                       "--json", "--db", f"sqlite:///{path}")
    assert code == 0 and len(out.splitlines()) == 2 and not path.exists()
    code, _, err = run(capsys, "play", "totality", "--player", "nonsense", "--record", "--db", f"sqlite:///{path}")
    assert code == 2 and "unknown player kind" in err and not path.exists()
