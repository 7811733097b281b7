"""Compiled game-tree searches, one module per game, behind one call.

Each ``players.search.<game>`` module provides::

    search(rules, state, weights, *, depth, nodes, deadline, seed) -> SearchResult
    GBOT: dict[str, dict]   # level -> {"depth": int, "weights": {...}} for the G-Bot stand-in

``weights`` is the float64 vector of ``players.features.weight_vector``;
``depth``/``nodes`` bound the search deterministically, ``deadline`` (a
``time.monotonic()`` instant, live play only) by the clock; ``seed`` breaks
ties between equally valued moves. The search runs on the engine's compiled
fast path and returns the chosen action in the public action JSON.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from harness.errors import UnknownGame
from harness.games.kit import SearchResult

__all__ = ["SearchResult", "module", "available"]


def module(game: str) -> ModuleType:
    """The compiled search module of a game."""
    name = game.partition(":")[0]
    try:
        return importlib.import_module(f"harness.games.{name}.search")
    except ModuleNotFoundError as error:
        if error.name != f"harness.games.{name}.search":
            raise
        raise UnknownGame(f"no search for game {name!r}") from None


def available() -> list[str]:
    """The registered games that have a search module, sorted."""
    from harness.games import names
    found = []
    for name in names():
        try:
            module(name)
        except UnknownGame:
            continue
        found.append(name)
    return found
