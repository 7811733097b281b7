"""Evaluation features per game: each a named weight with a default and a range.

A game's module here (``players.features.<game>``) defines ``FEATURES``, an
ordered dict of ``Feature``, and ``material(rules, state, side)``, a simple
material balance from ``side``'s point of view used by the greedy player.
The compiled searches take the weights as one float64 array in ``FEATURES``
order (``weight_vector``), so a new weight vector needs no recompilation and
Optuna's search space is just a dict of weights.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np

from harness.errors import SpecError, UnknownGame
from harness.games.kit import Feature

__all__ = ["Feature", "module", "features", "feature_names", "defaults", "weight_vector"]


def module(game: str) -> ModuleType:
    """The features module of a game (``game`` may be a game spec)."""
    name = game.partition(":")[0]
    try:
        return importlib.import_module(f"harness.games.{name}.features")
    except ModuleNotFoundError:
        raise UnknownGame(f"no evaluation features for game {name!r}") from None


def features(game: str) -> dict[str, Feature]:
    """The ordered features of a game."""
    return module(game).FEATURES


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
