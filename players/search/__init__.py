"""Game-tree searches, one per game, behind one call: the ``search`` of the game's kit.

Each game's search (``harness/games/<game>/search.py``, the ``GameSearch``
protocol of ``harness.games.gamekit``) provides::

    search(rules, state, weights, *, depth, nodes, deadline, seed) -> SearchResult
    rollout(rules, state, seed) -> (result, score)     # a random playout for MCTS
    GBOT: dict[str, dict]   # level -> {"depth": int, "weights": {...}} for the G-Bot stand-in
    GBOT_EVALS: dict[str, dict[str, float]]            # the evaluations of the ladder's rungs

``weights`` is the float64 vector of ``players.features.weight_vector``;
``depth``/``nodes`` bound the search deterministically, ``deadline`` (a
``time.monotonic()`` instant, live play only) by the clock; ``seed`` breaks
ties between equally valued moves. The shipped games search on the engine's
compiled fast path and return the chosen action in the public action JSON.
"""

from __future__ import annotations

from harness.games import kit, names
from harness.games.gamekit import GameSearch, SearchResult

__all__ = ["GameSearch", "SearchResult", "module", "available"]


def module(game: str) -> GameSearch:
    """The search of a game (``game`` may be a game spec).

    Raises:
        UnknownGame: not a registered game.
    """
    return kit(game).search


def available() -> list[str]:
    """The registered games, sorted: every game's kit declares its search."""
    return names()
