"""Leaderboards and ratings over a few hundred recorded matches, checked against numbers computed here."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from scipy import stats

from harness.errors import InvalidInput, SpecError, UnknownGame

PLAYERS = ["random", "greedy", "alphabeta:depth=2", "alphabeta:depth=3"]
OPPONENTS = ["gbot", "gbot:level=easy"]
STRENGTH = {"random": 0.0, "greedy": 1.5, "alphabeta:depth=2": 3.0, "alphabeta:depth=3": 3.2}


@pytest.fixture
def recorded(db, make_result):
    """Two runs of totality (level wise) plus a run at level easy that no wise leaderboard may count."""
    rng = random.Random(2024)
    runs = {name: db.start_run("tournament", game, {}, name=name)
            for name, game in (("first", "totality"), ("second", "totality"), ("easy", "totality:easy"))}
    results = []
    for run_name, game, seeds in (("first", "totality", range(25)), ("second", "totality", range(25, 40)),
                                  ("easy", "totality:level=easy", range(5))):
        for player in PLAYERS:
            for opponent in OPPONENTS:
                for seed in seeds:
                    score = round(max(0.0, rng.gauss(10.0 + 4.0 * STRENGTH[player], 6.0)), 2)
                    outcome = rng.choices(["win", "draw", "loss"], [1 + STRENGTH[player], 1, 2])[0]
                    live = seed % 7 == 0
                    server = None if not live else score + (1.0 if seed % 14 == 0 else 0.0)
                    result = make_result(player, opponent, seed, game=game, outcome=outcome, score=score,
                                         source="live" if live else "local", server_score=server)
                    assert db.record(runs[run_name], result)
                    results.append((run_name, result))
    return runs, results


def expected_rows(results, *, runs=("first", "second"), opponent=None):
    """The leaderboard rows computed independently: plain statistics and scipy's t interval."""
    rows = {}
    for run_name, result in results:
        if run_name in runs and (opponent is None or result.opponent == opponent):
            rows.setdefault(result.player, []).append(result)
    expected = {}
    for player, matches in rows.items():
        scores = [m.score for m in matches]
        mean = statistics.fmean(scores)
        low, high = stats.t.interval(0.95, len(scores) - 1, loc=mean,
                                     scale=statistics.stdev(scores) / math.sqrt(len(scores)))
        expected[player] = dict(
            games=len(matches), wins=sum(m.outcome == "win" for m in matches),
            draws=sum(m.outcome == "draw" for m in matches), losses=sum(m.outcome == "loss" for m in matches),
            mean=mean, low=low, high=high, best=max(scores), worst=min(scores),
            mismatches=sum(m.server_score is not None and m.server_score != m.score for m in matches))
    return expected


def check(rows, expected):
    assert {row.player for row in rows} == set(expected)
    for row in rows:
        want = expected[row.player]
        assert (row.games, row.wins, row.draws, row.losses, row.mismatches) == (
            want["games"], want["wins"], want["draws"], want["losses"], want["mismatches"]), row.player
        assert row.mean == pytest.approx(want["mean"], rel=1e-9)
        assert (row.low, row.high) == pytest.approx((want["low"], want["high"]), rel=1e-7)
        assert (row.best, row.worst) == (want["best"], want["worst"])


def test_leaderboard_counts_means_and_intervals_match_an_independent_computation(db, recorded):
    _, results = recorded
    rows = db.leaderboard("totality")
    expected = expected_rows(results)
    check(rows, expected)
    assert sum(row.games for row in rows) == 4 * 2 * 40
    assert [row.player for row in rows] == sorted(expected, key=lambda p: -expected[p]["mean"])
    assert [row.rank for row in rows] == [1, 2, 3, 4]
    assert sum(row.mismatches for row in rows) > 0


def test_leaderboard_filters_by_opponent_run_and_game_configuration(db, recorded):
    runs, results = recorded
    check(db.leaderboard("totality", opponent="gbot:easy"), expected_rows(results, opponent="gbot:level=easy"))
    check(db.leaderboard("totality", run_id=runs["second"]), expected_rows(results, runs=("second",)))
    check(db.leaderboard("totality", run_id="first", opponent="gbot"),
          expected_rows(results, runs=("first",), opponent="gbot"))
    check(db.leaderboard("totality:easy"), expected_rows(results, runs=("easy",)))
    assert db.leaderboard("ravenward") == []


def test_leaderboard_by_lower_bound_ranks_by_the_interval(db, recorded):
    _, results = recorded
    expected = expected_rows(results)
    rows = db.leaderboard("totality", by="lcb")
    assert [row.player for row in rows] == sorted(expected, key=lambda p: -expected[p]["low"])


def test_leaderboard_shows_tuned_aliases_and_accepts_them_as_opponents(db, recorded):
    db.save_named_player("champion", "alphabeta:depth=3", "totality")
    rows = {row.player: row for row in db.leaderboard("totality")}
    assert rows["alphabeta:depth=3"].alias == "tuned:champion"
    assert rows["random"].alias is None
    db.save_named_player("bot", "gbot", "totality")
    assert sum(r.games for r in db.leaderboard("totality", opponent="tuned:bot")) == 4 * 40


def test_leaderboard_refuses_bad_input_with_the_valid_choices(db, recorded):
    with pytest.raises(UnknownGame, match="valid games"):
        db.leaderboard("chess")
    with pytest.raises(InvalidInput, match="valid: mean, lcb"):
        db.leaderboard("totality", by="median")
    with pytest.raises(InvalidInput, match="no run"):
        db.leaderboard("totality", run_id="third")
    with pytest.raises(SpecError, match="valid kinds"):
        db.leaderboard("totality", opponent="stockfish")


def test_ratings_pool_seats_and_agree_with_a_direct_computation(db, make_result):
    from harness.ratings import rate_matches
    run_id = db.start_run("tournament", "xiangqi", {})
    rng = random.Random(5)
    games = []
    for seed in range(60):
        red, black = rng.sample(["random", "greedy", "alphabeta:depth=2"], 2)
        for seat, player, opponent in (("red", red, black), ("black", black, red)):
            outcome = rng.choice(["win", "draw", "loss"])
            db.record(run_id, make_result(player, opponent, seed, game=f"xiangqi:{seat}", outcome=outcome))
            games.append((player, opponent, outcome))
    table = db.ratings("xiangqi")
    direct = rate_matches(games)
    assert [(r.player, r.games) for r in table.ratings] == [(r.player, r.games) for r in direct.ratings]
    assert [r.elo for r in table.ratings] == pytest.approx([r.elo for r in direct.ratings])
    assert sum(r.games for r in table.ratings) == 2 * 120
    assert sum(r.games for r in db.ratings("xiangqi:black").ratings) == 2 * 60
