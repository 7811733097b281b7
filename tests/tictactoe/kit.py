"""Tic-tac-toe's declared surface (``KIT``) and its registry entry (``INFO``, for ``harness.games.register``)."""

from __future__ import annotations

from typing import Any

from harness.games import GameInfo, Rules, State
from harness.games.gamekit import GameSearch
from tests.tictactoe import make_rules
from tests.tictactoe.features import FEATURES, material

INFO = GameInfo("tictactoe", "tests.tictactoe.kit", "Tic-tac-toe, the tests' own game: three in a row wins.",
                {"seat": ("x", "o")}, "seat")


class TicTacToeKit:
    """See ``harness.games.gamekit.GameKit``."""

    name = "tictactoe"
    features = FEATURES
    eval_scale = 10.0  # one line of two is worth about one logistic unit
    board_shape = (3, 3)
    strong = {"depth": 9, "nodes": 2_000}
    gameboard_slug = None

    def make_rules(self, **config: Any) -> Rules:
        return make_rules(**config)

    @property
    def search(self) -> GameSearch:
        from tests.tictactoe import search
        return search

    def material(self, rules: Rules, state: State, side: int) -> float:
        return material(rules, state, side)

    def board_cells(self, rules: Rules, state: State) -> list[str]:
        """``X``, ``O`` or ``""`` for every cell, row-major."""
        return ["" if cell == 0 else "XO"[cell - 1] for cell in state.cells]


KIT = TicTacToeKit()
