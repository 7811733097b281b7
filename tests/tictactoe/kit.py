"""Tic-tac-toe's declared surface (``KIT``) and its registry entry (``INFO``, for ``harness.games.register``)."""

from __future__ import annotations

from harness.games import GameInfo, Rules, State
from harness.games.gamekit import Kit
from tests.tictactoe import make_rules
from tests.tictactoe.features import FEATURES, material

INFO = GameInfo("tictactoe", "tests.tictactoe.kit", "Tic-tac-toe, the tests' own game: three in a row wins.",
                {"seat": ("x", "o")}, "seat")


def board_cells(rules: Rules, state: State) -> list[str]:
    """``X``, ``O`` or ``""`` for every cell, row-major."""
    return ["" if cell == 0 else "XO"[cell - 1] for cell in state.cells]


KIT = Kit(
    name="tictactoe",
    features=FEATURES,
    # one line of two is worth about one logistic unit
    eval_scale=10.0,
    board_shape=(3, 3),
    strong={"depth": 9, "nodes": 2_000},
    gameboard_slug=None,
    rules=make_rules,
    search_module="tests.tictactoe.search",
    material_of=material,
    cells_of=board_cells,
)
