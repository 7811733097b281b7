"""Evaluation features of Chinese chess: named weights in pawns, with defaults and tuning ranges.

The compiled evaluation (``harness.games.xiangqi.search``) reads them as one float64
vector in this order. Piece values are the common textbook ones (chariot 9,
cannon 4.5, horse 4, advisor and elephant 2, soldier 1, a crossed soldier 2);
the general has no material value because losing it ends the game.

``move_limit`` is not an evaluation term but the value of the 120-ply limit
for the side the search plays (its opponent the negative): the rules give
both seats rank 1 there, the score of a win, so a player that only wants
its score may value surviving to the limit above any material. It starts
at 0, a draw, until a paired match moves it.

``empty_cannon`` (a cannon facing the general with nothing between) starts at 0
too: on its own it did not change the move that lost the analysed game it
comes from (docs/xiangqi.md).

The six features before ``move_limit`` (mobility by piece, pieces over the river, the exposed
general, hanging pieces) start at 0: at first-guess weights (0.08, 0.03,
0.02, 0.2, 0.3, 0.1) they did not gain in a paired match at 50,000 nodes per
move (docs/players.md, Search techniques), so they are there for tuning to
move.
"""

from __future__ import annotations

from harness.games import Rules, State
from harness.games.gamekit import Feature

FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("advisor", 2.0, 0.5, 4.0, "value of an advisor"),
    Feature("elephant", 2.0, 0.5, 4.0, "value of an elephant"),
    Feature("horse", 4.0, 2.0, 7.0, "value of a horse"),
    Feature("chariot", 9.0, 5.0, 14.0, "value of a chariot"),
    Feature("cannon", 4.5, 2.0, 7.0, "value of a cannon"),
    Feature("soldier", 1.0, 0.3, 3.0, "value of a soldier on its own side of the river"),
    Feature("soldier_crossed", 1.0, 0.0, 3.0, "extra value of a soldier over the river (it may move sideways)"),
    Feature("soldier_advance", 0.1, 0.0, 0.5, "per row a crossed soldier has advanced beyond the river"),
    Feature("piece_square", 1.0, 0.0, 3.0, "scale of the piece-square terms (central horses and cannons, "
            "advanced chariots, a general kept home)"),
    Feature("mobility", 0.05, 0.0, 0.3, "per pseudo-legal move more than the other side"),
    Feature("general_safety", 0.5, 0.0, 2.0, "per advisor or elephant guarding the general (a quarter "
            "each) less each enemy attacker (chariot, horse, cannon, soldier) near the palace"),
    Feature("horse_mobility", 0.0, 0.0, 0.3, "per pseudo-legal horse move more than the other side "
            "(beside mobility: a horse with blocked legs is a weak piece)"),
    Feature("chariot_mobility", 0.0, 0.0, 0.2, "per pseudo-legal chariot move more than the other side"),
    Feature("cannon_mobility", 0.0, 0.0, 0.2, "per pseudo-legal cannon move more than the other side"),
    Feature("pieces_across", 0.0, 0.0, 1.0, "per chariot, horse or cannon over the river, more than the "
            "other side"),
    Feature("exposed_general", 0.0, 0.0, 2.0, "per enemy chariot (at most one piece between) or cannon (at "
            "most two between) on the general's file or row: pins, and checks a move away"),
    Feature("hanging", 0.0, 0.0, 0.5, "fraction of its value lost per piece attacked by the enemy and "
            "defended by no chariot, horse, cannon, soldier or general"),
    Feature("move_limit", 0.0, 0.0, 100.0, "value for the side the search plays of reaching the 120-ply "
            "limit, where both seats get rank 1 and so the score of a win (0: a draw, worth nothing)"),
    Feature("empty_cannon", 0.0, 0.0, 4.0, "per enemy cannon facing the general along a file or row with "
            "nothing between (the empty-head cannon: any piece put between becomes its screen)"),
)}

# Piece kinds (``side * 8 + kind`` codes of the engine) to their weight's name.
KIND_WEIGHTS = {2: "advisor", 3: "elephant", 4: "horse", 5: "chariot", 6: "cannon", 7: "soldier"}


def material(rules: Rules, state: State, side: int) -> float:
    """The material balance for ``side`` at the default piece values (crossed soldiers count 2)."""
    balance = 0.0
    for index, code in enumerate(state.cells):
        kind = code & 7
        if kind not in KIND_WEIGHTS:
            continue
        value = FEATURES[KIND_WEIGHTS[kind]].default
        owner = code >> 3
        row = index // 9
        if kind == 7 and (row <= 4 if owner == 0 else row >= 5):
            value += FEATURES["soldier_crossed"].default
        balance += value if owner == side else -value
    return balance
