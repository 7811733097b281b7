"""scripts/eval_players.py's results file: a long measurement resumes, survives a torn
write, and its stored matches can be replayed to prove they are not stale."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.scripts import script_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def script():
    with script_module("eval_players") as module:
        yield module


@pytest.fixture(scope="module")
def rename_player():
    with script_module("rename_player") as module:
        yield module


@pytest.fixture
def rows(script):
    return [script.Row("greedy vs random", "totality", "greedy", "random"),
            script.Row("random vs greedy", "totality:easy", "random", "greedy")]


def test_matches_run_seed_by_seed_across_the_rows(script, rows):
    order = [(index, spec.seed) for index, spec in script.match_specs(rows, 2)]
    assert order == [(0, 0), (1, 0), (0, 1), (1, 1)]


def test_a_run_resumes_from_its_results_file(script, rows, tmp_path):
    path = tmp_path / "results.jsonl"
    first = script.evaluate(rows, 2, 1, path)
    lines = path.read_text().splitlines()
    assert len(lines) == 4 and [row["matches"] for row in first] == [2, 2]
    again = script.evaluate(rows, 2, 1, path)
    assert path.read_text().splitlines() == lines  # nothing played twice
    assert [row["mean"] for row in again] == [row["mean"] for row in first]
    more = script.evaluate(rows, 3, 1, path)
    grown = path.read_text().splitlines()
    assert grown[:4] == lines and len(grown) == 6
    assert [row["matches"] for row in more] == [3, 3]
    assert {json.loads(line)["seed"] for line in grown} == {0, 1, 2}


def test_a_torn_last_line_is_dropped_and_cut(script, rows, tmp_path):
    path = tmp_path / "results.jsonl"
    script.evaluate(rows[:1], 2, 1, path)
    whole = path.read_text()
    path.write_text(whole + whole.splitlines()[0][:40])  # a write cut short by an interruption
    assert len(script.load_results(path)) == 2
    assert path.read_text() == whole
    script.evaluate(rows[:1], 3, 1, path)
    assert len(script.load_results(path)) == 3


def test_a_damaged_line_inside_the_file_is_an_error(script, rows, tmp_path):
    path = tmp_path / "results.jsonl"
    script.evaluate(rows[:1], 2, 1, path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(["{not json", *lines]) + "\n")
    with pytest.raises(SystemExit, match="line 1 is not a match result"):
        script.load_results(path)


def test_verify_replays_stored_matches_and_names_a_stale_one(script, rows, tmp_path):
    path = tmp_path / "results.jsonl"
    script.evaluate(rows, 3, 1, path)
    assert script.verify(rows, 3, path, 6, 1) == (6, [])
    stored = [json.loads(line) for line in path.read_text().splitlines()]
    stored[2]["score"] += 1  # as if a search change had altered this game
    path.write_text("".join(json.dumps(r) + "\n" for r in stored))
    assert script.verify(rows, 3, path, 6, 1) == (6, [stored[2]["key"]])


def test_stored_only_summarises_what_the_file_holds(script, rows, tmp_path):
    path = tmp_path / "results.jsonl"
    script.evaluate(rows[:1], 2, 1, path)
    before = path.read_text()
    summaries = script.evaluate(rows, 5, 1, path, play=False)
    assert path.read_text() == before  # nothing played
    assert [(s["label"], s["matches"]) for s in summaries] == [("greedy vs random", 2)]
    totals = script.ladder_totals(summaries)
    assert totals[0]["games_per_rung"] == [2, 2]
    assert "| 2 |" in script.ladder_markdown(totals)


def test_totality_easy_replays_the_wise_games_and_verify_plays_them_for_real(script, tmp_path):
    """Neither the players nor the rungs read Totality's level, so a seed plays the same game at
    both levels: the easy rows replay the stored wise matches, scored at easy (x 0.6, floored)."""
    path = tmp_path / "results.jsonl"
    rows = [script.Row("wise", "totality", "greedy", "gbot:level=easy"),
            script.Row("easy", "totality:easy", "greedy", "gbot:level=easy")]
    same = {"totality:easy": "totality"}
    wise, easy = script.evaluate(rows, 3, 1, path, same_games=same)
    stored = [json.loads(line) for line in path.read_text().splitlines()]
    played = [r for r in stored if "replayed_from" not in r["extra"]]
    derived = [r for r in stored if "replayed_from" in r["extra"]]
    assert len(played) == 3 and len(derived) == 3  # each wise match played once, each easy one replayed
    by_key = {r["key"]: r for r in played}
    for row in derived:
        base = by_key[row["extra"]["replayed_from"]]
        assert row["game"] == "totality:level=easy" and row["actions"] == base["actions"]
        assert row["score"] == (base["score"] * 6) // 10
    assert (easy["win"], easy["draw"], easy["loss"]) == (wise["win"], wise["draw"], wise["loss"])
    assert script.verify(rows, 3, path, 6, 1) == (6, [])  # the easy games, played for real, are the same


def test_a_replayed_row_alone_plays_its_base_match(script, tmp_path):
    path = tmp_path / "results.jsonl"
    rows = [script.Row("easy", "totality:easy", "greedy", "random")]
    [easy] = script.evaluate(rows, 2, 1, path, same_games={"totality:easy": "totality"})
    games = sorted(json.loads(line)["game"] for line in path.read_text().splitlines())
    assert games == ["totality", "totality", "totality:level=easy", "totality:level=easy"] and easy["matches"] == 2


def test_rung_keeps_only_the_named_rungs_and_names_the_valid_ones(script):
    from players.ladder import ladder
    rungs = ladder("ravenward")
    rows = script.ladder_rows("ravenward", "greedy", [rungs[-1], rungs[0]])
    assert [row.opponent for row in rows] == [rungs[0], rungs[-1]]  # the ladder's order
    assert len(script.ladder_rows("ravenward", "greedy")) == len(rungs)
    with pytest.raises(ValueError, match="gbot:depth=9 is not a rung of ravenward's ladder; its rungs: gbot"):
        script.ladder_rows("ravenward", "greedy", ["gbot:depth=9"])


def test_renamed_lines_replay_under_the_spec_they_now_name(script, rename_player, tmp_path):
    from players.strong import strong_spec
    plain = strong_spec("ravenward", nodes=2000)  # the alpha-beta spec strong:nodes=2000 plays as
    rows = [script.Row("strong vs random", "ravenward", "strong:nodes=2000", "random"),
            script.Row("greedy vs random", "ravenward", "greedy", "random")]
    source, target = tmp_path / "strong.jsonl", tmp_path / "plain.jsonl"
    script.evaluate(rows, 2, 1, source)
    assert rename_player.rename(source, target, "strong:nodes=2000", plain) == 2
    renamed = [json.loads(line) for line in target.read_text().splitlines()]
    assert sorted(r["player"] for r in renamed) == sorted([plain, plain, "greedy", "greedy"])
    moved = [script.Row("plain vs random", "ravenward", plain, "random")]
    assert script.verify(moved, 2, target, 2, 1) == (2, [])  # found under the new keys and replayed identically
    (summary,) = script.evaluate(moved, 2, 1, target)
    assert summary["matches"] == 2 and len(target.read_text().splitlines()) == 4  # found, not played again


def test_verify_refuses_a_file_without_the_rows_matches(script, rows, tmp_path):
    path = tmp_path / "results.jsonl"
    script.evaluate(rows[:1], 1, 1, path)
    with pytest.raises(SystemExit, match="holds none of these rows' matches"):
        script.verify(rows[1:], 1, path, 2, 1)


def test_paired_compares_each_row_seed_by_seed_with_a_stored_baseline(script, tmp_path):
    candidate = [script.Row("greedy vs random", "totality", "greedy", "random"),
                 script.Row("greedy vs gbot", "totality", "greedy", "gbot:depth=1")]
    baseline = [script.Row("random vs random", "totality", "random", "random"),
                script.Row("random vs gbot", "totality", "random", "gbot:depth=1")]
    mine, theirs = tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl"
    script.evaluate(candidate, 3, 1, mine)
    script.evaluate(baseline[:1], 2, 1, theirs)  # the second row has no baseline; the first only 2 seeds
    (row,) = script.paired(candidate, 3, mine, theirs, "random")
    scores = {(r["player"], r["seed"]): r["score"] for path in (mine, theirs)
              for r in map(json.loads, path.read_text().splitlines()) if r["opponent"] == "random"}
    expected = [scores["greedy", seed] - scores["random", seed] for seed in (0, 1)]
    assert row["pairs"] == 2 and row["difference"][0] == pytest.approx(sum(expected) / 2)
    assert row["baseline"]["mean"] == pytest.approx((scores["random", 0] + scores["random", 1]) / 2)
    script.evaluate(baseline, 3, 1, theirs)
    rows = script.paired(candidate, 3, mine, theirs, "random")
    assert [r["pairs"] for r in rows] == [3, 3, 6] and rows[-1]["label"] == "all rows"
    table = script.paired_markdown(rows, "greedy", "random")
    assert "| all rows | 6 |" in table and "| `random` | 3 |" in table   # one game: rows named by opponent


def test_paired_pools_each_game_once_not_the_easy_rows_that_rescore_the_wise_games(script, tmp_path):
    """Under --same-games the easy rows are the wise games rescored (the same seeds and move lists):
    the pooled row counts those games once, with the wise scores, and says how many pairs it left out."""
    levels, opponents, same = ("totality", "totality:easy"), ("random", "gbot:depth=1"), {"totality:easy": "totality"}
    files = {}
    for player in ("greedy", "random"):
        files[player] = tmp_path / f"{player}.jsonl"
        script.evaluate([script.Row(f"{player} {o} {g}", g, player, o) for g in levels for o in opponents], 3, 1,
                        files[player], same_games=same)
    candidate = [script.Row(f"greedy {o} {g}", g, "greedy", o) for g in levels for o in opponents]
    *rows, pooled = script.paired(candidate, 3, files["greedy"], files["random"], "random")
    assert [r["pairs"] for r in rows] == [3, 3, 3, 3] and pooled["label"] == "all rows"
    assert pooled["pairs"] == 6 and pooled["rescored"] == 6  # not 12: the easy pairs are the wise games again
    scores = {(r["player"], r["opponent"], r["seed"]): r["score"] for path in files.values()
              for r in map(json.loads, path.read_text().splitlines()) if r["game"] == "totality"}
    wise = [scores["greedy", o, seed] - scores["random", o, seed] for o in opponents for seed in range(3)]
    assert pooled["difference"] == pytest.approx(list(script.mean_interval(wise)))
    assert pooled["this"]["matches"] == 6 and pooled["baseline"]["matches"] == 6
    table = script.paired_markdown([*rows, pooled], "greedy", "random")
    assert "| all rows, each game once (6 rescored pairs not pooled) | 6 |" in table


def test_paired_rows_of_two_games_name_their_game_and_rates_keep_two_decimals(script, tmp_path):
    """Chinese chess's two seats against one rung are two rows; the table must tell them apart, and a
    rank-1 share shows the hundredths a lost game in twenty moves."""
    files, seats = {}, ("xiangqi", "xiangqi:black")
    for player in ("greedy", "random"):
        files[player] = tmp_path / f"{player}.jsonl"
        script.evaluate([script.Row(f"{player} {game}", game, player, "random") for game in seats], 2, 1, files[player])
    candidate = [script.Row(f"greedy {game}", game, "greedy", "random") for game in seats]
    rows = script.paired(candidate, 2, files["greedy"], files["random"], "random")
    table = script.paired_markdown(rows, "greedy", "random")
    assert "| xiangqi: `random` | 2 |" in table and "| xiangqi:black: `random` | 2 |" in table
    mean = rows[-1]["difference"][0]
    assert f"| {mean:+.2f} [" in table


def test_sigterm_ends_the_workers_with_the_driver_and_keeps_whole_lines(tmp_path):
    """A stop ends the workers too (none plays on unseen after the driver is gone), exits 130, and leaves
    whole lines only."""
    path = tmp_path / "results.jsonl"
    command = [sys.executable, str(ROOT / "scripts" / "eval_players.py"), "totality", "--ladder", "--player",
               "greedy", "--rung", "gbot:depth=3,eval=material", "--matches", "5000", "--workers", "2",
               "--results", str(path), "--json"]
    driver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (path.is_file() and path.read_text().count("\n") >= 3) and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = Path(f"/proc/{driver.pid}/task/{driver.pid}/children").read_text().split()
        assert len(workers) == 2
        driver.send_signal(signal.SIGTERM)
        _, err = driver.communicate(timeout=60)
    finally:
        driver.kill()
    assert driver.returncode == 130
    assert "stopped; the matches finished are kept in --results, and the same command resumes" in err
    assert "Traceback" not in err
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid), 0)
    kept = path.read_text()
    assert kept.endswith("\n") and 3 <= kept.count("\n") < 5000
    assert all(json.loads(line)["player"] == "greedy" for line in kept.splitlines())


def test_same_budget_renames_only_the_games_a_longer_search_when_behind_leaves_as_they_were(script, rename_player,
                                                                                            tmp_path):
    old, new = "alphabeta:depth=60,nodes=300", "alphabeta:behind=2,depth=60,nodes=300"
    source, target = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    script.evaluate([script.Row("old", "xiangqi", old, "gbot:depth=1")], 6, 1, source)
    kept = rename_player.rename(source, target, old, new, same_budget=True)
    assert 0 < kept < 6  # some games went a settled soldier or more behind at the player's turn, some never did
    moved = [script.Row("new", "xiangqi", new, "gbot:depth=1")]
    assert script.verify(moved, 6, target, kept, 1) == (kept, [])  # the kept games replay move for move
    (summary,) = script.evaluate(moved, 6, 1, target)
    assert summary["matches"] == 6 and len(target.read_text().splitlines()) == 6  # the others played again
    with pytest.raises(ValueError, match="differ in more than behind, extend"):
        rename_player.rename(source, tmp_path / "no.jsonl", old, "alphabeta:behind=2,depth=60,nodes=400",
                             same_budget=True)
