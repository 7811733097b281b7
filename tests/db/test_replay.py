"""Recorded real matches replay: exported actions reach the recorded outcome; show prints every ply."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from harness.cli import main
from harness.db.export import export_lines
from harness.games import REGISTRY, load as load_game
from harness.match import MatchSpec, play_match

GAMES = ["ravenward", "totality:easy", "xiangqi:black"]


def engine_missing(game: str) -> bool:
    return importlib.util.find_spec(REGISTRY[game.partition(":")[0]].kit) is None


@pytest.fixture(params=GAMES)
def played(request, db):
    """Two random-vs-random matches of one game, played by the engine and recorded."""
    if engine_missing(request.param):
        pytest.skip(f"the {request.param} engine is not in this tree yet")
    run_id = db.start_run("tournament", request.param, {"seeds": [1, 2]})
    results = [play_match(MatchSpec(request.param, "random", "random", seed, opening_plies=2)) for seed in (1, 2)]
    for result in results:
        assert db.record(run_id, result)
    return db, run_id, results


def test_exported_actions_replay_to_the_recorded_outcome(played):
    db, run_id, results = played
    lines = [json.loads(line) for line in export_lines(db, run=run_id)]
    assert len(lines) == len(results)
    for line, result in zip(lines, results):
        rules = load_game(line["game"])  # the exported spec spells out every option
        assert rules.spec == load_game(result.game).spec
        state = rules.initial_state()
        for action in line["actions"]:
            state = rules.apply(state, action)
        assert rules.is_terminal(state)
        assert list(rules.outcome(state)) == [line["outcome"], line["reason"]]
        assert rules.score(state) == line["score"]
        assert line["plies"] == len(line["actions"]) == result.plies
        assert (line["player"], line["opponent"], line["seed"]) == ("random", "random", result.seed)


def test_show_prints_every_ply_and_the_result(played, database_url, capsys):
    db, run_id, results = played
    record = db.matches(run_id=run_id)[0]
    assert main(["show", str(record.id), "--db", database_url]) == 0
    out = capsys.readouterr().out
    plies = [line for line in out.splitlines() if re.match(r"ply \d+ \((player|opponent)\): [{]", line)]
    assert len(plies) == record.plies
    assert [json.loads(line.partition(": ")[2]) for line in plies] == record.actions
    assert out.rstrip().splitlines()[-1].startswith(f"result: {record.outcome} ({record.reason}), score ")


@pytest.fixture(scope="module")
def real_results():
    """A hundred real matches of the first game whose engine is here: random and greedy against random."""
    game = next((g for g in GAMES if not engine_missing(g)), None)
    if game is None:
        pytest.skip("no game engine is in this tree yet")
    return game, [play_match(MatchSpec(game, player, "random", seed))
                  for player in ("random", "greedy") for seed in range(50)]


def test_leaderboard_of_real_matches_matches_their_results(db, real_results):
    from statistics import fmean

    game, real_results = real_results
    run_id = db.start_run("tournament", game, {})
    assert db.record_many(run_id, real_results) == len(real_results)
    rows = {row.player: row for row in db.leaderboard(game, opponent="random")}
    assert set(rows) == {"random", "greedy"}
    for player, row in rows.items():
        mine = [r for r in real_results if r.player == player]
        assert (row.games, row.wins, row.draws, row.losses) == (
            len(mine), *(sum(r.outcome == o for r in mine) for o in ("win", "draw", "loss")))
        assert row.mean == pytest.approx(fmean(r.score for r in mine))
        assert (row.best, row.worst) == (max(r.score for r in mine), min(r.score for r in mine))
        assert row.low < row.mean < row.high
