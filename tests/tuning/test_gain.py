"""The statistics of a study: the pruning rule's error rate, sample sizes, the verdict's rules."""

from __future__ import annotations

import math
import random

import pytest

from harness.tuning.gain import (Interval, detectable_gain, is_confidently_worse, paired_interval, sample_size,
                                 verdict_of, worth_confirming)


def test_a_paired_interval_is_the_t_interval_of_the_differences() -> None:
    interval = paired_interval([1.0, 2.0, 3.0, 4.0])
    assert interval.mean == 2.5 and interval.n == 4
    assert interval.high - interval.mean == pytest.approx(3.182446 * math.sqrt(5 / 3) / 2, rel=1e-5)
    assert paired_interval([5.0]).low == -math.inf


def test_a_trial_as_good_as_the_incumbent_is_pruned_at_most_alpha_of_the_time_over_all_its_looks() -> None:
    """Bonferroni over the looks: a null trial (mean gain 0), looked at after each of 3 blocks of 8,
    is pruned in at most alpha of 4,000 simulated trials; uncorrected looks would prune it more often."""
    rng = random.Random(7)
    looks, alpha, pruned, uncorrected = 3, 0.1, 0, 0
    for _ in range(4000):
        differences = [rng.gauss(0, 40) for _ in range(32)]
        if any(is_confidently_worse(differences[:8 * (b + 1)], looks, alpha) for b in range(looks)):
            pruned += 1
        if any(is_confidently_worse(differences[:8 * (b + 1)], 1, alpha) for b in range(looks)):
            uncorrected += 1
    assert pruned / 4000 <= alpha
    assert uncorrected / 4000 > alpha


def test_a_clearly_worse_trial_is_pruned_and_a_better_one_never() -> None:
    rng = random.Random(3)
    worse = [rng.gauss(-60, 30) for _ in range(8)]
    better = [rng.gauss(60, 30) for _ in range(8)]
    assert is_confidently_worse(worse, 3, 0.05)
    assert not is_confidently_worse(better, 3, 0.05)
    assert not is_confidently_worse([-10.0], 3, 0.05)  # one opening says nothing
    assert is_confidently_worse([-5.0, -5.0, -5.0], 3, 0.05)  # no spread: the sign decides


def test_the_sample_size_finds_the_smallest_gain_with_the_stated_power() -> None:
    n = sample_size(40.0, 10.0, power=0.8)
    assert n == math.ceil(((1.959964 + 0.841621) * 4) ** 2)  # 126
    assert detectable_gain(40.0, n, power=0.8) <= 10.0 < detectable_gain(40.0, n - 1, power=0.8)
    with pytest.raises(ValueError):
        sample_size(40.0, 0.0)
    # checked by simulation: a true gain of 10 with sd 40 clears zero in about 80% of tests of that size
    rng = random.Random(11)
    hits = sum(paired_interval([rng.gauss(10, 40) for _ in range(n)]).low > 0 for _ in range(1000))
    assert 0.74 <= hits / 1000 <= 0.86


@pytest.mark.parametrize(("pooled", "by_opponent", "extra_losses", "verdict"), [
    (Interval(5, 1, 9, 100), [4, 6], None, "better"),
    (Interval(5, 1, 9, 100), [25, -15], None, "no gain"),  # one opponent further behind than the tolerance 10
    (Interval(5, 1, 9, 100), [25, -9], None, "better"),  # within it
    (Interval(5, -1, 11, 100), [5, 5], None, "no gain"),
    (Interval(-5, -9, -1, 100), [-5, -5], None, "worse"),
    (Interval(0.1, 0.02, 0.18, 100), [0.1], Interval(0.03, 0.01, 0.05, 100), "no gain"),  # wdl: confidently more losses
    (Interval(0.1, 0.02, 0.18, 100), [0.1], Interval(0.01, -0.01, 0.03, 100), "better"),  # one more loss is noise
    (Interval(0.1, 0.02, 0.18, 100), [0.1], None, "better"),
])
def test_the_verdict_needs_the_pooled_bound_above_zero_and_every_opponent_within_the_tolerance(
        pooled: Interval, by_opponent: list[float], extra_losses: Interval | None, verdict: str) -> None:
    assert verdict_of(pooled, by_opponent, tolerance=10, extra_losses=extra_losses) == verdict


@pytest.mark.parametrize(("race", "confirmed"), [
    (Interval(12, 2, 22, 48), True),
    (Interval(-3, -17, 11, 48), True),  # behind, but not beyond doubt: the confirmation decides
    (Interval(0, 0, 0, 48), True),
    (Interval(-20, -34, -6, 48), False),  # confidently behind: its games are saved
])
def test_the_race_leader_is_confirmed_unless_confidently_behind(race: Interval, confirmed: bool) -> None:
    assert worth_confirming(race) is confirmed


def test_the_rules_name_exactly_the_verdicts_the_database_stores() -> None:
    from harness.tuning.gain import VERDICT_RULES
    from harness.verdicts import VERDICTS
    assert tuple(VERDICT_RULES) == VERDICTS
