"""Evaluation features per game: each a named weight with a default and a range.

A game declares its features, in order, in its kit (``harness.games.kit(game)
.features``, from ``harness/games/<game>/features.py``). The compiled
searches take the weights as one float64 array in that order
(``weight_vector``), so a new weight vector needs no recompilation and
Optuna's search space is just a dict of weights.
"""

from __future__ import annotations

import numpy as np

from harness.errors import SpecError
from harness.games import kit
from harness.games.gamekit import Feature

__all__ = ["Feature", "features", "feature_names", "defaults", "weight_vector"]


def features(game: str) -> dict[str, Feature]:
    """The ordered features of a game (``game`` may be a game spec).

    Raises:
        UnknownGame: not a registered game.
    """
    return kit(game).features


def feature_names(game: str) -> list[str]:
    """The feature names of a game, in weight-vector order."""
    return list(features(game))


def defaults(game: str) -> dict[str, float]:
    """The default weight of every feature of a game."""
    return {name: f.default for name, f in features(game).items()}


def weight_vector(game: str, weights: dict[str, float] | None = None) -> np.ndarray:
    """The defaults overridden by ``weights``, as the float64 array the searches take.

    Raises:
        SpecError: a weight that is not a feature of the game.
    """
    table = features(game)
    for name in weights or {}:
        if name not in table:
            raise SpecError(f"{game.partition(':')[0]} has no evaluation feature {name!r}; "
                            f"valid features: {', '.join(table)}")
    merged = defaults(game) | dict(weights or {})
    return np.array([float(merged[name]) for name in table], dtype=np.float64)
