"""Listings (runs, players), empty results said in one line, read-only commands that create nothing."""

from __future__ import annotations

import json

import pytest

from harness.cli import main


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def filled(db, make_result):
    """A Totality tournament of two players, a Ravenward run with one match, a tuned alias."""
    cup = db.start_run("tournament", "totality", {"players": ["greedy", "random"], "opponent": "gbot", "games": 4},
                       name="cup")
    for seed in range(3):
        db.record(cup, make_result("greedy", "gbot", seed, score=10.0 + seed))
        db.record(cup, make_result("random", "gbot", seed, score=1.0 * seed, outcome="loss"))
    raven = db.start_run("play", "ravenward", {"games": 2})
    db.record(raven, make_result("greedy", "gbot", 0, game="ravenward", score=150.0))
    db.set_run_status(cup, "done")
    long_spec = "alphabeta:depth=3," + ",".join(f"w.weight{i}=1{i}.125" for i in range(12))
    db.save_named_player("long-one", long_spec, "totality", note="study long-one, trial 4")
    return cup, raven, long_spec


def test_runs_lists_every_run_with_its_progress_and_as_json(filled, database_url, capsys):
    cup, raven, _ = filled
    code, out, _ = run_cli(capsys, "runs", "--json", "--db", database_url)
    document = json.loads(out)
    assert code == 0 and document["format"] == "harness.runs/1"
    by_id = {r["id"]: r for r in document["runs"]}
    assert (by_id[cup]["name"], by_id[cup]["kind"], by_id[cup]["status"]) == ("cup", "tournament", "done")
    assert (by_id[cup]["matches"], by_id[cup]["planned"], by_id[cup]["mean_score"]) == (6, 8, pytest.approx(6.0))
    assert (by_id[raven]["matches"], by_id[raven]["planned"], by_id[raven]["status"]) == (1, 2, "running")
    code, out, _ = run_cli(capsys, "runs", "--kind", "play", "--game", "ravenward", "--json", "--db", database_url)
    assert [r["id"] for r in json.loads(out)["runs"]] == [raven]
    code, out, _ = run_cli(capsys, "runs", "--db", database_url)
    assert code == 0 and "cup" in out and "6/8" in out and "1/2" in out
    ladder = db_run(database_url, "tournament", {"players": ["strong"], "opponent": None, "games": 5,
                                                 "ladder": ["gbot", "gbot:depth=3,eval=material"]})
    code, out, _ = run_cli(capsys, "runs", "--kind", "tournament", "--json", "--db", database_url)
    assert {r["id"]: r["planned"] for r in json.loads(out)["runs"]}[ladder] == 10  # games x players x rungs
    code, out, _ = run_cli(capsys, "runs", "--game", "xiangqi", "--db", database_url)
    assert code == 0 and out.strip() == ("no xiangqi runs recorded yet; harness tournament and "
                                         "harness play --record make them")


def test_players_lists_tuned_aliases_with_whole_specs_on_one_line(filled, database_url, capsys):
    *_, long_spec = filled
    code, out, _ = run_cli(capsys, "players", "--db", database_url)
    assert code == 0
    (line,) = [line for line in out.splitlines() if "tuned:long-one" in line]
    assert long_spec in line  # piped output is never wrapped: the spec can be copied from a log
    code, out, _ = run_cli(capsys, "players", "--json", "--db", database_url)
    document = json.loads(out)
    assert document["format"] == "harness.players/1"
    assert document["tuned"] == [{"name": "tuned:long-one", "spec": long_spec, "game": "totality",
                                  "note": "study long-one, trial 4", "created": document["tuned"][0]["created"],
                                  "verdict": "unconfirmed", "verdict_detail": ""}]


def test_players_and_the_leaderboard_show_each_tuned_players_verdict(filled, db, database_url, capsys):
    db.save_named_player("greedy-v2", "greedy", "totality", note="study greedy-v2, trial 1", verdict="better",
                         detail="+12.3 [4.1, 20.5] over 240 openings")
    db.save_named_player("random-v1", "random", "totality", verdict="no gain", detail="+0.4 [-2.0, 2.8]")
    code, out, _ = run_cli(capsys, "players", "--json", "--db", database_url)
    listed = {p["name"]: (p["verdict"], p["verdict_detail"]) for p in json.loads(out)["tuned"]}
    assert code == 0 and listed == {"tuned:greedy-v2": ("better", "+12.3 [4.1, 20.5] over 240 openings"),
                                    "tuned:long-one": ("unconfirmed", ""),
                                    "tuned:random-v1": ("no gain", "+0.4 [-2.0, 2.8]")}
    code, out, _ = run_cli(capsys, "players", "--db", database_url)
    (line,) = [line for line in out.splitlines() if "tuned:greedy-v2" in line]
    assert line == ("tuned:greedy-v2  totality  [better]  greedy  "
                    "(study greedy-v2, trial 1; +12.3 [4.1, 20.5] over 240 openings)")
    assert "tuned:long-one  totality  [unconfirmed]  " in out

    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--json", "--db", database_url)
    rows = {row["player"]: (row["alias"], row["verdict"]) for row in json.loads(out)["rows"]}
    assert code == 0 and rows == {"greedy": ("tuned:greedy-v2", "better"), "random": ("tuned:random-v1", "no gain")}
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--db", database_url)
    assert "(tuned:greedy-v2: better)" in out and "(tuned:random-v1: no gain)" in out


def test_a_piped_leaderboard_keeps_long_specs_on_one_line(filled, database_url, db, make_result, capsys):
    *_, long_spec = filled
    run_id = db.start_run("tournament", "totality", {})
    db.record(run_id, make_result(long_spec, "gbot", 0, score=3.0, key="long-spec"))
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--db", database_url)
    assert code == 0 and any(long_spec in line for line in out.splitlines())


def test_a_run_of_another_game_is_an_error_naming_both(filled, database_url, capsys):
    _, raven, _ = filled
    for command in (["export", "totality"], ["leaderboard", "totality"], ["ratings", "totality"]):
        code, out, err = run_cli(capsys, *command, "--run", str(raven), "--db", database_url)
        assert code == 2 and out == ""
        assert err.strip() == (f"harness: error: run {raven} is a ravenward run, not totality; "
                               "harness runs lists every run with its game")


def test_no_matches_is_said_in_one_line(filled, database_url, capsys):
    code, out, _ = run_cli(capsys, "ratings", "xiangqi", "--db", database_url)
    assert code == 0 and out.startswith("no xiangqi matches recorded yet") and len(out.splitlines()) == 1
    code, out, _ = run_cli(capsys, "leaderboard", "totality", "--opponent", "random", "--db", database_url)
    assert code == 0 and out.startswith("no totality matches recorded against random yet")
    code, out, err = run_cli(capsys, "export", "xiangqi", "--db", database_url)
    assert code == 0 and out == "" and err.startswith("no xiangqi matches recorded yet")
    code, out, _ = run_cli(capsys, "leaderboard", "xiangqi", "--json", "--db", database_url)
    assert code == 0 and json.loads(out)["rows"] == []  # scripts still get the document


def test_an_unknown_run_names_the_listing(filled, database_url, capsys):
    code, _, err = run_cli(capsys, "leaderboard", "totality", "--run", "nope", "--db", database_url)
    assert code == 2 and "harness runs lists them" in err and "export" not in err


def test_reading_commands_never_create_a_database(tmp_path, capsys):
    path = tmp_path / "missing.db"
    url = f"sqlite:///{path}"
    for command in (["leaderboard", "totality"], ["ratings", "xiangqi"], ["runs"], ["players"], ["studies"],
                    ["export"], ["show", "1"], ["report", "demo", "--out", str(tmp_path / "r.html")],
                    ["tune", "--validate", "demo"], ["play", "totality", "--player", "tuned:x"], ["serve", "--port", "0"]):
        code, out, err = run_cli(capsys, *command, "--db", url)
        assert code == 2 and "no results database at" in err, command
        assert not path.exists(), command


def db_run(url: str, kind: str, config: dict) -> int:
    from harness.db import open_database
    with open_database(url) as database:
        return database.start_run(kind, "ravenward", config)
