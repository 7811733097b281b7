"""Totality's declared surface (``KIT``): what the rest of the project needs of the game."""

from __future__ import annotations

from harness.errors import NotationError
from harness.games import Rules, State
from harness.games.gamekit import Kit
from harness.games.totality import make_rules
from harness.games.totality.features import FEATURES, material


def board_cells(rules: Rules, state: State) -> list[str]:
    """The state JSON's board string, one symbol per cell (``S``, ``M``), ``""`` empty."""
    board = rules.state_to_json(state).get("board")
    if not isinstance(board, str) or len(board) != 64:
        raise NotationError("no board of 64 squares in totality's state JSON")
    return ["" if cell == "-" else cell for cell in board]


# Reversi, the Sun against the Moon.
KIT = Kit(
    name="totality",
    features=FEATURES,
    # The evaluation is in square values (a corner is 100): 50 of them make one logistic unit.
    eval_scale=50.0,
    board_shape=(8, 8),
    # The alpha-beta settings of ``strong`` (about one second a move; docs/players.md, Strength).
    strong={"depth": 60, "nodes": 5_000_000},
    gameboard_slug="totality",
    rules=make_rules,
    search_module="harness.games.totality.search",
    material_of=material,
    cells_of=board_cells,
)
