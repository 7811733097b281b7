"""The statistics of a study: paired gains over the incumbent, the pruning rule, sample sizes, the verdict.

Pure functions over per-opening paired differences (a trial's value on one
opening minus the incumbent's on the same opening, averaged over the
opening's opponents and seats). The opening is the unit: its games share a
position, so they are not independent samples, and averaging them first is
what makes a block balanced.

Why these rules:

* **Pruning only against the incumbent, only at block boundaries, corrected
  for repeated looks.** A trial is pruned when the one-sided upper bound of
  its gain is below zero at level ``alpha / looks`` (Bonferroni over the
  looks a trial can have): a trial as good as the incumbent is pruned with
  probability at most ``alpha`` over all its looks, whatever the other trials
  did. Comparing with the current leader after every game, uncorrected, pruned
  27-29% of such trials at a nominal 10% (issue 43).
* **Sample sizes from a stated smallest gain.** The confirmation's size is
  fixed before it plays, from the smallest gain worth finding and the measured
  spread of the paired differences, so the test's error rates are the stated
  ones (no seeds added until an interval clears zero).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats

from harness.errors import InvalidInput

__all__ = ["Interval", "per_opening", "spread", "paired_interval", "is_confidently_worse", "sample_size",
           "detectable_gain", "worth_confirming", "verdict_of", "VERDICT_RULES"]

# what each of ``harness.verdicts.VERDICTS`` takes
VERDICT_RULES = {
    "better": "the pooled 95% interval of the gain lies above 0, no opponent's estimate is below the "
              "tolerance, and (objective wdl) the paired 95% interval of extra losses does not lie above 0",
    "no gain": "the pooled 95% interval of the gain includes 0, an opponent's estimate is below the tolerance, "
               "or (wdl) the tuned player loses confidently more often",
    "worse": "the pooled 95% interval of the gain lies below 0",
}


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval, over ``n`` samples."""

    mean: float
    low: float
    high: float
    n: int = 0


def per_opening(values: Sequence[float], combos: int) -> list[float]:
    """The per-opening means of values laid out opening by opening, ``combos`` games (opponents x seats) each."""
    return [sum(values[i * combos:(i + 1) * combos]) / combos for i in range(len(values) // combos)]


def spread(values: Sequence[float]) -> float:
    """The sample standard deviation (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def paired_interval(differences: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean paired difference with its Student t interval (``harness.ratings.mean_interval``)."""
    from harness.ratings import mean_interval
    if not differences:
        return Interval(math.nan, -math.inf, math.inf, 0)
    mean, low, high = mean_interval(differences, confidence)
    return Interval(float(mean), float(low), float(high), len(differences))


def is_confidently_worse(differences: Sequence[float], looks: int, alpha: float) -> bool:
    """Whether the gain's one-sided upper bound at level ``alpha / looks`` lies below zero.

    Args:
        differences: the per-opening paired differences so far.
        looks: how many looks a trial can have (its block boundaries before the last).
        alpha: the chance, over all its looks, of pruning a trial as good as the incumbent.
    """
    n = len(differences)
    if n < 2:
        return False
    mean = sum(differences) / n
    sd = spread(differences)
    if sd == 0:
        return mean < 0
    level = alpha / max(1, looks)
    upper = mean + stats.t.ppf(1 - level, n - 1) * sd / math.sqrt(n)
    return upper < 0


def sample_size(sd: float, smallest_gain: float, *, power: float = 0.8, alpha: float = 0.05) -> int:
    """Openings needed so a true gain of ``smallest_gain`` gives a 95% interval above zero with ``power``.

    The normal approximation of the paired t test, two-sided at ``alpha``:
    ``n = ((z(1 - alpha/2) + z(power)) * sd / smallest_gain) ** 2``, at least 2.
    """
    if smallest_gain <= 0:
        raise InvalidInput(f"the smallest gain must be positive, got {smallest_gain:g}")
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return max(2, math.ceil((z * sd / smallest_gain) ** 2))


def detectable_gain(sd: float, n: int, *, power: float = 0.8, alpha: float = 0.05) -> float:
    """The gain that ``n`` openings detect with ``power``: ``sample_size`` solved for the gain."""
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return z * sd / math.sqrt(max(1, n))


def worth_confirming(race: Interval) -> bool:
    """Whether the race's leader goes on to the confirmation: unless its race interval lies below zero.

    The race picks; the confirmation tests. Skipping the confirmation whenever
    the leader's race mean is not positive would be a second, unplanned test
    on a few dozen openings, and it cost the stated power: in the benchmark
    every Ravenward small gain missed was a leader at or below zero in the race
    (issue 43). Only a leader confidently behind saves the confirmation's games.
    """
    return not race.high < 0


def verdict_of(pooled: Interval, by_opponent: Sequence[float], tolerance: float,
               extra_losses: Interval | None = None) -> str:
    """better, no gain or worse (``VERDICT_RULES``).

    Args:
        pooled: the gain over every confirmation opening.
        by_opponent: each opponent's mean gain.
        tolerance: how far below zero one opponent's gain may be in a better verdict.
        extra_losses: objective ``wdl``: the tuned player's losses minus the incumbent's, paired per
            opening; a better verdict needs it not confidently above zero (no gain in wins may cost
            extra losses). Counting raw losses instead (any one extra loss refuses) is a coin flip
            when the two lose equally often: it refused a true gain about half the time.
    """
    if pooled.high < 0:
        return "worse"
    loses_more = extra_losses is not None and extra_losses.low > 0
    if pooled.low > 0 and all(gain >= -tolerance for gain in by_opponent) and not loses_more:
        return "better"
    return "no gain"
