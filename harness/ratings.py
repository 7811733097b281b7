"""Statistics over match results: score intervals and Bradley-Terry Elo ratings.

Pure math over plain numbers (numpy, and scipy's t quantiles; no database): the leaderboard
feeds it aggregates from SQL, tests feed it hand-made samples.

- ``mean_interval``: the mean of a sample with a Student t confidence interval,
  the right interval for a mean score over a few dozen to a few thousand
  matches with unknown variance.
- ``bounded_interval_from_moments``: the same for a score known to lie in
  ``[low, high]`` (every game's documented score does): a Wilson score
  interval when every value is one of the two bounds (a rate, such as Chinese
  chess's rank-1 score), else the Student t interval clipped to the bounds.
  Either way the interval never leaves the possible range, and a single game
  gives the whole range.
- ``bradley_terry``: Elo ratings for player-against-player results by maximum
  likelihood under the Bradley-Terry model ``P(i beats j) = 1 / (1 +
  10^((R_j - R_i) / 400))``, a draw counting as half a win for each side, with
  Wald intervals from the Fisher information. The scale is fixed by making the
  ratings average 0, or by pinning an ``anchor`` player at 0.

The maximum likelihood estimate exists only when no group of players scored
every point against everyone else (Zermelo's condition: the graph "i scored
against j" is strongly connected). When it does not, for instance a player
won every game, the estimate is regularised by a few virtual draws of every
player against a virtual 0-rated player; the result says how many were added.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from harness.errors import InvalidInput

ELO_PER_LOGIT = 400.0 / math.log(10.0)  # Elo points per unit of the logistic model's strength


def interval_from_moments(count: int, mean: float, variance: float,
                          confidence: float = 0.95) -> tuple[float, float, float]:
    """A Student t interval for a mean from the sample's size, mean and variance.

    Args:
        count: number of values.
        mean: their mean.
        variance: their sample variance (divisor ``count - 1``).
        confidence: two-sided confidence level in (0, 1).

    Returns:
        ``(mean, low, high)``; with one value the interval is unbounded
        (``-inf``, ``inf``), with zero variance it is the mean itself.

    Raises:
        InvalidInput: no values, or a confidence outside (0, 1).
    """
    _check_confidence(confidence)
    if count < 1:
        raise InvalidInput("a mean needs at least one value")
    if count == 1:
        return mean, -math.inf, math.inf
    from scipy import stats  # imported on first use: it costs a second, and most commands never need it
    half = float(stats.t.ppf(0.5 + confidence / 2.0, count - 1)) * math.sqrt(max(variance, 0.0) / count)
    return mean, mean - half, mean + half


def wilson_interval(successes: float, count: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a rate: inside [0, 1], sensible at 0 and ``count`` successes.

    Raises:
        InvalidInput: no trials, successes outside [0, count], or a bad confidence.
    """
    _check_confidence(confidence)
    if count < 1 or not 0.0 <= successes <= count:
        raise InvalidInput(f"a rate needs 0 <= successes <= trials and a trial, got {successes!r} of {count!r}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    rate = successes / count
    centre = (rate + z * z / (2 * count)) / (1 + z * z / count)
    half = z / (1 + z * z / count) * math.sqrt(rate * (1 - rate) / count + z * z / (4 * count * count))
    return max(0.0, centre - half), min(1.0, centre + half)


def bounded_interval_from_moments(count: int, total: float, squares: float, bounds: tuple[float, float],
                                  confidence: float = 0.95) -> tuple[float, float, float]:
    """An interval for the mean of values known to lie within ``bounds``, from their sum and sum of squares.

    When every value is one of the two bounds (``sum((x - lo) * (hi - x)) == 0``,
    visible in the moments) the mean is a rate and gets the Wilson score
    interval; otherwise the Student t interval, clipped to the bounds. A
    single value gives the whole range: one game says nothing about spread.

    Args:
        count: number of values.
        total: their sum.
        squares: the sum of their squares.
        bounds: ``(lowest, highest)`` possible value.
        confidence: two-sided confidence level in (0, 1).

    Returns:
        ``(mean, low, high)`` with ``lowest <= low <= mean <= high <= highest``.

    Raises:
        InvalidInput: no values, bounds in the wrong order, or a bad confidence.
    """
    _check_confidence(confidence)
    lowest, highest = float(bounds[0]), float(bounds[1])
    if count < 1:
        raise InvalidInput("a mean needs at least one value")
    if not lowest < highest:
        raise InvalidInput(f"score bounds must be increasing, got {bounds!r}")
    mean = min(max(total / count, lowest), highest)
    if count == 1:
        return mean, lowest, highest
    inside = (lowest + highest) * total - squares - count * lowest * highest  # sum((x - lo)(hi - x)) >= 0
    width = highest - lowest
    if abs(inside) <= 1e-9 * count * width * width:
        low, high = wilson_interval((total - count * lowest) / width, count, confidence)
        return mean, lowest + low * width, lowest + high * width
    variance = max((squares - count * mean * mean) / (count - 1), 0.0)
    _, low, high = interval_from_moments(count, mean, variance, confidence)
    return mean, max(low, lowest), min(high, highest)


def bounded_mean_interval(values: Iterable[float], bounds: tuple[float, float],
                          confidence: float = 0.95) -> tuple[float, float, float]:
    """``bounded_interval_from_moments`` of a sample: the mean of bounded scores with an interval inside the bounds."""
    sample = np.asarray(list(values), dtype=float)
    return bounded_interval_from_moments(int(sample.size), float(sample.sum()), float((sample * sample).sum()),
                                         bounds, confidence)


def mean_interval(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """The mean of ``values`` with its Student t confidence interval.

    Args:
        values: the sample (at least one value).
        confidence: two-sided confidence level in (0, 1).

    Returns:
        ``(mean, low, high)``; see ``interval_from_moments`` for the edge cases.

    Raises:
        InvalidInput: no values, or a confidence outside (0, 1).
    """
    sample = np.asarray(list(values), dtype=float)
    if sample.size == 0:
        raise InvalidInput("a mean needs at least one value")
    variance = float(sample.var(ddof=1)) if sample.size > 1 else 0.0
    return interval_from_moments(int(sample.size), float(sample.mean()), variance, confidence)


@dataclass(frozen=True)
class Rating:
    """One player's Elo with its confidence interval and the games behind it."""

    player: str
    elo: float
    low: float
    high: float
    games: int
    points: float  # wins plus half the draws


@dataclass(frozen=True)
class Ratings:
    """A table of Bradley-Terry ratings, best first."""

    ratings: tuple[Rating, ...]
    confidence: float
    anchor: str | None  # the player pinned at 0, or None when ratings average 0
    prior_draws: float  # virtual draws per player added because the plain estimate does not exist


def bradley_terry(games: Iterable[tuple[str, str, float]], confidence: float = 0.95,
                  anchor: str | None = None, prior_draws: float | None = None) -> Ratings:
    """Elo ratings by maximum likelihood under the Bradley-Terry model.

    Args:
        games: ``(player, opponent, points)`` per game, points 1 for a win of
            ``player``, 0.5 for a draw, 0 for a loss. Games of a player
            against itself carry no information and are left out.
        confidence: two-sided confidence level of the intervals.
        anchor: a player pinned at Elo 0 (its interval is then [0, 0] and the
            others' intervals are for the difference to it); None: the
            ratings average 0.
        prior_draws: virtual draws of each player against a virtual 0-rated
            player; None adds one only when the plain estimate does not exist.

    Returns:
        The ratings, sorted by Elo, best first.

    Raises:
        InvalidInput: points outside [0, 1], a bad confidence, or an unknown anchor.
    """
    _check_confidence(confidence)
    players, played, scored = _tally(games)
    count = len(players)
    if anchor is not None and anchor not in players:
        raise InvalidInput(f"anchor {anchor!r} played no rated game; players: {', '.join(players) or 'none'}")
    if count == 0:
        return Ratings((), confidence, anchor, 0.0)
    if prior_draws is None:
        prior_draws = 0.0 if _estimate_exists(scored, played) else 1.0
    strength, information = _maximise(played, scored, prior_draws)
    centering = np.eye(count) - 1.0 / count
    covariance = centering @ np.linalg.pinv(information) @ centering
    if anchor is not None:
        pinned = players.index(anchor)
        strength = strength - strength[pinned]
        variance = np.diag(covariance) + covariance[pinned, pinned] - 2.0 * covariance[:, pinned]
    else:
        strength = strength - strength.mean()
        variance = np.diag(covariance)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    rows = []
    for index, player in enumerate(players):
        elo = float(strength[index]) * ELO_PER_LOGIT
        half = z * math.sqrt(max(float(variance[index]), 0.0)) * ELO_PER_LOGIT
        rows.append(Rating(player, elo, elo - half, elo + half, int(played[index].sum()),
                           float(scored[index].sum())))
    rows.sort(key=lambda r: (-r.elo, r.player))
    return Ratings(tuple(rows), confidence, anchor, float(prior_draws))


def expected_points(elo_difference: float) -> float:
    """Expected points per game of a player rated ``elo_difference`` above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise InvalidInput(f"confidence must be between 0 and 1 (exclusive), got {confidence!r}")


def _tally(games: Iterable[tuple[str, str, float]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Players (sorted), games played per pair, and points scored per ordered pair."""
    pairs: list[tuple[str, str, float]] = []
    for player, opponent, points in games:
        if not 0.0 <= points <= 1.0:
            raise InvalidInput(f"points per game must be within [0, 1], got {points!r}")
        if player != opponent:
            pairs.append((player, opponent, float(points)))
    players = sorted({p for pair in pairs for p in pair[:2]})
    index = {player: i for i, player in enumerate(players)}
    played = np.zeros((len(players), len(players)))
    scored = np.zeros((len(players), len(players)))
    for player, opponent, points in pairs:
        i, j = index[player], index[opponent]
        played[i, j] += 1.0
        played[j, i] += 1.0
        scored[i, j] += points
        scored[j, i] += 1.0 - points
    return players, played, scored


def _estimate_exists(scored: np.ndarray, played: np.ndarray) -> bool:
    """Zermelo's condition: every player reaches every other along "scored against" edges."""
    count = len(scored)

    def reach(edges: np.ndarray) -> int:
        seen, frontier = {0}, [0]
        while frontier:
            node = frontier.pop()
            for other in np.nonzero(edges[node] > 0)[0]:
                if int(other) not in seen:
                    seen.add(int(other))
                    frontier.append(int(other))
        return len(seen)

    return reach(scored) == count and reach(scored.T) == count


def _log_likelihood(strength: np.ndarray, played: np.ndarray, scored: np.ndarray, prior: float) -> float:
    difference = strength[:, None] - strength[None, :]
    # scored[i, j] * log P(i beats j), with log P = -log(1 + exp(-d)) computed stably
    total = -float((scored * np.logaddexp(0.0, -difference)).sum())
    if prior:
        total -= prior * float((0.5 * np.logaddexp(0.0, -strength) + 0.5 * np.logaddexp(0.0, strength)).sum())
    return total


def _slope_and_information(strength: np.ndarray, played: np.ndarray, scored: np.ndarray,
                           prior: float) -> tuple[np.ndarray, np.ndarray]:
    """The log-likelihood's gradient and the Fisher information (its negated Hessian)."""
    win = 1.0 / (1.0 + np.exp(-(strength[:, None] - strength[None, :])))
    gradient = (scored - played * win).sum(axis=1)
    weight = played * win * (1.0 - win)
    information = np.diag(weight.sum(axis=1)) - weight
    if prior:
        ghost = 1.0 / (1.0 + np.exp(-strength))
        gradient += prior * (0.5 - ghost)
        information += np.diag(prior * ghost * (1.0 - ghost))
    return gradient, information


def _maximise(played: np.ndarray, scored: np.ndarray, prior: float,
              iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method with step halving; returns the strengths and the Fisher information."""
    count = len(played)
    strength = np.zeros(count)
    nullspace = np.full((count, count), 1.0 / count)  # fixes the free constant of the plain model
    current = _log_likelihood(strength, played, scored, prior)
    for _ in range(iterations):
        gradient, information = _slope_and_information(strength, played, scored, prior)
        step = np.linalg.solve(information + nullspace, gradient)
        scale = 1.0
        while True:
            candidate = strength + scale * step
            value = _log_likelihood(candidate, played, scored, prior)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        strength, current = candidate, value
        if float(np.abs(scale * step).max()) < 1e-10:
            break
    return strength, _slope_and_information(strength, played, scored, prior)[1]


def rate_matches(matches: Sequence[tuple[str, str, str]], confidence: float = 0.95,
                 anchor: str | None = None) -> Ratings:
    """Bradley-Terry ratings from ``(player, opponent, outcome)`` with outcome win/draw/loss."""
    points = {"win": 1.0, "draw": 0.5, "loss": 0.0}
    try:
        games = [(player, opponent, points[outcome]) for player, opponent, outcome in matches]
    except KeyError as error:
        raise InvalidInput(f"unknown outcome {error.args[0]!r}; valid outcomes: win, draw, loss") from None
    return bradley_terry(games, confidence=confidence, anchor=anchor)
