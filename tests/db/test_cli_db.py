"""The database commands of the CLI: leaderboard, ratings, export, show, db upgrade."""

from __future__ import annotations

import csv
import io
import json

import pytest

from harness.cli import main
from harness.db import mask_url


@pytest.fixture
def filled(db, make_result):
    """A database with a small totality tournament and a tuned alias."""
    run_id = db.start_run("tournament", "totality", {}, name="cup")
    for seed in range(6):
        db.record(run_id, make_result("greedy", "gbot", seed, score=10.0 + seed, outcome="win"))
        db.record(run_id, make_result("random", "gbot", seed, score=2.0 * seed, outcome="loss"))
    db.save_named_player("greedy-v1", "greedy", "totality")
    return db, run_id


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_leaderboard_json_is_the_documented_stable_document(filled, database_url, capsys):
    db, run_id = filled
    code, out, err = run_cli(capsys, "leaderboard", "totality:wise", "--json", "--run", "cup", "--db", database_url)
    assert code == 0 and err == ""
    document = json.loads(out)
    assert list(document) == ["format", "game", "opponent", "run_id", "by", "confidence", "rows"]
    assert (document["format"], document["game"], document["run_id"], document["by"]) == (
        "harness.leaderboard/1", "totality", run_id, "mean")
    greedy, random_row = document["rows"]
    assert list(greedy) == ["rank", "player", "alias", "games", "wins", "draws", "losses", "mean", "low", "high",
                            "best", "worst", "mismatches", "verdict"]  # keys are only ever added, at the end
    assert (greedy["player"], greedy["alias"], greedy["games"], greedy["wins"], greedy["mean"]) == (
        "greedy", "tuned:greedy-v1", 6, 6, 12.5)
    assert (greedy["verdict"], random_row["alias"], random_row["verdict"]) == ("unconfirmed", None, None)
    assert (random_row["rank"], random_row["losses"], random_row["best"], random_row["worst"]) == (2, 6, 10.0, 0.0)
    row = db.leaderboard("totality")[0]
    assert (greedy["low"], greedy["high"]) == pytest.approx((row.low, row.high))


def test_leaderboard_csv_and_table(filled, database_url, capsys):
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--csv", "--by", "lcb", "--db", database_url)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["player"] for r in rows] == ["greedy", "random"] and rows[0]["alias"] == "tuned:greedy-v1"
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--opponent", "gbot", "--db", database_url)
    assert code == 0 and "greedy" in out and "tuned:greedy-v1" in out and "95% interval" in out


def test_leaderboard_top_keeps_only_the_best_rows_and_never_cuts_numbers(filled, database_url, capsys):
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--top", "1", "--json", "--db", database_url)
    assert code == 0 and [row["player"] for row in json.loads(out)["rows"]] == ["greedy"]
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--top", "1", "--db", database_url)
    assert code == 0 and "random" not in out and "12.500" in out and "…" not in out


def test_ratings_json_lists_every_player_with_an_interval(filled, database_url, capsys):
    code, out, _ = run_cli(capsys, "ratings", "totality", "--json", "--db", database_url)
    document = json.loads(out)
    assert code == 0 and document["format"] == "harness.ratings/1"
    players = {r["player"]: r for r in document["ratings"]}
    assert set(players) == {"greedy", "random", "gbot"}
    assert players["greedy"]["elo"] > players["gbot"]["elo"] > players["random"]["elo"]
    assert all(r["low"] < r["elo"] < r["high"] for r in players.values())
    code, out, _ = run_cli(capsys, "ratings", "totality", "--anchor", "gbot", "--db", database_url)
    assert code == 0 and "Bradley-Terry" in out


def test_export_writes_one_json_line_per_match(filled, database_url, capsys):
    _, run_id = filled
    code, out, _ = run_cli(capsys, "export", "totality", "--run", str(run_id), "--db", database_url)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(lines) == 12
    first = lines[0]
    for key in ("match_id", "run_id", "game", "player", "opponent", "seed", "outcome", "reason", "score", "plies",
                "source", "actions"):
        assert key in first
    assert (first["game"], first["player"], first["opponent"], first["actions"]) == (
        "totality:level=wise", "greedy", "gbot", [{"type": "pass"}, {"type": "pass"}])
    code, out, _ = run_cli(capsys, "export", "ravenward", "--db", database_url)
    assert code == 0 and out == ""


def test_db_upgrade_reports_the_revision_with_the_password_masked(database_url, capsys):
    code, out, _ = run_cli(capsys, "db", "upgrade", "--db", database_url)
    from harness.db.schema import head_revision
    assert code == 0 and out.strip() == f"{mask_url(database_url)}: schema at revision {head_revision()}"


def test_the_db_option_reads_harness_db_from_the_environment(filled, database_url, capsys, monkeypatch):
    monkeypatch.setenv("HARNESS_DB", database_url)
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--json")
    assert code == 0 and len(json.loads(out)["rows"]) == 2


@pytest.mark.parametrize("args, complaint", [
    (["leaderboard", "chess"], "unknown game 'chess'"),
    (["leaderboard", "totality", "--by", "median"], "'median' is not one of 'mean', 'lcb'"),
    (["leaderboard", "totality", "--json", "--csv"], "choose one of --json and --csv"),
    (["leaderboard", "totality", "--run", "nope"], "no run 'nope'"),
    (["leaderboard", "totality", "--opponent", "tuned:nobody"], "unknown tuned player 'tuned:nobody'"),
    (["ratings", "totality", "--anchor", "mcts:iterations=9"], "anchor"),
    (["show", "12345"], "no match 12345"),
    (["show", "first"], "'first' is not a valid integer"),
    (["export", "go"], "unknown game 'go'"),
])
def test_bad_input_is_one_line_and_exit_code_2(filled, database_url, capsys, args, complaint):
    code, out, err = run_cli(capsys, *args, "--db", database_url)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("harness: error: ") and complaint in err
