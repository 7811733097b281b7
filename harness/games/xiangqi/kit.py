"""Chinese chess's declared surface (``KIT``): what the rest of the project needs of the game."""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Kit
from harness.games.xiangqi import MARKS, SIDES, make_rules
from harness.games.xiangqi.features import FEATURES, material


def board_cells(rules: Rules, state: State) -> list[str]:
    """The seat protocol's side and mark of every square (``red帥``), row 0 black's back rank."""
    return [SIDES[code >> 3] + MARKS[code >> 3][code & 7] if code else "" for code in state.cells]


# Chinese chess on the two-seat platform.
KIT = Kit(
    name="xiangqi",
    features=FEATURES,
    # The evaluation is in pawns: one and a half of them make one logistic unit.
    eval_scale=1.5,
    board_shape=(10, 9),
    # The alpha-beta settings of ``strong`` (about one second a move; docs/players.md, Strength),
    # searching four times as long when a horse or more behind, settled (docs/players.md, Chinese chess).
    # 5,000,000 nodes since exact_mates: its proofs count as nodes and are cheap ones, so the node budget
    # of before (1,250,000) took a quarter of the time; 5,000,000 takes what it took (0.75 s a move).
    strong={"depth": 60, "nodes": 5_000_000, "behind": 4},
    # played on the seat platform (harness arena), not the stateless loop
    gameboard_slug=None,
    rules=make_rules,
    search_module="harness.games.xiangqi.search",
    material_of=material,
    cells_of=board_cells,
)
