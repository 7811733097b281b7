"""harness.strength and harness ladder: the ladder report of stored runs, from real Totality games in a real
SQLite database: rows and standings, the worst rung beside the mean, a baseline paired by seed, rescored
games kept out of every pooled figure, verification by replay."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from harness.cli import main
from harness.cluster.inprocess import InProcessPool
from harness.db import open_database
from harness.errors import InvalidInput
from harness.match import MatchSpec, play_match
from harness.strength import (is_rescored, paired_rows, rescore, rescored_results, standings, strength_report,
                              summarise, verify)

RUNGS = ("gbot:level=easy", "gbot:depth=3,eval=material")  # two quick rungs of Totality's ladder
SEEDS = range(3)


@pytest.fixture(scope="module")
def games() -> dict[str, list]:
    """Real Totality games of a candidate and a baseline against two rungs, and against a non-rung."""
    def played(player: str, opponents=RUNGS) -> list:
        return [play_match(MatchSpec("totality", player, rung, seed, 2)) for rung in opponents for seed in SEEDS]
    return {"candidate": played("alphabeta:depth=1") + played("alphabeta:depth=1", ("random",)),
            "baseline": played("greedy")}


@pytest.fixture
def db(tmp_path, games):
    """A database with the candidate's run and the baseline's (as imports would make them)."""
    with open_database(f"sqlite:///{tmp_path / 'ladder.db'}") as database:
        for name, results in games.items():
            run_id = database.start_run("tournament", "totality", {}, name=name)
            database.record_many(run_id, results)
        yield database


def test_standings_give_the_rungs_in_ladder_order_the_worst_beside_the_mean_and_others_beside(games):
    (standing,) = standings(games["candidate"])
    assert standing.game == "totality" and [r.rung for r in standing.rungs] == list(RUNGS)
    assert [r.rung for r in standing.beside] == ["random"]  # not a rung: outside every total
    by_rung = {rung: [g for g in games["candidate"] if g.opponent == rung] for rung in RUNGS}
    means = {rung: sum(g.score for g in played) / len(played) for rung, played in by_rung.items()}
    assert standing.worst.rung == min(means, key=means.get)
    assert standing.mean == pytest.approx(sum(means.values()) / 2)
    assert standing.losses == sum(g.outcome == "loss" for played in by_rung.values() for g in played)
    row = summarise(by_rung[RUNGS[1]])
    assert row.low <= row.mean <= row.high and 0 <= row.low and row.high <= 420  # inside the score bounds


def test_a_rescored_game_is_the_same_moves_scored_by_the_other_configuration(games):
    wise = next(g for g in games["candidate"] if g.outcome == "win")
    easy = rescore(wise, "totality:easy")
    assert easy.game == "totality:level=easy" and easy.actions == wise.actions and is_rescored(easy)
    assert easy.key == MatchSpec("totality:easy", wise.player, wise.opponent, wise.seed, 2).key
    assert easy.extra["replayed_from"] == wise.key and easy.score == int(wise.score * 0.6)
    with pytest.raises(InvalidInput, match="same game"):
        rescore(wise, "ravenward")


def test_paired_rows_pool_each_distinct_game_once_leaving_the_rescored_out(games):
    candidate = rescored_results([g for g in games["candidate"] if g.opponent != "random"], ["totality:easy"])
    baseline = rescored_results(games["baseline"], ["totality:easy"])
    rows = paired_rows(candidate, baseline)
    per_rung = [row for row in rows if not row.pooled]
    assert [(row.game, row.opponent, row.rescored) for row in per_rung] == [
        ("totality", RUNGS[0], False), ("totality", RUNGS[1], False),
        ("totality:level=easy", RUNGS[0], True), ("totality:level=easy", RUNGS[1], True)]
    first = per_rung[0]
    pairs = {g.seed: g.score for g in games["candidate"] if g.opponent == RUNGS[0]}
    base = {g.seed: g.score for g in games["baseline"] if g.opponent == RUNGS[0]}
    assert first.pairs == 3 and first.difference[0] == pytest.approx(sum(pairs[s] - base[s] for s in SEEDS) / 3)
    (pooled,) = [row for row in rows if row.pooled]
    assert (pooled.game, pooled.pairs, pooled.left_out) == ("totality", 6, 6)  # the wise games only, once each
    wise = [row for row in per_rung if not row.rescored]
    assert pooled.difference[0] == pytest.approx(sum(r.difference[0] * r.pairs for r in wise) / 6)


def test_a_baseline_of_two_players_on_one_seed_is_ambiguous(games):
    other = [replace(g, player="random") for g in games["baseline"]]
    with pytest.raises(InvalidInput, match="two players' matches"):
        paired_rows(games["candidate"], games["baseline"] + other)
    with pytest.raises(InvalidInput, match="no match pairs"):
        paired_rows(games["candidate"], [replace(g, seed=g.seed + 100) for g in games["baseline"]])


def test_the_report_of_stored_runs_with_a_baseline_rungs_and_rescored_rows(db):
    report = strength_report(db, ["candidate"], baseline=["baseline"], rescore_as=["totality:easy"],
                             rungs=["gbot:easy"])
    assert [(s.game, s.rescored) for s in report.standings] == [("totality", False), ("totality:level=easy", True)]
    assert [r.rung for s in report.standings for r in s.rungs] == [RUNGS[0], RUNGS[0]]
    assert [row.opponent for row in report.paired] == [RUNGS[0], RUNGS[0], ""]
    assert json.loads(json.dumps(report.to_dict()))["format"] == "harness.strength/1"
    with pytest.raises(InvalidInput, match="its own baseline"):
        strength_report(db, ["candidate"], baseline=["candidate"])
    with pytest.raises(InvalidInput, match="no run 'missing'"):
        strength_report(db, ["missing"])


def test_verify_replays_stored_matches_and_names_one_that_differs(games):
    stored = games["baseline"]
    with InProcessPool(workers=1) as pool:
        assert verify(stored, 2, pool).ok and verify(stored, 2, pool).checked == 2
        stale = [replace(stored[0], score=stored[0].score + 1)] + stored[1:]
        found = verify(stale, len(stale), pool)
    assert found.differing == (stored[0].key,) and "replay differently" in found.describe()


def test_cli_ladder_prints_markdown_tables_and_fails_on_bad_input(db, capsys):
    url = str(db.url)
    code = main(["ladder", "candidate", "--baseline", "baseline", "--rescore", "totality:easy", "--markdown",
                 "--db", url])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert "| game | rung | mean score [95% CI] | W/D/L | ms/move | opponent ms/move |" in out
    assert "| totality:level=easy (rescored) | gbot:level=easy |" in out
    assert "all rows, each distinct game once (6 rescored pairs not pooled) | 6 |" in out
    assert "| random |" in out  # the non-rung row, in a table beside the ladder
    for args, says in ((["missing"], "no run 'missing'"), (["candidate", "--rescore", "chess"], "unknown game"),
                       (["candidate", "--rung", "nonsense:x=1"], "nonsense")):
        assert main(["ladder", *args, "--db", url]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1
    assert main(["ladder", "candidate", "--db", f"sqlite:///{db.url.database}.missing"]) == 2
    capsys.readouterr()


def test_cli_ladder_verify_exits_1_when_a_stored_match_replays_differently(db, capsys, games, tmp_path):
    url = str(db.url)
    assert main(["ladder", "baseline", "--verify", "2", "--workers", "1", "--db", url]) == 0
    assert "2 stored matches replayed identically" in capsys.readouterr().out
    stale_url = f"sqlite:///{tmp_path / 'stale.db'}"  # a stale store: one score no longer what the match gives
    tampered = games["baseline"][0]
    with open_database(stale_url) as stale:
        stale.record_many(stale.start_run("tournament", "totality", {}, name="stale"),
                          [replace(tampered, score=tampered.score + 1)] + games["baseline"][1:])
    assert main(["ladder", "stale", "--verify", "6", "--workers", "1", "--db", stale_url]) == 1
    err = capsys.readouterr().err
    assert err.startswith("harness: error: 1 of 6 stored matches replay differently") and tampered.key in err
