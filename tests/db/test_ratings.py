"""harness.ratings: Student t intervals and Bradley-Terry Elo, checked against independent math."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest
from scipy import optimize

from harness.errors import InvalidInput
from harness.ratings import ELO_PER_LOGIT, bradley_terry, expected_points, mean_interval, rate_matches


def test_mean_interval_matches_the_textbook_t_interval():
    values = [3.0, 7.0, 4.5, 9.0, 6.0, 5.5, 8.0, 2.0, 6.5, 7.5]
    mean, low, high = mean_interval(values)
    t_975_9 = 2.2621571627409915  # Student t, 9 degrees of freedom, two-sided 95% (tables)
    half = t_975_9 * statistics.stdev(values) / math.sqrt(len(values))
    assert mean == pytest.approx(statistics.fmean(values))
    assert (low, high) == pytest.approx((mean - half, mean + half))


def test_mean_interval_narrows_with_lower_confidence():
    values = [1.0, 2.0, 4.0, 8.0]
    _, low_95, high_95 = mean_interval(values, 0.95)
    _, low_80, high_80 = mean_interval(values, 0.80)
    assert low_95 < low_80 < high_80 < high_95


def test_mean_interval_of_one_value_is_unbounded_and_of_equal_values_is_a_point():
    assert mean_interval([4.0]) == (4.0, -math.inf, math.inf)
    assert mean_interval([2.5, 2.5, 2.5]) == (2.5, 2.5, 2.5)


@pytest.mark.parametrize("values, confidence", [([], 0.95), ([1.0, 2.0], 1.0), ([1.0, 2.0], 0.0)])
def test_mean_interval_rejects_an_empty_sample_or_a_bad_confidence(values, confidence):
    with pytest.raises(InvalidInput):
        mean_interval(values, confidence)


def test_two_player_elo_is_the_closed_form_logit_with_its_fisher_interval():
    games = [("a", "b", 1.0)] * 25 + [("a", "b", 0.5)] * 10 + [("a", "b", 0.0)] * 5  # a scores 30 of 40
    table = bradley_terry(games)
    a, b = table.ratings
    difference = 400.0 * math.log10(30 / 10)
    assert (a.player, b.player) == ("a", "b")
    assert a.elo - b.elo == pytest.approx(difference)
    assert a.elo + b.elo == pytest.approx(0.0, abs=1e-9)
    # the centred rating is half the difference, with half its standard error
    standard_error = 1.0 / math.sqrt(40 * 0.75 * 0.25) / 2.0 * ELO_PER_LOGIT
    assert a.high - a.elo == pytest.approx(1.959963984540054 * standard_error)
    assert (a.games, a.points, b.points) == (40, 30.0, 10.0)
    assert table.prior_draws == 0.0


def test_many_player_elo_is_the_likelihood_maximum_found_by_a_general_optimiser():
    rng = random.Random(7)
    truth = {"p0": 150.0, "p1": 40.0, "p2": -30.0, "p3": -160.0}
    games = []
    for _ in range(600):
        i, j = rng.sample(sorted(truth), 2)
        u = rng.random()
        p = expected_points(truth[i] - truth[j])
        games.append((i, j, 1.0 if u < p - 0.1 else 0.5 if u < p + 0.1 else 0.0))
    table = bradley_terry(games)
    names = sorted(truth)

    def negative_log_likelihood(free):
        strength = np.append(free, -free.sum())  # ratings sum to zero
        total = 0.0
        for i, j, points in games:
            d = strength[names.index(i)] - strength[names.index(j)]
            total -= points * -np.logaddexp(0, -d) + (1 - points) * -np.logaddexp(0, d)
        return total

    best = optimize.minimize(negative_log_likelihood, np.zeros(3), method="BFGS").x
    expected = np.append(best, -best.sum()) * ELO_PER_LOGIT
    found = {r.player: r.elo for r in table.ratings}
    for name, elo in zip(names, expected):
        assert found[name] == pytest.approx(elo, abs=0.5)
    assert [r.player for r in table.ratings] == names  # the true order is recovered


def test_anchor_is_pinned_at_zero_and_differences_are_kept():
    games = [("a", "b", 1.0), ("b", "a", 1.0), ("a", "c", 1.0), ("c", "a", 0.5), ("b", "c", 0.0), ("c", "b", 0.0)] * 5
    free, pinned = bradley_terry(games), bradley_terry(games, anchor="c")
    by_name = {r.player: r for r in pinned.ratings}
    assert (by_name["c"].elo, by_name["c"].low, by_name["c"].high) == (0.0, 0.0, 0.0)
    plain = {r.player: r.elo for r in free.ratings}
    assert by_name["a"].elo == pytest.approx(plain["a"] - plain["c"])


def test_a_player_that_won_everything_gets_a_finite_regularised_rating():
    games = [("strong", "weak", 1.0)] * 10 + [("weak", "mid", 0.5), ("mid", "weak", 1.0)] * 5
    table = bradley_terry(games)
    assert table.prior_draws == 1.0
    assert [r.player for r in table.ratings] == ["strong", "mid", "weak"]
    assert all(math.isfinite(r.elo) and r.low < r.elo < r.high for r in table.ratings)


def test_self_play_is_left_out_and_bad_input_is_refused():
    assert bradley_terry([("a", "a", 1.0)]).ratings == ()
    with pytest.raises(InvalidInput):
        bradley_terry([("a", "b", 2.0)])
    with pytest.raises(InvalidInput, match="valid outcomes"):
        rate_matches([("a", "b", "victory")])
    with pytest.raises(InvalidInput, match="anchor"):
        bradley_terry([("a", "b", 1.0), ("b", "a", 1.0)], anchor="z")


def test_a_rate_at_its_bounds_gets_the_wilson_interval_inside_them():
    from harness.ratings import bounded_mean_interval, wilson_interval
    mean, low, high = bounded_mean_interval([1.0] * 20, (0.0, 1.0))  # 20 wins of 20
    assert (mean, high) == (1.0, 1.0) and low == pytest.approx(0.8389, abs=1e-4)  # Wilson, z = 1.96 (tables)
    mean, low, high = bounded_mean_interval([0.0] * 19 + [1.0], (0.0, 1.0))
    assert mean == 0.05 and (low, high) == pytest.approx(wilson_interval(1, 20))
    assert (low, high) == pytest.approx((0.0089, 0.2361), abs=1e-4)  # Wilson's 1 of 20 (tables)
    # a plain t interval would cross 1 here: [0.845, 1.055]
    mean, low, high = bounded_mean_interval([1.0] * 19 + [0.0], (0.0, 1.0))
    assert 0.0 < low < mean < high < 1.0


def test_a_bounded_score_gets_the_t_interval_clipped_to_its_bounds():
    from harness.ratings import bounded_mean_interval
    near_zero = [0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 6.0]  # t interval [-1.0, 3.3]: cannot be negative
    _, t_low, t_high = mean_interval(near_zero)
    mean, low, high = bounded_mean_interval(near_zero, (0.0, 228.0))
    assert t_low < 0.0 and (low, high) == (0.0, pytest.approx(t_high))
    inside = [100.0, 120.0, 90.0, 110.0]
    assert bounded_mean_interval(inside, (0.0, 228.0)) == pytest.approx(mean_interval(inside))
    assert bounded_mean_interval([228.0, 228.0, 200.0], (0.0, 228.0))[2] == 228.0


def test_one_game_gives_the_whole_range_and_bad_bounds_are_rejected():
    from harness.ratings import bounded_mean_interval
    assert bounded_mean_interval([42.0], (0.0, 420.0)) == (42.0, 0.0, 420.0)
    with pytest.raises(InvalidInput):
        bounded_mean_interval([1.0, 2.0], (5.0, 5.0))
    with pytest.raises(InvalidInput):
        bounded_mean_interval([], (0.0, 1.0))


def test_leaderboard_intervals_stay_inside_each_games_score_bounds(db, make_result):
    from harness.games import load as load_game
    run_id = db.start_run("tournament", "xiangqi", {})
    for seed in range(20):  # 19 wins and a loss: rank-1 score 1 or 0
        db.record(run_id, make_result("greedy", "random", seed, game="xiangqi", score=0.0 if seed == 7 else 1.0))
        db.record(run_id, make_result("random", "greedy", seed, game="xiangqi", score=1.0))
    for seed in range(3):  # a Ravenward player that almost never scores
        db.record(run_id, make_result("random", "gbot", seed, game="ravenward", score=3.0 if seed == 0 else 0.0))
    for game in ("xiangqi", "ravenward"):
        lowest, highest = load_game(game).score_bounds()
        for row in db.leaderboard(game):
            assert lowest <= row.low <= row.mean <= row.high <= highest, (game, row)
    perfect = next(row for row in db.leaderboard("xiangqi") if row.player == "random")
    assert perfect.high == 1.0 and perfect.low == pytest.approx(0.8389, abs=1e-4)
    (raven,) = db.leaderboard("ravenward")
    assert raven.low == 0.0
