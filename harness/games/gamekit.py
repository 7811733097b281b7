"""The declared surface of a game (``GameKit``) and the game-neutral values its modules share.

A game is one package, ``harness/games/<name>/``: the rules engine (the
package itself) with its compiled core, ``features.py`` (the evaluation
features in their order), ``search.py`` (the compiled search and rollout, the
G-Bot stand-in levels) and ``kit.py``, which declares ``KIT``: the game's
``GameKit``, the one object players, environments, live clients and the web
pages ask for what differs by game. The registry (``harness.games``) names
each game's kit module; ``harness.games.kit(name)`` loads it on first use.

A game's evaluation features (``Feature``) and what its search returns
(``SearchResult``) are declared here, in the games layer, so a game package
(``harness/games/<name>/``) needs nothing from ``players``. The players
re-export both under their old names (``players.features.Feature``,
``players.search.SearchResult``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

Action = dict[str, Any]


@dataclass(frozen=True)
class Feature:
    """One named evaluation weight: its default and the range tuning searches."""

    name: str
    default: float
    low: float
    high: float
    doc: str
    log: bool = False


@dataclass(frozen=True)
class SearchResult:
    """What one search decided and what it cost."""

    action: Action
    value: float
    depth: int
    nodes: int


class GameSearch(Protocol):
    """A game's search as the players drive it; the game's ``search`` module satisfies it.

    ``search`` takes the weight vector in the kit's feature order
    (``weight_vector``); ``depth``/``nodes`` bound it deterministically,
    ``deadline`` (a ``time.monotonic()`` instant, live play only) by the clock;
    ``seed`` breaks ties. ``rollout`` plays a random game to its end for MCTS
    and returns (result, the user's score). ``GBOT`` holds the G-Bot stand-in
    levels (level -> ``{"depth": int, "weights": {...}, ...}``, extra keys
    passed on to ``search``), ``GBOT_EVALS`` the evaluations a ladder rung may
    use (name -> weights). Both name every feature, from a frozen table rather
    than the live defaults, so adopting new defaults never moves the ladder;
    ``GBOT_DEFAULT_SOURCE`` says which table ``eval=default`` is (``harness games``).
    """

    GBOT: dict[str, dict[str, Any]]
    GBOT_EVALS: dict[str, dict[str, float]]
    GBOT_DEFAULT_SOURCE: str

    def search(self, rules: Any, state: Any, weights: np.ndarray, *, depth: int | None = None,
               nodes: int | None = None, deadline: float | None = None, seed: int = 0) -> SearchResult: ...

    def rollout(self, rules: Any, state: Any, seed: int) -> tuple[str, float]: ...

    def static_value(self, rules: Any, state: Any, weights: np.ndarray) -> float:
        """The search's leaf evaluation of an open position for the side to move, in the search's units:
        what ``harness fit`` regresses on labels. (A game with an exact solver also has ``solve(rules,
        state, empties, nodes) -> "win" | "draw" | "loss" | None``, the mover's result; optional.)"""
        ...


@runtime_checkable
class GameKit(Protocol):
    """Everything the rest of the project needs of one game, declared once (``KIT`` in its ``kit.py``).

    Attributes:
        name: the registered name (``ravenward``).
        features: the evaluation features, ordered: the order of the weight
            vector the search takes (indices derive from it, ``feature_index``).
        eval_scale: evaluation units per logistic unit (about a 73% win
            chance), for MCTS's evaluation-guided leaves.
        board_shape: (rows, columns) of the board a live observation may show,
            or None when the game is not read from observations.
        strong: the alpha-beta settings (``depth``, ``nodes``, any other
            alpha-beta parameter such as ``behind``) the ``strong`` player
            plays with, or None for a game without one.
        gameboard_slug: the game's slug on the Gameboard API, or None when
            the stateless loop does not serve it.
    """

    name: str
    features: dict[str, Feature]
    eval_scale: float
    board_shape: tuple[int, int] | None
    strong: dict[str, float] | None
    gameboard_slug: str | None

    def make_rules(self, **config: str) -> Any:
        """The rules under a full, validated configuration (``harness.games.load`` calls it)."""
        ...

    @property
    def search(self) -> GameSearch:
        """The game's search (alpha-beta, rollout, stand-in levels), imported on first use."""
        ...

    def material(self, rules: Any, state: Any, side: int) -> float:
        """A simple material balance from ``side``'s point of view (the greedy player's)."""
        ...

    def board_cells(self, rules: Any, state: Any) -> list[str]:
        """The kind of every square of a position, ``""`` for empty, row-major: how a live
        observation's board is read (``harness.live.observation``)."""
        ...


@dataclass(frozen=True)
class Kit:
    """A ``GameKit`` as plain declarations: each game's ``kit.py`` fills one in.

    The methods only forward to the game's own functions; the search module
    is named, not imported, so loading a kit (the registry does it for every
    game) never compiles a search.
    """

    name: str
    features: dict[str, Feature]
    eval_scale: float
    board_shape: tuple[int, int] | None
    strong: dict[str, float] | None
    gameboard_slug: str | None
    rules: Callable[..., Any]  # make_rules(**config)
    search_module: str  # the module that satisfies ``GameSearch``
    material_of: Callable[[Any, Any, int], float]
    cells_of: Callable[[Any, Any], list[str]]

    def make_rules(self, **config: str) -> Any:
        return self.rules(**config)

    @property
    def search(self) -> GameSearch:
        return importlib.import_module(self.search_module)  # type: ignore[return-value]

    def material(self, rules: Any, state: Any, side: int) -> float:
        return self.material_of(rules, state, side)

    def board_cells(self, rules: Any, state: Any) -> list[str]:
        return self.cells_of(rules, state)


def feature_index(features: dict[str, Feature]) -> dict[str, int]:
    """Each feature's index in the weight vector: its place in the declared order."""
    return {name: index for index, name in enumerate(features)}

