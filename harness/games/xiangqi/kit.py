"""Chinese chess's declared surface (``KIT``): what the rest of the project needs of the game."""

from __future__ import annotations

from typing import Any

from harness.games import Rules, State
from harness.games.gamekit import GameSearch
from harness.games.xiangqi import MARKS, SIDES, make_rules
from harness.games.xiangqi.features import FEATURES, material


class XiangqiKit:
    """Chinese chess on the two-seat platform; see ``harness.games.gamekit.GameKit``."""

    name = "xiangqi"
    features = FEATURES
    # The evaluation is in pawns: one and a half of them make one logistic unit.
    eval_scale = 1.5
    board_shape = (10, 9)
    # The alpha-beta settings of ``strong`` (about one second a move; docs/players.md, Strength).
    strong = {"depth": 60, "nodes": 800_000}
    gameboard_slug = None  # played on the seat platform (harness arena), not the stateless loop

    def make_rules(self, **config: Any) -> Rules:
        return make_rules(**config)

    @property
    def search(self) -> GameSearch:
        from harness.games.xiangqi import search
        return search

    def material(self, rules: Rules, state: State, side: int) -> float:
        return material(rules, state, side)

    def board_cells(self, rules: Rules, state: State) -> list[str]:
        """The seat protocol's side and mark of every square (``red帥``), row 0 black's back rank."""
        return [SIDES[code >> 3] + MARKS[code >> 3][code & 7] if code else "" for code in state.cells]


KIT = XiangqiKit()
