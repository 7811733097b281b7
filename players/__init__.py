"""Players: the protocol, and ``load(spec)`` over a registry of kinds.

``load("alphabeta:depth=4,w.mobility=2.5")`` or ``load({"kind": "alphabeta",
"depth": 4, "weights": {"mobility": 2.5}})``. Passing ``game=`` also checks
weight names against that game's evaluation features, so a typo is caught
before any match is played.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness.errors import SpecError
from players.base import Limits, Param, Player
from players.spec import parse

__all__ = ["Limits", "Param", "Player", "KINDS", "load", "kinds"]

# kind -> (module, class, parameter a bare value sets)
KINDS: dict[str, tuple[str, str, str | None]] = {
    "random": ("players.random", "RandomPlayer", None),
    "greedy": ("players.greedy", "GreedyPlayer", None),
    "alphabeta": ("players.alphabeta", "AlphaBetaPlayer", "depth"),
    "mcts": ("players.mcts", "MCTSPlayer", "iterations"),
    "gbot": ("players.gbot", "GBotPlayer", "level"),
    "external": ("players.external", "ExternalPlayer", "command"),
}


def kinds() -> list[str]:
    """The registered player kinds, sorted."""
    return sorted(KINDS)


def player_class(kind: str) -> type[Player]:
    """The class of a registered kind, imported on first use."""
    module, name, _ = KINDS[kind]
    return getattr(importlib.import_module(module), name)


def load(spec: str | dict[str, Any] | Player, game: str | None = None) -> Player:
    """Build a player from its spec.

    Args:
        spec: a spec string, its dict form, or a player (returned as is).
        game: a game name or game spec; when given, weight names are checked
            against that game's features.

    Raises:
        SpecError: unknown kind, parameter or weight, or a malformed value;
            the message names the valid choices.
    """
    if isinstance(spec, Player):
        player = spec
    else:
        kind, params, weights = parse(spec, {k: v[2] for k, v in KINDS.items()})
        player = player_class(kind)(params, weights)
    if game is not None:
        check_weights(player, game)
    return player


def check_weights(player: Player, game: str) -> None:
    """Raise SpecError if the player's weights are not features of ``game``.

    Raises:
        UnknownGame: ``game`` is not a registered game spec (the message lists them).
        SpecError: a weight that is not one of the game's features (the message lists them).
    """
    from harness.games import parse_spec
    from players.features import weight_vector
    name, _ = parse_spec(game)
    if player.weights:
        weight_vector(name, player.weights)
