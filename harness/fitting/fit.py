"""The fit: the weights whose evaluation best predicts the labels, by logistic loss, checked on held-out positions.

The model is Texel tuning's: a position's label y (in [0, 1], from its side to
move) is predicted by ``sigmoid(eval(w) / scale)``, ``eval`` being the
game's own leaf evaluation (``static_value`` of its search module) under the
weights w, and the loss is the mean cross-entropy over the positions.

* **The scale is fitted first, then held.** ``scale`` is fitted once on the
  training positions at the default weights (SciPy's bounded scalar
  minimiser on its logarithm), then the weights are fitted with it fixed.
  Fitting both at once is not possible: an evaluation linear in its weights
  gives ``eval(c w) / (c scale) = eval(w) / scale`` for any c, so only their
  ratio is determined. Holding the scale keeps the weights in the search's
  own units, which its margins and windows (aspiration, futility, decided
  values) are written in.
* **The weights** are fitted by L-BFGS-B within each feature's documented
  range (so the result is a valid study incumbent), on the evaluation
  linearised at the current weights (each weight's column: the change of
  the evaluation when that weight alone moves by a tenth of its range),
  re-linearised at the fit a few times: exact in a step for an evaluation
  linear in its weights (Totality, Ravenward), a few steps for one that is
  not (Chinese chess's ``hanging`` scales the piece values). A weight whose
  column is zero on every position (a feature these positions never show)
  keeps its default.
* **Ridge.** The fit minimises the mean loss plus ``ridge / n`` times the sum
  of each fitted weight's squared distance from its default in units of its
  range, ``((w - default) / (high - low))**2``, over the n training positions:
  an L2 penalty toward the defaults (a Gaussian prior worth ``ridge``
  positions), unit-free because each weight is measured in its own range.
  Divided by n, it fades as positions grow: the default (``RIDGE``, 10) is
  meant to be negligible for thousands of positions and to hold the weights
  near the defaults on tens, where the plain fit overfits. In a small check
  (Chinese chess, 23 weights, Fairy-Stockfish labels at 2,000 nodes, two
  splits) it cut the plain fit's held-out loss on 100 positions from 0.727
  to 0.666 and from 0.503 to 0.488 (the defaults': 0.658 and 0.487), and on
  600 it cost at most 0.004. A fixed default, not one chosen on the
  held-out positions, so the held-out loss stays an honest measure.
  ``ridge=0`` is the plain fit.
* **Held-out loss.** A seeded share of the positions (``holdout``) is kept
  out of both fits; the loss on it before (default weights) and after
  (fitted) is computed with the real evaluation, not the linearisation.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.errors import InvalidInput
from harness.games import kit

ROUNDS = 4  # linearisations at most
RIDGE = 10.0  # the penalty toward the defaults, in positions' worth (``ridge`` of ``fit_weights``)
STEP_SHARE = 0.1  # a column's step: this share of the feature's range
EPSILON = 1e-12  # keeps the logarithm of a prediction finite


@dataclass(frozen=True)
class FitResult:
    """What a fit found, and what it cost.

    Attributes:
        weights: every fitted weight (the features' order); the others keep their defaults.
        defaults: every feature's default.
        scale: the fitted evaluation units per logistic unit.
        ridge: the strength of the penalty toward the defaults (positions' worth).
        loss_before: held-out loss at the defaults (at the fitted scale).
        loss_after: held-out loss at the fitted weights.
        train_positions: positions fitted on.
        heldout_positions: positions measured on.
        seconds: the fit's time (not the labelling's).
        held: weights kept at their defaults (no position showed their feature).
    """

    weights: dict[str, float]
    defaults: dict[str, float]
    scale: float
    ridge: float
    loss_before: float
    loss_after: float
    train_positions: int
    heldout_positions: int
    seconds: float
    held: tuple[str, ...] = field(default=())


def logistic_loss(values: np.ndarray, labels: np.ndarray, scale: float) -> float:
    """The mean cross-entropy of ``sigmoid(values / scale)`` against labels in [0, 1]."""
    predicted = _sigmoid(values / scale)
    return float(-np.mean(labels * np.log(predicted + EPSILON) + (1.0 - labels) * np.log(1.0 - predicted + EPSILON)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0)))


def fit_weights(game: str, states: Sequence[tuple[Any, Any]], labels: Sequence[float], *,
                holdout: float = 0.2, seed: int = 0, fixed: Sequence[str] = (), scale: float | None = None,
                ridge: float = RIDGE,
                evaluate: Callable[[Any, Any, np.ndarray], float] | None = None) -> FitResult:
    """Fit ``game``'s evaluation weights to labelled positions.

    Args:
        game: the game (its features and ranges, its ``static_value``).
        states: ``(rules, state)`` of each open position.
        labels: each position's label in [0, 1], from its side to move.
        holdout: the share of positions kept out of the fit and measured on.
        seed: chooses the held-out positions.
        fixed: weights held at their defaults.
        scale: hold the scale at this value instead of fitting it (labels known to be on a scale).
        ridge: the L2 penalty toward the defaults, each weight in units of its range, worth ``ridge``
            positions (the loss adds ``ridge / n`` times the sum of squares); 0 for none.
        evaluate: the evaluation (``static_value(rules, state, weights)``); default the game's.

    Raises:
        InvalidInput: too few positions to fit and hold some out, a bad
            ``holdout``, a negative ``ridge``, or a fixed weight that is not a feature.
    """
    started = time.perf_counter()
    features = kit(game).features
    names = list(features)
    for name in fixed:
        if name not in features:
            raise InvalidInput(f"{name!r} is not a feature of {kit(game).name}; valid: {', '.join(names)}")
    if not (ridge >= 0.0 and math.isfinite(ridge)):
        raise InvalidInput(f"ridge must be a number at least 0, not {ridge}")
    if not 0.0 < holdout < 1.0:
        raise InvalidInput(f"holdout must lie between 0 and 1, not {holdout}")
    if len(states) != len(labels):
        raise InvalidInput(f"{len(states)} positions but {len(labels)} labels")
    order = list(range(len(states)))
    random.Random(seed).shuffle(order)
    cut = int(round(len(order) * holdout))
    heldout, train = sorted(order[:cut]), sorted(order[cut:])
    if len(heldout) < 2 or len(train) < 2 * len(names):
        raise InvalidInput(f"{len(states)} labelled positions are too few to fit {len(names)} weights and hold "
                           f"{holdout:.0%} out; give more positions")
    evaluate = evaluate or kit(game).search.static_value
    defaults = np.array([features[name].default for name in names])
    low = np.array([features[name].low for name in names])
    high = np.array([features[name].high for name in names])
    free = np.array([name not in fixed for name in names])
    y = np.asarray(labels, dtype=np.float64)

    def values(indices: list[int], weights: np.ndarray) -> np.ndarray:
        return np.array([evaluate(*states[i], weights) for i in indices])

    at_defaults = values(train, defaults)
    if scale is None:
        scale = _fit_scale(at_defaults, y[train], kit(game).eval_scale)
    # Per weight, the penalty's factor on (w - default)**2: unit-free by the range, fading with n.
    penalty = ridge / len(train) / np.maximum(high - low, 1e-9) ** 2
    weights, held = defaults.copy(), set()
    for round_number in range(ROUNDS):
        base = at_defaults if round_number == 0 else values(train, weights)
        columns = _columns(values, train, weights, base, low, high, free)
        active = free & (np.abs(columns).max(axis=0) > 0)
        held = {name for name, on, can in zip(names, active, free) if can and not on}
        fitted = _fit_linear(base, columns, weights, y[train], scale, low, high, active, defaults, penalty)
        moved = np.max(np.abs(fitted - weights) / np.maximum(high - low, 1e-9)) if len(fitted) else 0.0
        weights = fitted
        if moved < 1e-4:
            break
    before = logistic_loss(values(heldout, defaults), y[heldout], scale)
    after = logistic_loss(values(heldout, weights), y[heldout], scale)
    return FitResult(weights={name: float(round(value, 4)) for name, value in zip(names, weights)},
                     defaults={name: float(value) for name, value in zip(names, defaults)}, scale=float(scale),
                     ridge=float(ridge),
                     loss_before=before, loss_after=after, train_positions=len(train),
                     heldout_positions=len(heldout), seconds=time.perf_counter() - started,
                     held=tuple(sorted(held)))


def _fit_scale(values: np.ndarray, labels: np.ndarray, guess: float) -> float:
    """The scale that best maps these evaluations to the labels (searched from guess/100 to guess*100)."""
    from scipy.optimize import minimize_scalar
    found = minimize_scalar(lambda log_scale: logistic_loss(values, labels, math.exp(log_scale)),
                            bounds=(math.log(guess / 100), math.log(guess * 100)), method="bounded")
    return math.exp(found.x)


def _columns(values: Callable[[list[int], np.ndarray], np.ndarray], indices: list[int], weights: np.ndarray,
             base: np.ndarray, low: np.ndarray, high: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Each free weight's column: the evaluation's change per unit of that weight alone, at ``weights``."""
    steps = np.maximum((high - low) * STEP_SHARE, 1e-6)
    columns = np.zeros((len(indices), len(weights)))
    for i in np.flatnonzero(free):
        moved = weights.copy()
        moved[i] += steps[i]
        columns[:, i] = (values(indices, moved) - base) / steps[i]
    return columns


def _fit_linear(base: np.ndarray, columns: np.ndarray, start: np.ndarray, labels: np.ndarray,
                scale: float, low: np.ndarray, high: np.ndarray, active: np.ndarray, centre: np.ndarray,
                penalty: np.ndarray) -> np.ndarray:
    """L-BFGS-B on the linearised evaluation ``base + columns @ (w - start)``, active weights within [low, high],
    plus the ridge ``sum(penalty * (w - centre)**2)`` over the active weights."""
    from scipy.optimize import minimize
    index = np.flatnonzero(active)
    if not len(index):
        return start.copy()
    part = columns[:, index]
    centre, penalty = centre[index], penalty[index]

    def loss_and_gradient(w: np.ndarray) -> tuple[float, np.ndarray]:
        values = base + part @ (w - start[index])
        predicted = _sigmoid(values / scale)
        loss = -np.mean(labels * np.log(predicted + EPSILON) + (1.0 - labels) * np.log(1.0 - predicted + EPSILON))
        gradient = part.T @ (predicted - labels) / (scale * len(labels))
        distance = w - centre
        return float(loss + np.sum(penalty * distance ** 2)), gradient + 2.0 * penalty * distance

    bounds = list(zip(np.minimum(low[index], start[index]), np.maximum(high[index], start[index])))
    found = minimize(loss_and_gradient, start[index], jac=True, method="L-BFGS-B", bounds=bounds)
    fitted = start.copy()
    fitted[index] = found.x
    return fitted
