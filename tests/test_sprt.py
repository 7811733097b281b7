"""The pentanomial SPRT and Elo: hand-computed values and published reference values."""

from __future__ import annotations

import math

import pytest

from harness.errors import InvalidInput
from harness.sprt import (Pentanomial, SprtConfig, SprtStatus, elo_estimate, llr, logistic_score,
                          pair_points, score_elo)


def fastchess_counts(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> Pentanomial:
    """fastchess's six pair counts folded into the five pentanomial cells (WL and DD both score 1)."""
    return Pentanomial((ll, ld, wl + dd, wd, ww))


def test_pair_points_count_a_in_both_seats():
    assert pair_points("win", "loss") == 2.0
    assert pair_points("win", "draw") == 1.5
    assert pair_points("win", "win") == 1.0
    assert pair_points("draw", "draw") == 1.0
    assert pair_points("draw", "win") == 0.5
    assert pair_points("loss", "win") == 0.0


def test_bounds_are_the_wald_thresholds():
    lower, upper = SprtConfig(0, 10).bounds
    assert lower == pytest.approx(-2.944438979, abs=1e-9)  # ln(0.05 / 0.95)
    assert upper == pytest.approx(2.944438979, abs=1e-9)
    lower, upper = SprtConfig(0, 10, alpha=0.05, beta=0.1).bounds
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))


def test_parse_reads_two_or_four_numbers_and_rejects_the_rest():
    assert SprtConfig.parse("0,10") == SprtConfig(0.0, 10.0, 0.05, 0.05)
    assert SprtConfig.parse("-5, 5, 0.01, 0.02") == SprtConfig(-5.0, 5.0, 0.01, 0.02)
    for bad in ("10", "0,10,0.05", "a,b", "10,0", "0,10,0.7,0.05", "0,nan"):
        with pytest.raises(InvalidInput):
            SprtConfig.parse(bad)


def test_elo_estimate_matches_a_hand_computation():
    # pairs 1,2,3,2,1 on 0..2 points: mean score 0.5, pair variance 0.75/9,
    # standard error sqrt(0.75/81) = 0.0962250, 95% half-width 0.1885966:
    # Elo 0, interval -400*log10(1/0.6885966 - 1) = +/-137.857.
    estimate = elo_estimate(Pentanomial((1, 2, 3, 2, 1)))
    assert estimate.elo == pytest.approx(0.0, abs=1e-9)
    assert estimate.high == pytest.approx(137.857, abs=1e-3)
    assert estimate.low == pytest.approx(-137.857, abs=1e-3)
    assert estimate.los == pytest.approx(0.5)
    # pairs 0,0,2,4,4: mean (2*0.5 + 4*0.75 + 4*1)/10 = 0.8 -> 400*log10(4) = 240.82 Elo.
    estimate = elo_estimate(Pentanomial((0, 0, 2, 4, 4)))
    assert estimate.elo == pytest.approx(240.824, abs=1e-3)
    assert estimate.los > 0.99


def test_elo_estimate_of_a_sweep_is_infinite_and_of_nothing_is_an_error():
    assert elo_estimate(Pentanomial((0, 0, 0, 0, 3))).elo == math.inf
    with pytest.raises(InvalidInput):
        elo_estimate(Pentanomial())


def test_logistic_score_and_elo_are_inverse():
    for elo in (-300.0, -12.5, 0.0, 7.0, 400.0):
        assert score_elo(logistic_score(elo)) == pytest.approx(elo)
    assert logistic_score(400.0) == pytest.approx(10 / 11)


@pytest.mark.parametrize("counts, elo0, elo1, model, expected", [
    # Reference values from fastchess's SPRT test-suite (an independent implementation).
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0.0, 2.0, "logistic", -4.98),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((0, 0, 0, 0, 0, 5550), 0.0, 5.0, "normalized", 111.82),
])
def test_llr_matches_published_reference_values(counts, elo0, elo1, model, expected):
    assert llr(fastchess_counts(*counts), elo0, elo1, model) == pytest.approx(expected, rel=0.01)


def test_llr_is_zero_before_any_pair_and_antisymmetric_in_the_hypotheses():
    assert llr(Pentanomial(), 0, 10) == 0.0
    counts = Pentanomial((3, 10, 20, 14, 5))
    assert llr(counts, 0, 10) == pytest.approx(-llr(counts, 10, 0))


def test_llr_at_the_empirical_mean_is_minus_n_times_a_divergence():
    # H0's constraint equals the empirical mean, so its MLE is the data itself
    # and the LLR is -pairs * KL(data || H1's MLE) < 0; it grows towards 0 as
    # H1 approaches the data.
    counts = Pentanomial((10, 20, 40, 20, 10))  # mean 0.5, Elo 0
    assert llr(counts, 0, 5) < llr(counts, 0, 2) < 0


def test_status_decides_h1_for_a_much_stronger_player_and_h0_for_an_equal_one():
    config = SprtConfig(0, 20)
    strong = SprtStatus.of(config, Pentanomial((2, 5, 30, 40, 30)))
    assert strong.decision == "H1" and "H1 accepted" in strong.describe()
    equal = SprtStatus.of(config, Pentanomial((30, 120, 300, 120, 30)))
    assert equal.decision == "H0" and "H0 accepted" in equal.describe()
    early = SprtStatus.of(config, Pentanomial((0, 1, 2, 1, 0)))
    assert early.decision is None


def test_pentanomial_add_counts_pairs_by_points():
    counts = Pentanomial().add(2.0).add(1.0).add(1.0).add(0.5)
    assert counts.counts == (0, 1, 2, 0, 1)
    assert counts.pairs == 4 and counts.games == 8
