"""Ravenward's declared surface (``KIT``): what the rest of the project needs of the game."""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Kit
from harness.games.ravenward import make_rules
from harness.games.ravenward.features import FEATURES, material


def board_cells(rules: Rules, state: State) -> list[str]:
    """``K`` the King, ``D`` a defender, ``R`` a raven, ``""`` empty."""
    data = rules.state_to_json(state)
    cells = [""] * 49
    for defender in data["defenders"]:
        if defender is not None and defender >= 0:
            cells[defender] = "D"
    for raven in data["ravens"]:
        if raven is not None and raven >= 0:
            cells[raven] = "R"
    cells[data["king"]] = "K"
    return cells


# The King's side against eight ravens on 7x7.
KIT = Kit(
    name="ravenward",
    features=FEATURES,
    # The evaluation is in score points (a defender is 10): 20 of them make one logistic unit.
    eval_scale=20.0,
    board_shape=(7, 7),
    # The alpha-beta settings of ``strong`` (about one second a move; docs/players.md, Strength).
    strong={"depth": 64, "nodes": 1_500_000},
    gameboard_slug="ravenward",
    rules=make_rules,
    search_module="harness.games.ravenward.search",
    material_of=material,
    cells_of=board_cells,
)
