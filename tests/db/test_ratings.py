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
